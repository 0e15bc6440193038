package classify

import (
	"strings"
	"testing"
)

// docs/review-round.md §6.1: the first rule that matches decides, and the reason
// names the rule and its facts.
func TestClassificationRules(t *testing.T) {
	base := Facts{ProposedClass: "note", CheckImpact: "none", IntroducedByChange: "no", Regression: "no", LinkWhy: "link_kind none"}
	in := func(f Facts) Facts { f.InCheckPaths, f.CheckGlob = true, "checks/**"; return f }
	with := func(f Facts, mod func(*Facts)) Facts { mod(&f); return f }
	confirmed := func(f *Facts) { f.LinkConfirmed, f.LinkWhy = true, `rule link confirmed: rule document "AGENTS.md"` }
	cases := []struct {
		f      Facts
		class  string
		reason string
	}{
		{in(with(base, func(f *Facts) { f.CheckImpact = "false_pass" })), "defect", "rule 1: in check paths (checks/**), check_impact false_pass"},
		{in(with(base, func(f *Facts) { f.CheckImpact = "meaning_inverted"; f.ProposedClass = "hardening" })), "defect", "rule 1: in check paths (checks/**), check_impact meaning_inverted"},
		{in(with(base, func(f *Facts) { f.CheckImpact = "contract_violation"; confirmed(f) })), "defect",
			`rule 2: in check paths (checks/**), check_impact contract_violation, rule link confirmed: rule document "AGENTS.md"`},
		{in(with(base, func(f *Facts) { f.CheckImpact = "contract_violation" })), "hardening", "rule 3: in check paths (checks/**)"},
		{in(with(base, func(f *Facts) { f.ProposedClass = "defect"; confirmed(f) })), "hardening", "rule 3: in check paths (checks/**)"},
		{in(with(base, func(f *Facts) { f.ProposedClass = "requirement-question" })), "hardening", "rule 3: in check paths (checks/**)"},
		{in(with(base, func(f *Facts) { f.IntroducedByChange, f.Regression = "yes", "yes" })), "hardening", "rule 3: in check paths (checks/**)"},
		{with(base, func(f *Facts) { f.CheckImpact = "false_pass" }), "note", "rule 7: proposed_class note, not in check paths"},
		{with(base, func(f *Facts) {
			f.ProposedClass = "requirement-question"
			f.IntroducedByChange, f.Regression = "yes", "yes"
		}),
			"requirement-question", "rule 4: proposed_class requirement-question"},
		{with(base, func(f *Facts) { f.IntroducedByChange, f.Regression = "yes", "yes" }), "defect", "rule 5: introduced_by_change yes and regression yes"},
		{with(base, func(f *Facts) { f.IntroducedByChange, f.Regression = "yes", "unknown" }), "note", "rule 7: proposed_class note, not in check paths"},
		{with(base, func(f *Facts) { f.ProposedClass = "defect" }), "note", "rule 6: proposed_class defect, link not confirmed (link_kind none)"},
		{with(base, func(f *Facts) { f.ProposedClass = "defect"; confirmed(f) }), "defect", `rule 7: proposed_class defect, rule link confirmed: rule document "AGENTS.md"`},
		{with(base, func(f *Facts) { f.ProposedClass = "hardening" }), "hardening", "rule 7: proposed_class hardening, not in check paths"},
	}
	for _, c := range cases {
		class, reason := Decide(c.f)
		if class != c.class || reason != c.reason {
			t.Errorf("Decide(%+v) = %s, %q; want %s, %q", c.f, class, reason, c.class, c.reason)
		}
	}
}

// docs/review-round.md §6.1: rules 1 and 2 without the check-path
// condition, 3 and 6 skipped, reason starting "unreadable location (…)".
// Whatever the in-check-paths fact says, it is not used.
func TestUnreadableRules(t *testing.T) {
	base := Facts{ProposedClass: "note", CheckImpact: "none", IntroducedByChange: "no", Regression: "no",
		Unreadable: true, UnreadableReason: "line 0", LinkWhy: "link_kind none"}
	with := func(mod func(*Facts)) Facts { f := base; mod(&f); return f }
	cases := []struct {
		f      Facts
		class  string
		reason string
	}{
		{with(func(f *Facts) { f.CheckImpact = "false_pass" }), "defect", "rule 1 without the check-path condition: check_impact false_pass"},
		{with(func(f *Facts) { f.CheckImpact = "meaning_inverted" }), "defect", "rule 1 without the check-path condition: check_impact meaning_inverted"},
		{with(func(f *Facts) {
			f.CheckImpact = "contract_violation"
			f.LinkConfirmed, f.LinkWhy = true, "criterion link confirmed: AC-1"
		}),
			"defect", "rule 2 without the check-path condition: check_impact contract_violation, criterion link confirmed: AC-1"},
		{with(func(f *Facts) { f.CheckImpact = "contract_violation" }), "note", "rule 7: proposed_class note, location not read"},
		{with(func(f *Facts) { f.ProposedClass = "requirement-question" }), "requirement-question", "rule 4: proposed_class requirement-question"},
		{with(func(f *Facts) { f.IntroducedByChange, f.Regression = "yes", "yes" }), "defect", "rule 5: introduced_by_change yes and regression yes"},
		{with(func(f *Facts) { f.ProposedClass = "defect" }), "defect",
			"rule 7: proposed_class defect, link not confirmed (link_kind none; rule 6 is not used for an unreadable location)"},
		{with(func(f *Facts) { f.ProposedClass = "hardening"; f.InCheckPaths = true }), "hardening", "rule 7: proposed_class hardening, location not read"},
	}
	for _, c := range cases {
		class, reason := Decide(c.f)
		want := "unreadable location (line 0); " + c.reason
		if class != c.class || reason != want {
			t.Errorf("Decide(%+v) = %s, %q; want %s, %q", c.f, class, reason, c.class, want)
		}
	}
	// Direction of failure: a finding that is a defect however its location
	// is read (inside or outside the check paths) stays a defect unread.
	for _, pc := range []string{"defect", "requirement-question", "hardening", "note"} {
		for _, ci := range []string{"none", "false_pass", "meaning_inverted", "contract_violation"} {
			for _, yes := range []bool{false, true} {
				for _, ok := range []bool{false, true} {
					f := Facts{ProposedClass: pc, CheckImpact: ci, IntroducedByChange: "no", Regression: "no", LinkConfirmed: ok}
					if yes {
						f.IntroducedByChange, f.Regression = "yes", "yes"
					}
					inside, outside := f, f
					inside.InCheckPaths = true
					ci1, _ := Decide(inside)
					co, _ := Decide(outside)
					u := f
					u.Unreadable, u.UnreadableReason = true, "x"
					cu, ru := Decide(u)
					// Stronger than the contract's "however it was read":
					// a defect under either reading stays a defect.
					if (ci1 == "defect" || co == "defect") && cu != "defect" {
						t.Errorf("%+v: read %s/%s, unreadable %s (%s)", f, ci1, co, cu, ru)
					}
					if !strings.HasPrefix(ru, "unreadable location (x); ") {
						t.Errorf("reason %q", ru)
					}
				}
			}
		}
	}
}
