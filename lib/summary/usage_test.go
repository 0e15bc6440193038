package summary

import (
	"strings"
	"testing"

	"github.com/jaekit/spar/lib/envelope"
)

func i64(n int64) *int64     { return &n }
func f64(f float64) *float64 { return &f }

// usageRec is rec() with attempts: claude refused on its model, then
// completed on the fallback with stated usage; agy is some other program
// named agy on PATH that states nothing.
func usageRec() (r0 []envelope.Attempt, r2 []envelope.Attempt) {
	m := "opus"
	claude := &envelope.Executable{Path: "/home/u/.local/bin/claude", SHA256: "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", Version: "2.1.3 (Claude Code)"}
	r0 = []envelope.Attempt{
		{Model: &m, Status: "unavailable", Reason: "quota or rate limit: hit your limit", Executable: claude},
		{Status: "completed", Executable: claude, Usage: &envelope.Usage{InputTokens: i64(1200), OutputTokens: i64(300), CostUSD: f64(0.12)}},
	}
	r2 = []envelope.Attempt{{Status: "timed_out", Executable: &envelope.Executable{Path: "/tmp/evil/agy", SHA256: "fedcba9876543210", Version: "x\x1b[2Jy"}}}
	return r0, r2
}

// summary.md shows each attempt's executable (path, 12 hex digits of its
// sha256, version line) and usage, "not stated" for what the output did
// not state, and the ## Usage table per reviewer and for the round
// (docs/review-round.md §7.4, G14).
func TestUsageAndProvenance(t *testing.T) {
	r := rec()
	r.Reviewers[0].Attempts, r.Reviewers[2].Attempts = usageRec()
	out := string(Render(r, nil, nil, nil))
	for _, want := range []string{
		"### claude (claude)\n\n- status: completed\n- model asked: none; observed: unknown\n- attempts: 2\n" +
			"- attempt 1 (model opus): unavailable: quota or rate limit: hit your limit\n" +
			"  - executable: /home/u/.local/bin/claude, sha256 0123456789ab, version 2.1.3 (Claude Code)\n" +
			"  - usage: not stated\n" +
			"- attempt 2: completed\n" +
			"  - executable: /home/u/.local/bin/claude, sha256 0123456789ab, version 2.1.3 (Claude Code)\n" +
			"  - usage: tokens input 1200, output 300, cache read not stated, cache write not stated; cost 0.12 USD\n\n",
		// the version line is the program's own text: escaped (people read
		// summary.md with cat)
		"- attempt 1: timed_out\n  - executable: /tmp/evil/agy, sha256 fedcba987654, version x\\x1b[2Jy\n  - usage: not stated\n",
		"\n## Usage\n\n",
		"| reviewer | attempts | input tokens | output tokens | cache read tokens | cache write tokens | cost (USD) |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n" +
			"| claude | 2 | 1200 (partial) | 300 (partial) | not stated | not stated | 0.12 (partial) |\n" +
			"| codex | 0 | - | - | - | - | - |\n" +
			"| agy | 1 | not stated | not stated | not stated | not stated | not stated |\n" +
			"| all reviewers | 3 | 1200 (partial) | 300 (partial) | not stated | not stated | 0.12 (partial) |\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
	// codex was not run in this round (kept from code-1): no attempt line.
	if sec := out[strings.Index(out, "### codex"):strings.Index(out, "### agy")]; strings.Contains(sec, "attempt") {
		t.Errorf("a reviewer without attempts shows one:\n%s", sec)
	}
}

// A fully stated total is shown without "(partial)"; a round where no
// attempt ran a program (a dry run, a rerun keeping every review) says so.
func TestUsageTable(t *testing.T) {
	r := rec()
	x := &envelope.Executable{Path: "/bin/claude", SHA256: "aa"}
	u := func(in, out, cr, cw int64, c float64) *envelope.Usage {
		return &envelope.Usage{InputTokens: &in, OutputTokens: &out, CacheReadTokens: &cr, CacheWriteTokens: &cw, CostUSD: &c}
	}
	r.Reviewers[0].Attempts = []envelope.Attempt{{Status: "completed", Executable: x, Usage: u(10, 2, 3, 4, 0.1)}}
	r.Reviewers[2].Attempts = []envelope.Attempt{{Status: "completed", Executable: x, Usage: u(1, 1, 1, 1, 0.2)}}
	out := string(Render(r, nil, nil, nil))
	if !strings.Contains(out, "| all reviewers | 2 | 11 | 3 | 4 | 5 | 0.3 |\n") {
		t.Errorf("total:\n%s", out)
	}
	if strings.Contains(out, " (partial) |") {
		t.Errorf("partial without an unstated figure:\n%s", out)
	}
	if !strings.Contains(out, "  - usage: tokens input 10, output 2, cache read 3, cache write 4; cost 0.1 USD\n") {
		t.Errorf("attempt usage:\n%s", out)
	}
	out = string(Render(rec(), nil, nil, nil))
	if !strings.HasSuffix(out, "\n## Usage\n\nNo attempt ran a program.\n") {
		t.Errorf("no attempts:\n%s", out)
	}
	// an attempt whose program was not found has no executable
	r = rec()
	r.Reviewers[0].Attempts = []envelope.Attempt{{Status: "unavailable", Reason: `no executable "claude" on PATH`}}
	out = string(Render(r, nil, nil, nil))
	if !strings.Contains(out, "- attempt 1: unavailable: no executable \"claude\" on PATH\n  - executable: none found\n  - usage: not stated\n") {
		t.Errorf("no executable:\n%s", out)
	}
}
