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

// With the gate's tally the verdict line says how many of each class are
// open and closed, and what the series' other rounds hold open.
func TestVerdictLineTally(t *testing.T) {
	fs := []envelope.Finding{{Class: "defect"}, {Class: "defect"}, {Class: "hardening"}}
	tl := &Tally{Open: round.Counts{Defect: 1}, Closed: round.Counts{Defect: 1, Hardening: 1}}
	want := "Verdict: 2 defects (1 open, 1 closed), 0 requirement-questions, 1 hardening (0 open, 1 closed), 0 notes; completed: claude, codex (in code-1) (2 of 3 reviewers)"
	if got := VerdictLine(rec(), fs, tl); got != want {
		t.Fatalf("\n got %q\nwant %q", got, want)
	}
	tl = &Tally{Others: []RoundOpen{{Round: "code-1", Open: 2}, {Round: "code-3", Open: 1}}}
	want = "Verdict: 0 defects, 0 requirement-questions, 0 hardening, 0 notes; open in other rounds of the series: 3 (code-1: 2, code-3: 1); completed: claude, codex (in code-1) (2 of 3 reviewers)"
	if got := VerdictLine(rec(), nil, tl); got != want {
		t.Fatalf("\n got %q\nwant %q", got, want)
	}
}

// summary.md says why: each class reason, the findings several reviewers
// report at the same place (each kept), each deciding disposition with
// what it rests on, each angle's result.
func TestWhy(t *testing.T) {
	l10, l12, l11 := 10, 12, 11
	fs := []envelope.Finding{
		{ID: "rules-F1", Reviewer: "rules", Class: "defect", Path: "app/auth.go", LineStart: &l10, LineEnd: &l12, ClassReason: "rule 5: introduced by the change"},
		{ID: "checks-F1", Reviewer: "checks", Class: "defect", Path: "app/auth.go", LineStart: &l11, ClassReason: "rule 5: introduced by the change"},
		{ID: "vet-F2", Reviewer: "vet", Class: "note", Path: "README.md", ClassReason: "rule 9: link not confirmed"},
		{ID: "vet-F3", Reviewer: "vet", Class: "hardening", Path: "README.md"},
	}
	l := []round.LedgerEntry{
		{Finding: "rules-F1", Disposition: "fixed", Commit: "abc", FailedBefore: "go test failed", PassedAfter: "go test passed"},
		{Finding: "checks-F1", Disposition: "duplicate", Of: "rules-F1", OfRound: "code-1"},
		{Finding: "vet-F2", Disposition: "rejected", Evidence: "the link is AGENTS.md:3"},
		{Finding: "vet-F3", Disposition: "deferred", Auto: true, To: "automatic deferral of hardening at record"},
		{Finding: "vet-F3", Disposition: "deferred", To: "ISSUE-7", UserQuote: "later"},
	}
	r := rec()
	res := "compared every branch"
	r.Reviewers[0].AnglesChecked = []round.AngleItem{{Angle: "side-effects", Result: &res}, {Angle: "design"}}
	out := string(Render(r, fs, l, nil))
	for _, want := range []string{
		"## Why each class\n\n- rules-F1 (defect): rule 5: introduced by the change\n- checks-F1 (defect): rule 5: introduced by the change\n- vet-F2 (note): rule 9: link not confirmed\n- vet-F3 (hardening): no reason recorded\n",
		"## Corroborated\n\nSeveral reviewers report these at the same place (same path, overlapping lines, same class); each stays a finding of its own.\n\n- app/auth.go:10-12 (defect): rules-F1, checks-F1\n",
		"- rules-F1: fixed (by the commit abc; failed before: go test failed; passed after: go test passed)\n",
		"- checks-F1: duplicate (of code-1/rules-F1)\n",
		"- vet-F2: rejected (evidence: the link is AGENTS.md:3)\n",
		"- vet-F3: deferred (to: ISSUE-7; the user's words: \"later\")\n",
		"- angles checked: side-effects, design\n- angles unchecked: none\n- angle results:\n  - side-effects: compared every branch\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
	// One reviewer at one place twice corroborates nothing.
	fs[1].Reviewer = "rules"
	if out := string(Render(r, fs, nil, nil)); strings.Contains(out, "## Corroborated") || strings.Contains(out, "## Dispositions") {
		t.Errorf("corroborated by one reviewer, or dispositions without a ledger:\n%s", out)
	}
}
