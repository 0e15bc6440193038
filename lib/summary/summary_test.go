package summary

import (
	"strings"
	"testing"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/round"
)

func rec() *round.Record {
	in := "code-1"
	return &round.Record{Name: "code-2", Stage: "code", Base: "b", Head: "h",
		Cap: envelope.Cap{Stage: "code", RerunOf: &in, Limit: 3},
		Reviewers: []round.Reviewer{
			{Name: "claude", Preset: "claude", Status: "completed"},
			{Name: "codex", Preset: "codex", Status: "not_run", CompletedIn: &in},
			{Name: "agy", Preset: "agy", Status: "timed_out", Reason: "no result in 600s"},
		}}
}

func TestVerdictLine(t *testing.T) {
	fs := []envelope.Finding{{Class: "defect"}, {Class: "note"}, {Class: "hardening"}, {Class: "hardening"}}
	got := VerdictLine(rec(), fs, nil)
	want := "Verdict: 1 defect, 0 requirement-questions, 2 hardening, 1 note; completed: claude, codex (in code-1) (2 of 3 reviewers)"
	if got != want {
		t.Fatalf("\n got %q\nwant %q", got, want)
	}
	r := rec()
	r.DryRun = true
	if got := VerdictLine(r, nil, nil); !strings.HasPrefix(got, "Dry run: no reviewer ran (3 reviewers not run)") {
		t.Fatal(got)
	}
}

// Without standpoints summary.md says nothing about them (byte for byte the
// summary of a spar without the feature); with them, every reviewer's
// standpoint and report and the uncovered ones.
func TestStandpointsOnlyWhenGiven(t *testing.T) {
	r := rec()
	out := string(Render(r, nil, nil, nil))
	if strings.Contains(strings.ToLower(out), "standpoint") {
		t.Fatalf("standpoint text without standpoints:\n%s", out)
	}
	if !strings.Contains(out, "Rerun of code-1: not counted") || !strings.Contains(out, "- status: timed_out: no result in 600s") {
		t.Fatal(out)
	}
	text := "attack\nthe cache"
	r.Standpoints = []envelope.Standpoint{{Reviewer: "agy", Text: text}}
	r.StandpointsUncovered = []string{"agy"}
	r.Reviewers[2].Standpoint = &text
	out = string(Render(r, nil, nil, nil))
	for _, want := range []string{"- standpoint: attack the cache\n", "## Uncovered standpoints\n\n- agy: attack the cache\n", "- standpoint: none (reviews the whole change)"} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
}

func TestFindingsTable(t *testing.T) {
	fs := []envelope.Finding{
		{ID: "claude-F1", Class: "hardening", Location: "x|y\nz", Claim: "c", LocationUnreadable: true},
		{ID: "claude-F2", Class: "defect", Location: "a.go:1", Claim: "d", SmallestFix: "fix\nit"},
	}
	l := []round.LedgerEntry{{Finding: "claude-F2", Disposition: "deferred", Auto: true}, {Finding: "claude-F2", Disposition: "fixed"}}
	out := string(Render(rec(), fs, l, nil))
	for _, want := range []string{
		`| claude-F1 | hardening | x\|y z (unreadable location) | c | - |`,
		"| claude-F2 | defect | a.go:1 | d | fixed |",
		"## Smallest fixes\n\n- claude-F2: fix it\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
}
