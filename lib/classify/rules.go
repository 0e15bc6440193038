package classify

import (
	"fmt"

	"github.com/jaekit/spar/lib/envelope"
)

// Facts are what the class is decided from: the reviewer's values and what
// the round confirmed about location and link.
type Facts struct {
	ProposedClass      string
	CheckImpact        string
	IntroducedByChange string
	Regression         string
	InCheckPaths       bool
	CheckGlob          string // the check path glob that matched
	Unreadable         bool
	UnreadableReason   string
	LinkConfirmed      bool
	LinkWhy            string // what the link landed on, or why it is not confirmed
}

// Decide applies the classification rules (docs/review-round.md §6.1). The first
// rule that matches decides; the reason names the rule and its facts.
//
//	1 in check paths, check_impact false_pass or meaning_inverted     defect
//	2 in check paths, check_impact contract_violation, link confirmed defect
//	3 in check paths (anything else)                                  hardening
//	4 proposed_class requirement-question                             requirement-question
//	5 introduced_by_change and regression both yes                    defect
//	6 proposed_class defect and link not confirmed                    note
//	7 otherwise                                                       proposed_class
//
// An unreadable location (docs/review-round.md §6.1) uses 1 and 2 without
// the check-path condition and skips 3 and 6: a misread location may leave
// more defects for a person, never hide one as hardening or note.
func Decide(f Facts) (class, reason string) {
	if f.Unreadable {
		class, reason = decideUnreadable(f)
		return class, fmt.Sprintf("unreadable location (%s); %s", f.UnreadableReason, reason)
	}
	in := fmt.Sprintf("in check paths (%s)", f.CheckGlob)
	switch {
	case f.InCheckPaths && (f.CheckImpact == "false_pass" || f.CheckImpact == "meaning_inverted"):
		return envelope.ClassDefect, fmt.Sprintf("rule 1: %s, check_impact %s", in, f.CheckImpact)
	case f.InCheckPaths && f.CheckImpact == "contract_violation" && f.LinkConfirmed:
		return envelope.ClassDefect, fmt.Sprintf("rule 2: %s, check_impact contract_violation, %s", in, f.LinkWhy)
	case f.InCheckPaths:
		return envelope.ClassHardening, "rule 3: " + in
	}
	return decideCommon(f, false)
}

func decideUnreadable(f Facts) (string, string) {
	switch {
	case f.CheckImpact == "false_pass" || f.CheckImpact == "meaning_inverted":
		return envelope.ClassDefect, fmt.Sprintf("rule 1 without the check-path condition: check_impact %s", f.CheckImpact)
	case f.CheckImpact == "contract_violation" && f.LinkConfirmed:
		return envelope.ClassDefect, fmt.Sprintf("rule 2 without the check-path condition: check_impact contract_violation, %s", f.LinkWhy)
	}
	return decideCommon(f, true)
}

// decideCommon is rules 4 to 7; skip6 drops rule 6 for unreadable locations.
func decideCommon(f Facts, skip6 bool) (string, string) {
	switch {
	case f.ProposedClass == envelope.ClassRequirementQuestion:
		return envelope.ClassRequirementQuestion, "rule 4: proposed_class requirement-question"
	case f.IntroducedByChange == "yes" && f.Regression == "yes":
		return envelope.ClassDefect, "rule 5: introduced_by_change yes and regression yes"
	case f.ProposedClass == envelope.ClassDefect && !f.LinkConfirmed && !skip6:
		return envelope.ClassNote, fmt.Sprintf("rule 6: proposed_class defect, link not confirmed (%s)", f.LinkWhy)
	case f.ProposedClass == envelope.ClassDefect && !f.LinkConfirmed:
		return envelope.ClassDefect, fmt.Sprintf("rule 7: proposed_class defect, link not confirmed (%s; rule 6 is not used for an unreadable location)", f.LinkWhy)
	case f.ProposedClass == envelope.ClassDefect:
		return envelope.ClassDefect, fmt.Sprintf("rule 7: proposed_class defect, %s", f.LinkWhy)
	}
	where := "not in check paths"
	if skip6 {
		where = "location not read"
	}
	return f.ProposedClass, fmt.Sprintf("rule 7: proposed_class %s, %s", f.ProposedClass, where)
}

// UncommittedOnly reports whether a finding of class does not block only
// because its location is in a check path the head commit's configuration
// does not list: by the committed check paths alone its class
// (committedClass) is a defect or a requirement-question, which block,
// while class is hardening or a note (docs/trust.md "Inputs the agent can
// edit"). spar-record does not defer it automatically, and the gate blocks
// on it until it is triaged as its committed class would be.
func UncommittedOnly(class, committedClass string) bool {
	blocks := func(c string) bool { return c == envelope.ClassDefect || c == envelope.ClassRequirementQuestion }
	return !blocks(class) && blocks(committedClass)
}
