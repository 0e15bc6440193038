// Package disposition holds the write rules of spar triage, spar waive and
// spar extend (docs/review-round.md §8.2; G20, G27, G28, G30–G33): the
// disposition rules table, the waiver and extension rules, and the one way
// each of them appends its line to a series under the series lock.
//
// Every refusal is an *exitcode.Error with code 65 and nothing written; a
// usage error is code 64. Messages name the offending value with %q.
package disposition

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/exitcode"
)

// Text options of spar triage, by flag name (G30).
const (
	OptCommit       = "commit"
	OptOf           = "of"
	OptEvidence     = "evidence"
	OptTo           = "to"
	OptUserQuote    = "user-quote"
	OptFailedBefore = "failed-before"
	OptPassedAfter  = "passed-after"
)

// TriageOptions are the options of one spar triage, in the order the usage
// text lists them.
var TriageOptions = []string{OptCommit, OptOf, OptEvidence, OptTo, OptUserQuote, OptFailedBefore, OptPassedAfter}

// Rule is one row of the disposition rules table (docs/review-round.md §8.2).
type Rule struct {
	Disposition string
	// For lists the classes the disposition is for; nil means any class.
	For []string
	// Takes lists the options the disposition records. Any other option
	// given with a text is a usage error: a ledger line never carries a
	// value that its disposition does not read.
	Takes []string
	// Needs returns the options that must be given (not empty after
	// trimming, G30) for a finding of class in a round of stage.
	Needs func(class, stage string) []string
}

// Rules is the disposition rules table, in the order of docs/review-round.md §8.2.
var Rules = []Rule{
	{
		Disposition: "fixed",
		Takes:       []string{OptCommit, OptFailedBefore, OptPassedAfter},
		// G27: the commit that fixes it; a code-stage defect also names the
		// check that failed before the fix and passes after it, so that
		// "fixed" is evidence and not a claim.
		Needs: func(class, stage string) []string {
			if stage == "code" && class == "defect" {
				return []string{OptCommit, OptFailedBefore, OptPassedAfter}
			}
			return []string{OptCommit}
		},
	},
	{
		Disposition: "rejected",
		Takes:       []string{OptEvidence},
		Needs:       func(string, string) []string { return []string{OptEvidence} },
	},
	{
		Disposition: "duplicate",
		Takes:       []string{OptOf},
		Needs:       func(string, string) []string { return []string{OptOf} },
	},
	{
		Disposition: "deferred",
		Takes:       []string{OptTo, OptUserQuote},
		// A defect or a question the user must answer is only put off with
		// the user's words; hardening and notes need only where it is tracked.
		Needs: func(class, _ string) []string {
			if class == "defect" || class == "requirement-question" {
				return []string{OptTo, OptUserQuote}
			}
			return []string{OptTo}
		},
	},
	{
		Disposition: "accepted",
		For:         []string{"defect"},
		Takes:       []string{OptUserQuote},
		Needs:       func(string, string) []string { return []string{OptUserQuote} },
	},
	{
		Disposition: "answered",
		For:         []string{"requirement-question"},
		Takes:       []string{OptUserQuote},
		Needs:       func(string, string) []string { return []string{OptUserQuote} },
	},
}

// Lookup returns the rule of a disposition name.
func Lookup(name string) (Rule, bool) {
	for _, r := range Rules {
		if r.Disposition == name {
			return r, true
		}
	}
	return Rule{}, false
}

// Names returns the disposition names in table order.
func Names() []string {
	out := make([]string, len(Rules))
	for i, r := range Rules {
		out[i] = r.Disposition
	}
	return out
}

// Given reports whether a text option counts as given (G30: a text that is
// empty after leading and trailing whitespace is removed counts as not given).
func Given(s string) bool { return strings.TrimSpace(s) != "" }

// CheckOptions is the part of the rules that needs no record: the
// disposition is one of the table's, and no option it does not record is
// given. Both are usage errors (64).
func CheckOptions(disposition string, opts map[string]string) (Rule, error) {
	r, ok := Lookup(disposition)
	if !ok {
		return Rule{}, exitcode.New(exitcode.Usage, fmt.Sprintf("triage: --as %q is not a disposition (one of %s)", disposition, strings.Join(Names(), ", ")))
	}
	for _, o := range TriageOptions {
		if err := CheckText("triage", o, opts[o]); err != nil {
			return Rule{}, err
		}
	}
	for _, o := range TriageOptions {
		if Given(opts[o]) && !contains(r.Takes, o) {
			return Rule{}, exitcode.New(exitcode.Usage, fmt.Sprintf("triage: --%s does not apply to --as %s (it takes %s)", o, disposition, flagList(r.Takes)))
		}
	}
	return r, nil
}

// CheckFinding applies the rule to a finding of a round of stage: the
// disposition is for the finding's class, and every option it needs is
// given. Broken rules are refusals (65, G30).
func CheckFinding(r Rule, f envelope.Finding, stage string, opts map[string]string) error {
	if r.For != nil && !contains(r.For, f.Class) {
		return exitcode.New(exitcode.Config, fmt.Sprintf("triage: --as %s is only for a %s; finding %q is a %s", r.Disposition, strings.Join(r.For, " or "), f.ID, f.Class))
	}
	var missing []string
	for _, o := range r.Needs(f.Class, stage) {
		if !Given(opts[o]) {
			missing = append(missing, o)
		}
	}
	if len(missing) > 0 {
		return exitcode.New(exitcode.Config, fmt.Sprintf("triage: --as %s for %s %q of a %s round needs %s (missing: %s)", r.Disposition, f.Class, f.ID, stage, flagList(r.Needs(f.Class, stage)), flagList(missing)))
	}
	return nil
}

// CheckText refuses a text option that is not valid UTF-8: the JSON record
// cannot hold it as received (G30, as G25 and G35), and the user's words are
// never changed.
func CheckText(cmd, opt, s string) error {
	if !utf8.ValidString(s) {
		return exitcode.New(exitcode.Config, fmt.Sprintf("%s: --%s %q refused: not valid UTF-8 (the record cannot hold it as received)", cmd, opt, s))
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func flagList(opts []string) string {
	if len(opts) == 0 {
		return "no option"
	}
	out := make([]string, len(opts))
	for i, o := range opts {
		out[i] = "--" + o
	}
	return strings.Join(out, ", ")
}
