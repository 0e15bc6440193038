package sparexec

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/packet"
)

// benchEnvelope builds a small repository and an envelope whose reviewers
// are the fake claude, codex and agy (testdata/fake) taking FAKE_SLEEP s.
func benchEnvelope(b testing.TB, dir string, names []string) []byte {
	repo := filepath.Join(dir, "repo")
	if _, err := os.Stat(repo); err != nil {
		script := `set -e
git init -q -b main "$1"; cd "$1"
git config user.name b; git config user.email b@example.invalid
echo one > a.txt; git add a.txt; git commit -q -m base
echo two > a.txt; git commit -q -am head`
		if out, err := exec.Command("sh", "-c", script, "sh", repo).CombinedOutput(); err != nil {
			b.Fatalf("%v %s", err, out)
		}
	}
	rev := func(r string) string {
		out, err := exec.Command("git", "-C", repo, "rev-parse", r).Output()
		if err != nil {
			b.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	// The fakes' credentials: spar-exec does not start a claude or codex it
	// knows has none (preset.Login.KnownOut).
	b.Setenv("ANTHROPIC_API_KEY", "sk-fake-for-the-fake-claude")
	b.Setenv("CODEX_API_KEY", "sk-fake-for-the-fake-codex")
	fake, _ := filepath.Abs(filepath.Join("..", "..", "testdata", "fake"))
	var reviewers []map[string]any
	for _, n := range names {
		bin := filepath.Join(fake, n)
		reviewers = append(reviewers, map[string]any{"name": n, "preset": n, "isolation": "verified", "required": true,
			"model": "m", "fallback_model": nil, "effort": nil, "binary": bin, "argv": nil, "timeout_seconds": 60,
			// The fakes read FAKE_SLEEP: in the sandbox a reviewer gets
			// only the variables its entry names (docs/sandbox.md).
			"env": []string{"FAKE_*"}})
	}
	series := filepath.Join(dir, "reviews")
	out := filepath.Join(series, strings.Join(names, "-")+time.Now().Format("150405.000000000"))
	config := map[string]any{"reviewers": reviewers, "caps": map[string]int{"plan": 1, "plan_delta": 1, "code": 1 << 30}}
	var cfg envelope.Config
	if raw, err := json.Marshal(config); err != nil || json.Unmarshal(raw, &cfg) != nil {
		b.Fatalf("the configuration does not read as envelope.Config: %v", err)
	}
	run := &envelope.Run{Repo: repo, Stage: "code", Base: rev("HEAD~1"), Head: rev("HEAD"), Out: out, Series: series, Name: filepath.Base(out)}
	var err error
	if run.Changes, _, err = packet.Changes(repo, run.Base, run.Head, nil, nil); err != nil {
		b.Fatal(err)
	}
	// The packet spar-packet builds: spar-exec builds it again and refuses
	// any other (docs/trust.md).
	env := map[string]any{"schema": "spar-pipe/v1", "config": config, "run": run, "packet": packet.Build(run, &cfg)}
	data, _ := json.Marshal(env)
	return data
}

func timeRound(b *testing.B, dir string, names []string) time.Duration {
	env := benchEnvelope(b, dir, names)
	null, _ := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	defer null.Close()
	start := time.Now()
	if err := run(bytes.NewReader(env), null, null, options{}); err != nil {
		b.Fatal(err)
	}
	return time.Since(start)
}

// BenchmarkConcurrency (docs/pipeline.md §5, step 4): three fake reviewers that each
// take 2 s; ratio is the round's wall time over a round with one of them
// (target: at most 1.15). Each iteration times three rounds of each,
// interleaved, and keeps the fastest of each: other work on the machine
// only ever adds time.
func BenchmarkConcurrency(b *testing.B) {
	b.Setenv("FAKE_SLEEP", "2")
	dir := b.TempDir()
	var one, three time.Duration
	for i := 0; i < b.N; i++ {
		best1, best3 := time.Duration(1<<62), time.Duration(1<<62)
		for j := 0; j < 3; j++ {
			best1 = min(best1, timeRound(b, dir, []string{"claude"}))
			best3 = min(best3, timeRound(b, dir, []string{"claude", "codex", "agy"}))
		}
		one += best1
		three += best3
	}
	b.ReportMetric(float64(three)/float64(one), "ratio")
	b.ReportMetric(float64(one.Milliseconds())/float64(b.N), "ms/one-reviewer")
	b.ReportMetric(float64(three.Milliseconds())/float64(b.N), "ms/three-reviewers")
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(p, 0o755)
		}
		return nil
	})
}
