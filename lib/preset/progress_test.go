package preset

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The progress heartbeat's tool calls (Signal.Calls, Signal.Last), counted
// from the recorded streams as they arrive: each call once, whatever how
// many events a stream writes for it.
func TestSignal_ToolCallsOfRecordedStreams(t *testing.T) {
	for _, c := range []struct {
		preset, stream string
		calls          int
		last           string
	}{
		// Read of head/app/main.go, then the StructuredOutput answer.
		{"claude", "claude-review.jsonl", 2, "StructuredOutput"},
		// One command item: item.started and item.completed.
		{"codex", "codex-review.jsonl", 1, "command /bin/bash -lc 'cat head/app/main.go'"},
		// Thirteen tool steps, each ACTIVE then DONE; the two
		// run_command and two replace_file_content steps break G10 and
		// G11 and are not counted; the last a view_file, cut at 120 bytes.
		{"agy", "agy-success-run.ndjson", 9, `view_file C:\Users\pc\AppData\Local\Temp\claude\D--sed-lms-v2\a1e5c622-e1bf-4866-8939-3f4936cc8d58\scratchpad\agy-spike\site2\abou…`},
	} {
		p, _ := Get(c.preset)
		m := p.NewMonitor()
		f, err := os.Open(filepath.Join(agyStreams, c.stream))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		calls, last := 0, ""
		for sc.Scan() {
			sig := m.Line(sc.Bytes())
			if sig.Violation != "" {
				// The published agy run's PowerShell lines break G11: a
				// violation is a state change, not a counted call.
				continue
			}
			if sig.Activity() {
				calls += sig.Calls
				last = sig.Last
			}
		}
		f.Close()
		if calls != c.calls || last != c.last {
			t.Errorf("%s: %d calls, last %q; want %d, %q", c.stream, calls, last, c.calls, c.last)
		}
	}
	// A long argument is cut to one line of at most 120 bytes of it.
	long := callLine("Grep", "a\nb "+strings.Repeat("é", 100))
	if len(long) > len("Grep ")+120+len("…") || long[:8] != "Grep a b" {
		t.Errorf("%q", long)
	}
}
