package classify

import (
	"encoding/json"
	"testing"

	"github.com/jaekit/spar/lib/envelope"
)

// docs/trust.md "Inputs the agent can edit": a location in a check path
// the head commit's configuration does not list keeps the class the rules
// give (G24 unchanged), and the finding records the glob, that it is not
// committed, and the class the committed check paths alone give.
func TestCommittedCheckPaths_ClassRecorded(t *testing.T) {
	ix := fuzzIndex(t)
	head, base := ix.head.Commit, ix.base.Commit
	finding := func(loc string) json.RawMessage {
		b, _ := json.Marshal(map[string]any{"findings": []map[string]any{{
			"id": "1", "proposed_class": "defect", "angle": "side-effects", "location": loc, "claim": "c",
			"failure_scenario": "f", "evidence": "e", "link_kind": "none", "link": "", "introduced_by_change": "yes",
			"regression": "yes", "check_impact": "none", "confidence": "high"}}})
		return b
	}
	cases := []struct {
		name      string
		paths     []string
		committed []string
		loc       string
		class     string
		glob      string
		isComm    bool
		commClass string
	}{
		// '**' given with --check-path: hardening by rule 3, a defect (rule 5) by the committed ones
		{"uncommitted", []string{"checks/**", "**"}, []string{"checks/**"}, "head/head/x.go", "hardening", "**", false, "defect"},
		// a committed glob that matches wins over an uncommitted one listed first
		{"committed wins", []string{"**", "checks/**"}, []string{"checks/**"}, "checks/t.py", "hardening", "checks/**", true, "hardening"},
		{"not in check paths", []string{"checks/**"}, []string{"checks/**"}, "head/head/x.go", "defect", "", false, "defect"},
		// a run recorded before committed_check_paths existed: every glob counts
		{"legacy", []string{"**"}, nil, "head/head/x.go", "hardening", "**", true, "hardening"},
	}
	for _, c := range cases {
		run := &envelope.Run{Repo: ix.repo, Base: base, Head: head, CheckPaths: c.paths, CommittedCheckPaths: c.committed}
		got, err := Classify(run, []envelope.Result{{Reviewer: "r", Status: "completed", Result: finding(c.loc)}})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		f := got[0]
		if f.Class != c.class || f.CheckPath != c.glob || f.CheckPathCommitted != c.isComm || f.CommittedClass != c.commClass {
			t.Errorf("%s: class %s, check_path %q, committed %v, committed_class %s; want %s, %q, %v, %s (%s)",
				c.name, f.Class, f.CheckPath, f.CheckPathCommitted, f.CommittedClass, c.class, c.glob, c.isComm, c.commClass, f.ClassReason)
		}
	}
}
