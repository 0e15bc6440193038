// Package disposition holds the write rules of spar triage, spar waive and
// spar extend (docs/review-round.md §8.2; G20, G27, G28, G30–G33): the
// disposition rules table, the waiver and extension rules, and the one way
// each of them appends its line to a series under the series lock. The
// rules table is also what spar gate judges a ledger line by (Closing,
// docs/review-gate.md §3) and what every usage text and gate hint is rendered from
// (render.go): what closes a finding is written once, in Rules.
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
	"github.com/jaekit/spar/lib/round"
	"github.com/jaekit/spar/lib/suggest"
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

// Spar's own options of a verified fix claim (checkFlags): they are not
// ledger text, so they are not in Options.
const (
	OptCheck           = "check"
	OptAllowRegression = "allow-regression"
)

// checkArgs are the words the usage and the advice show for the values of
// the verified fix claim's options.
var checkArgs = map[string]string{OptCheck: "CMD", OptAllowRegression: "WORDS"}

// Option is one text option of spar triage: the word its usage shows for
// the value, the ledger field that records it, and what the gate says of a
// ledger line whose disposition needs it and that lacks it.
type Option struct {
	Flag  string
	Arg   string
	Field func(*round.LedgerEntry) *string
	Lacks string
}

// Options are the text options of spar triage, in the order the usage
// lists them.
var Options = []Option{
	{OptCommit, "REV", func(e *round.LedgerEntry) *string { return &e.Commit }, "names no commit"},
	{OptOf, "ID", func(e *round.LedgerEntry) *string { return &e.Of }, "names no finding"},
	{OptEvidence, "TEXT", func(e *round.LedgerEntry) *string { return &e.Evidence }, "has no evidence"},
	{OptTo, "WHERE", func(e *round.LedgerEntry) *string { return &e.To }, "names no place it is deferred to"},
	{OptUserQuote, "WORDS", func(e *round.LedgerEntry) *string { return &e.UserQuote }, "has no user's words"},
	{OptFailedBefore, "CHECK", func(e *round.LedgerEntry) *string { return &e.FailedBefore }, "names no check that failed before the fix"},
	{OptPassedAfter, "CHECK", func(e *round.LedgerEntry) *string { return &e.PassedAfter }, "names no check that passes after it"},
}

// TriageOptions are the flag names of Options, in their order.
var TriageOptions = func() []string {
	out := make([]string, len(Options))
	for i, o := range Options {
		out[i] = o.Flag
	}
	return out
}()

// OptionOf returns the option of a flag name.
func OptionOf(flag string) Option {
	for _, o := range Options {
		if o.Flag == flag {
			return o
		}
	}
	panic("disposition: no option " + flag)
}

// The dispositions (docs/review-round.md §8.2).
const (
	Fixed     = "fixed"
	Answered  = "answered"
	Rejected  = "rejected"
	Accepted  = "accepted"
	Deferred  = "deferred"
	Duplicate = "duplicate"
)

// Need is a set of options a disposition needs. Classes and Stage narrow
// when: nil classes is any class, an empty stage any stage.
type Need struct {
	Options []string
	Classes []string
	Stage   string
	// Check is set when a verified fix claim gives the options: --check
	// CMD runs the command and is their text when they are not given
	// (checkFlags). The advice (Forms) names --check CMD in their place;
	// what triage accepts and the gate demands is still Options (Needed),
	// so the options alone, given as words, keep doing what they did.
	Check bool
}

func (n Need) applies(class, stage string) bool {
	return (n.Classes == nil || contains(n.Classes, class)) && (n.Stage == "" || n.Stage == stage)
}

// Rule is one row of the disposition rules table (docs/review-round.md §8.2, docs/review-gate.md §3): what
// spar triage writes and what spar gate accepts as closing a finding are
// both read from it, so that a ledger line closes a finding exactly when
// triage could have written it for that finding.
type Rule struct {
	Disposition string
	// For lists the classes triage gives the disposition to; nil means
	// any class.
	For []string
	// Closes lists the blocking classes (Blocking) whose finding the
	// disposition closes at the gate. A duplicate closes nothing itself:
	// the gate follows its chain (Follows).
	Closes []string
	// Follows is set for the disposition whose line names another finding
	// (--of) that decides instead.
	Follows bool
	// Takes lists the options the disposition records. Any other option
	// given with a text is a usage error: a ledger line never carries a
	// value that its disposition does not read.
	Takes []string
	// Needs are the options that must be given (not empty after trimming,
	// G30) to triage, and that the gate demands of the ledger line.
	Needs []Need
	// Note is what the usage text adds after the options it needs.
	Note string
}

