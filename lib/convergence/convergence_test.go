package convergence

import (
	"reflect"
	"strings"
	"testing"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/round"
)

func defect(id, reviewer, path, claim string, repeat *envelope.RepeatOf) envelope.Finding {
	return envelope.Finding{ID: id, Reviewer: reviewer, Class: envelope.ClassDefect, Path: path, Angle: "side-effects", Claim: claim, RepeatOf: repeat}
}

func rep(r, f string) *envelope.RepeatOf { return &envelope.RepeatOf{Round: r, Finding: f} }

// Three counted rounds, 3 → 1 → 0 new defects: converging; a fixed
// finding the next follow-up does not restate is confirmed once, by that
// round, only when its head holds the fix.
func TestOf_Converging(t *testing.T) {
	rounds := []Round{
		// A plan round: its finding counts for its reviewer, not in the loop.
		{Name: "plan-1", Stage: "plan", Head: "h0", Counted: true, Findings: []envelope.Finding{defect("a-F1", "a", "PLAN.md", "vague", nil)},
			Last: map[string]*round.LedgerEntry{"a-F1": {Disposition: "answered"}}},
		{Name: "code-1", Stage: "code", Head: "h1", Counted: true, Findings: []envelope.Finding{
			defect("a-F1", "a", "x.go", "one", nil), defect("a-F2", "a", "y.go", "two", nil), defect("b-F1", "b", "z.go", "three", nil)},
			Last: map[string]*round.LedgerEntry{"a-F1": {Disposition: "fixed", Commit: "fix1"}, "a-F2": {Disposition: "rejected"}, "b-F1": {Disposition: "fixed", Commit: "fix2"}}},
		{Name: "code-2", Stage: "code", Head: "h2", Counted: true, FollowUp: &envelope.FollowUp{Earlier: []string{"code-1/a-F1", "code-1/a-F2", "code-1/b-F1"}},
			Findings: []envelope.Finding{defect("a-F1", "a", "w.go", "four", nil)}, Last: map[string]*round.LedgerEntry{}},
		// A rerun of code-2: its findings count for code-2.
		{Name: "code-3", Stage: "code", Head: "h2", RerunOf: "code-2", FollowUp: &envelope.FollowUp{Earlier: []string{"code-1/a-F1", "code-1/a-F2", "code-1/b-F1"}}},
		{Name: "code-4", Stage: "code", Head: "h3", Counted: true, FollowUp: &envelope.FollowUp{Earlier: []string{"code-1/a-F1", "code-1/a-F2", "code-1/b-F1", "code-2/a-F1"}},
			Findings: []envelope.Finding{defect("b-F1", "b", "y.go", "two again", rep("code-1", "a-F2"))}},
	}
	// fix1 is in h2 and h3; fix2 only in h3.
	contains := func(c, head string) bool { return c == "fix1" || c == "fix2" && head == "h3" }
	r := Of(rounds, contains)
	if r.Trend != "converging: 3 → 1 → 0 new defects (1 repeat)" {
		t.Errorf("trend %q", r.Trend)
	}
	var got [][]string
	for _, f := range r.Rounds {
		got = append(got, f.FixesConfirmed)
	}
	want := [][]string{{}, {"code-1/a-F1"}, {"code-1/b-F1"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("fixes confirmed %v, want %v", got, want)
	}
	if len(r.Rounds) != 3 || r.Rounds[2].Repeats != 1 || r.Rounds[2].New != 0 {
		t.Errorf("rounds %+v", r.Rounds)
	}
	wantRv := []ReviewerFigures{{Reviewer: "a", Findings: 4, Fixed: 1, Rejected: 1, Answered: 1, Open: 1}, {Reviewer: "b", Findings: 2, Fixed: 1, Open: 1}}
	if !reflect.DeepEqual(r.Reviewers, wantRv) {
		t.Errorf("reviewers %+v, want %+v", r.Reviewers, wantRv)
	}
}

// A finding restated in two rounds, or new defects that rise: not
// converging, and the line says why.
func TestOf_NotConverging(t *testing.T) {
	rounds := []Round{
		{Name: "code-1", Stage: "code", Counted: true, Findings: []envelope.Finding{defect("a-F1", "a", "x.go", "one", nil)}},
		{Name: "code-2", Stage: "code", Counted: true, Findings: []envelope.Finding{defect("a-F1", "a", "x.go", "one", rep("code-1", "a-F1"))}},
		{Name: "code-3", Stage: "code", Counted: true, Findings: []envelope.Finding{defect("a-F1", "a", "x.go", "one", rep("code-2", "a-F1"))}},
	}
	if tr := Of(rounds, nil).Trend; tr != "not converging: the same finding was restated 2 times (code-1/a-F1, in code-2, code-3)" {
		t.Errorf("trend %q", tr)
	}
	rose := []Round{
		{Name: "code-1", Stage: "code", Counted: true, Findings: []envelope.Finding{defect("a-F1", "a", "x.go", "one", nil)}},
		{Name: "code-2", Stage: "code", Counted: true, Findings: []envelope.Finding{defect("a-F1", "a", "x.go", "p", nil), defect("a-F2", "a", "x.go", "q", nil)}},
	}
	if tr := Of(rose, nil).Trend; !strings.HasPrefix(tr, "not converging: new defects rose from 1 in code-1 to 2 in code-2") {
		t.Errorf("trend %q", tr)
	}
	if tr := Of(rose[:1], nil).Trend; tr != "one round so far: 1 new defect" {
		t.Errorf("trend %q", tr)
	}
}

// Possible repeats: same path and angle, claims alike by 0.7 or more;
// never a finding that restates, one triaged as a duplicate, or one of the
// same input.
func TestPossibleRepeats(t *testing.T) {
	rounds := []Round{
		{Name: "code-1", Stage: "code", Counted: true, Findings: []envelope.Finding{
			defect("a-F1", "a", "x.go", "The parser drops the last line of input", nil),
			defect("a-F2", "a", "y.go", "The parser drops the last line of input", nil)}},
		{Name: "code-2", Stage: "code", Counted: true, Findings: []envelope.Finding{
			defect("b-F1", "b", "x.go", "the parser drops the last line of the input.", nil), // alike
			defect("b-F2", "b", "x.go", "Timeouts are never retried", nil),                   // another claim
			defect("b-F3", "b", "x.go", "The parser drops the last line of input", rep("code-1", "a-F1")),
			defect("b-F4", "b", "x.go", "The parser drops the last line of input", nil)},
			Last: map[string]*round.LedgerEntry{"b-F4": {Disposition: "duplicate", Of: "code-1/a-F1"}}},
	}
	got := PossibleRepeats(rounds)
	if len(got) != 1 || got[0].Finding != "b-F1" || got[0].Of != "code-1/a-F1" || got[0].Similarity < Similar {
		t.Errorf("possible repeats %+v", got)
	}
	other := rounds[1].Findings[0]
	other.Angle = "design"
	if p := PossibleRepeats([]Round{rounds[0], {Name: "code-2", Findings: []envelope.Finding{other}}}); len(p) != 0 {
		t.Errorf("another angle: %+v", p)
	}
}
