package gate

import (
	"strings"
	"testing"

	"github.com/jaekit/spar/lib/disposition"
	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/round"
)

// oneRound is a series of one published round of stage holding one finding
// of class whose ledger is lines.
func oneRound(stage, class string, lines ...round.LedgerEntry) (*seriesData, target) {
	r := &roundData{name: "code-1", state: published, rec: &round.Record{Name: "code-1", Stage: stage},
		finds: []finding{{ID: "codex-F1", Class: class}}, ledger: lines,
		byID: map[string]*finding{}, last: map[string]*round.LedgerEntry{}}
	r.byID["codex-F1"] = &r.finds[0]
	for i := range r.ledger {
		r.last[r.ledger[i].Finding] = &r.ledger[i]
	}
	s := &seriesData{rounds: []*roundData{r}, byName: map[string]*roundData{r.name: r}, index: map[*roundData]int{r: 0}}
	return s, target{r, &r.finds[0]}
}

// triageAccepts is what spar triage decides for the same finding: the
// rule's checks that need no record (disposition.CheckOptions,
// CheckFinding), with the line's fields as the options.
func triageAccepts(stage, class string, e round.LedgerEntry) error {
	opts := map[string]string{}
	for _, o := range disposition.Options {
		opts[o.Flag] = *o.Field(&e)
	}
	r, err := disposition.CheckOptions(e.Disposition, opts)
	if err != nil {
		return err
	}
	return disposition.CheckFinding(r, envelope.Finding{ID: "codex-F1", Class: class}, stage, opts)
}

// The gate demands what spar triage demands (docs/review-gate.md §3, the
// disposition rules table): a hand-written line lacking the deferral's
// place or a code-stage fix's checks does not close, and every line the
// gate accepts triage would have written.
func TestG30_GateDemandsWhatTriageWrites(t *testing.T) {
	cases := []struct {
		stage, class string
		e            round.LedgerEntry
		closed       bool
		why          string
	}{
		{"code", "defect", round.LedgerEntry{Disposition: "fixed", Commit: "c", FailedBefore: "t", PassedAfter: "t"}, true, ""},
		{"code", "defect", round.LedgerEntry{Disposition: "fixed", Commit: "c"}, false, "its last disposition, fixed, names no check that failed before the fix"},
		{"code", "defect", round.LedgerEntry{Disposition: "fixed", Commit: "c", FailedBefore: "t"}, false, "its last disposition, fixed, names no check that passes after it"},
		{"plan", "defect", round.LedgerEntry{Disposition: "fixed", Commit: "c"}, true, ""},
		{"code", "defect", round.LedgerEntry{Disposition: "deferred", To: "backlog", UserQuote: "later"}, true, ""},
		{"code", "defect", round.LedgerEntry{Disposition: "deferred", UserQuote: "later"}, false, "its last disposition, deferred, names no place it is deferred to"},
		{"code", "requirement-question", round.LedgerEntry{Disposition: "deferred", To: "  ", UserQuote: "later"}, false, "its last disposition, deferred, names no place it is deferred to"},
		{"code", "requirement-question", round.LedgerEntry{Disposition: "answered", UserQuote: "yes"}, true, ""},
		{"code", "requirement-question", round.LedgerEntry{Disposition: "fixed", Commit: "c"}, false, "its last disposition, fixed, does not close a requirement-question"},
		{"code", "defect", round.LedgerEntry{Disposition: "rejected", Evidence: "x"}, true, ""},
		{"code", "defect", round.LedgerEntry{Disposition: "waived"}, false, `its last disposition "waived" is not a disposition`},
	}
	for _, c := range cases {
		c.e.Finding = "codex-F1"
		s, start := oneRound(c.stage, c.class, c.e)
		v := s.judge(start)
		if v.closed != c.closed || v.why != c.why {
			t.Errorf("%s %s %+v: closed=%v (%s), want %v (%s)", c.stage, c.class, c.e, v.closed, v.why, c.closed, c.why)
		}
		if v.closed && triageAccepts(c.stage, c.class, c.e) != nil {
			t.Errorf("%s %s %+v: the gate closes what triage refuses: %v", c.stage, c.class, c.e, triageAccepts(c.stage, c.class, c.e))
		}
	}
}

// Changing what closes a finding is one edit to the disposition rules
// table: with a modified table, triage (its checks and usage), the gate's
// judgement and the gate's hint all change together.
func TestG30_RulesTableOwnsClosing(t *testing.T) {
	line := round.LedgerEntry{Finding: "codex-F1", Disposition: "accepted", UserQuote: "ship it"}
	// The hint side: the dispositions a reason and the menu offer.
	hint := func() string { return strings.Join(dispositions("defect", "code"), " | ") }
	s, start := oneRound("code", "defect", line)
	if v := s.judge(start); !v.closed {
		t.Fatalf("accepted with the user's words: open (%s)", v.why)
	}
	if err := triageAccepts("code", "defect", line); err != nil {
		t.Fatalf("triage: %v", err)
	}
	if h := hint(); !strings.Contains(h, "--as accepted --user-quote WORDS |") {
		t.Fatalf("hint: %s", h)
	}

	saved := disposition.Rules
	t.Cleanup(func() { disposition.Rules = saved })
	// The modified table: accepting a defect also needs evidence, and
	// rejection no longer closes a defect.
	disposition.Rules = nil
	for _, r := range saved {
		switch r.Disposition {
		case "accepted":
			r.Takes = append(append([]string{}, r.Takes...), disposition.OptEvidence)
			r.Needs = append(append([]disposition.Need{}, r.Needs...), disposition.Need{Options: []string{disposition.OptEvidence}})
		case "rejected":
			r.Closes = []string{"requirement-question"}
		}
		disposition.Rules = append(disposition.Rules, r)
	}

	if v := s.judge(start); v.closed || v.why != "its last disposition, accepted, has no evidence" {
		t.Errorf("gate, modified table: closed=%v (%s)", v.closed, v.why)
	}
	if err := triageAccepts("code", "defect", line); err == nil || !strings.Contains(err.Error(), "missing: --evidence") {
		t.Errorf("triage, modified table: %v", err)
	}
	line.Evidence = "the user signed it"
	s, start = oneRound("code", "defect", line)
	if v := s.judge(start); !v.closed {
		t.Errorf("gate, modified table, with evidence: open (%s)", v.why)
	}
	if err := triageAccepts("code", "defect", line); err != nil {
		t.Errorf("triage, modified table, with evidence: %v", err)
	}
	rej := round.LedgerEntry{Finding: "codex-F1", Disposition: "rejected", Evidence: "x"}
	s, start = oneRound("code", "defect", rej)
	if v := s.judge(start); v.closed || v.why != "its last disposition, rejected, does not close a defect" {
		t.Errorf("gate, modified table, rejected: closed=%v (%s)", v.closed, v.why)
	}
	h := hint()
	if !strings.Contains(h, "--as accepted --user-quote WORDS --evidence TEXT") || strings.Contains(h, "--as rejected") {
		t.Errorf("hint, modified table: %s", h)
	}
	if u := disposition.UsageTable(); !strings.Contains(u, "--as accepted   defect only: --user-quote WORDS and --evidence TEXT") {
		t.Errorf("usage, modified table:\n%s", u)
	}
}