// Blocking are the classes whose open finding blocks the gate
// (docs/review-gate.md §3). A hardening or a note never blocks: any ledger line counts it closed.
var Blocking = []string{envelope.ClassDefect, envelope.ClassRequirementQuestion}

// Rules is the disposition rules table. Its order is the order the usage
// lists the dispositions and the order a gate reason offers them: the first
// that closes a class is the one the reason names first.
var Rules = []Rule{
	{
		Disposition: Fixed,
		// docs/review-gate.md §3: fixed closes a defect; a requirement-question is
		// closed only by the user's answer, a rejection or a deferral.
		Closes: []string{envelope.ClassDefect},
		Takes:  []string{OptCommit, OptFailedBefore, OptPassedAfter},
		// G27: the commit that fixes it; a code-stage defect also names the
		// check that failed before the fix and passes after it, so that
		// "fixed" is evidence and not a claim.
		Needs: []Need{
			{Options: []string{OptCommit}},
			{Options: []string{OptFailedBefore, OptPassedAfter}, Classes: []string{envelope.ClassDefect}, Stage: "code", Check: true},
		},
		Note: "(a revision git resolves)",
	},
	{
		Disposition: Answered,
		For:         []string{envelope.ClassRequirementQuestion},
		Closes:      []string{envelope.ClassRequirementQuestion},
		Takes:       []string{OptUserQuote},
		Needs:       []Need{{Options: []string{OptUserQuote}}},
	},
	{
		Disposition: Rejected,
		Closes:      Blocking,
		Takes:       []string{OptEvidence},
		Needs:       []Need{{Options: []string{OptEvidence}}},
		Note:        "(why the finding is wrong)",
	},
	{
		Disposition: Accepted,
		For:         []string{envelope.ClassDefect},
		Closes:      []string{envelope.ClassDefect},
		Takes:       []string{OptUserQuote},
		Needs:       []Need{{Options: []string{OptUserQuote}}},
	},
	{
		Disposition: Deferred,
		Closes:      Blocking,
		Takes:       []string{OptTo, OptUserQuote},
		// A defect or a question the user must answer is only put off with
		// the user's words; hardening and notes need only where it is tracked.
		Needs: []Need{
			{Options: []string{OptTo}},
			{Options: []string{OptUserQuote}, Classes: Blocking},
		},
	},
	{
		Disposition: Duplicate,
		Follows:     true,
		Takes:       []string{OptOf},
		Needs:       []Need{{Options: []string{OptOf}}},
		Note:        "(ID or ROUND/ID: another finding of this round or of an earlier round of the series)",
	},
}

// Needed returns the options the rule needs for a finding of class in a
// round of stage, in table order.
func (r Rule) Needed(class, stage string) []string {
	var out []string
	for _, n := range r.Needs {
		if n.applies(class, stage) {
			out = append(out, n.Options...)
		}
	}
	return out
}

// Advised returns the options the advice names for a finding of class in a
// round of stage, in table order: Needed, with --check in place of the
// options a verified fix claim gives (Need.Check).
func (r Rule) Advised(class, stage string) []string {
	var out []string
	for _, n := range r.Needs {
		switch {
		case !n.applies(class, stage):
		case n.Check:
			out = append(out, OptCheck)
		default:
			out = append(out, n.Options...)
		}
	}
	return out
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
		return Rule{}, exitcode.New(exitcode.Usage, fmt.Sprintf("triage: --as %q is not a disposition (one of %s)%s", disposition, strings.Join(Names(), ", "), suggest.Hint(disposition, Names()...)))
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
	for _, o := range r.Needed(f.Class, stage) {
		if !Given(opts[o]) {
			missing = append(missing, o)
		}
	}
	if len(missing) > 0 {
		return exitcode.New(exitcode.Config, fmt.Sprintf("triage: --as %s for %s %q of a %s round needs %s (missing: %s)", r.Disposition, f.Class, f.ID, stage, flagList(r.Needed(f.Class, stage)), flagList(missing)))
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
