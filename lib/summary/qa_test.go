package summary

import (
	"strings"
	"testing"
	"unicode"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/round"
)

// TestQA_SummaryControlCharacters: every reviewer-given text reaches
// summary.md, which people read with cat (docs/usage.md §3.3). A reviewer's
// claim, location, fix, limits, reason or observed model holding terminal
// escapes (ESC [ 2 J, OSC 52 writing the clipboard) or NUL must not reach
// the file raw: control characters are shown escaped, the records keep the
// text as received (G5).
func TestQA_SummaryControlCharacters(t *testing.T) {
	bad := "x\x1b[2J\x1b]52;c;ZXZpbA==\x07\x00\x7f\u009by"
	r := rec()
	r.Reviewers[0].Reason = bad
	r.Reviewers[0].ObservedModel = &bad
	r.Reviewers[0].Limits = &bad
	r.Reviewers[0].AnglesUnchecked = []round.AngleItem{{Angle: "design", Reason: &bad}}
	r.Standpoints = []envelope.Standpoint{{Reviewer: "claude", Text: bad}}
	r.Reviewers[0].StandpointReport = &envelope.StandpointReport{Checked: true, Detail: bad}
	fs := []envelope.Finding{{ID: "claude-F1", Class: "defect", Location: bad, Claim: bad, SmallestFix: bad}}
	out := string(Render(r, fs, nil, nil))
	for i, c := range out {
		if unicode.IsControl(c) && c != '\n' {
			t.Fatalf("control character %q at byte %d of summary.md:\n%q", c, i, out)
		}
	}
	if !strings.Contains(out, `x\x1b[2J\x1b]52;c;ZXZpbA==\a\x00\x7f\u009by`) {
		t.Fatalf("escaped text missing:\n%s", out)
	}
}
