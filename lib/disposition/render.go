package disposition

import (
	"fmt"
	"strings"

	"github.com/jaekit/spar/lib/round"
)

// This file derives from the rules table what the other sides show and
// decide: the gate's judgement of a ledger line (Closing), the triage
// command a gate reason offers and its menu (Hint, Forms, StageAlso), and
// the usage text of spar triage (UsageTable, Synopsis). None of them holds
// a rule of its own.

// Closing reports whether the ledger line e closes a finding of class in a
// round of stage (docs/review-gate.md §3): its disposition
// closes the class, and the line holds every option the rule needs for that
// finding, so that a line closes a finding exactly when spar triage could
// have written it for the finding. A hand-written line lacking what triage
// demands does not close. A duplicate closes nothing here: the gate follows
// its chain. When it does not close, the second result says why.
func Closing(class, stage string, e *round.LedgerEntry) (bool, string) {
	r, ok := Lookup(e.Disposition)
	if !ok {
		return false, fmt.Sprintf("its last disposition %q is not a disposition", e.Disposition)
	}
	if !contains(r.Closes, class) {
		return false, "its last disposition, " + r.Disposition + ", does not close a " + class
	}
	for _, name := range r.Needed(class, stage) {
		o := OptionOf(name)
		if !Given(*o.Field(e)) {
			return false, "its last disposition, " + r.Disposition + ", " + o.Lacks
		}
	}
	return true, ""
}

// Hint is the spar triage that closes a finding of class in a round of
// stage: cmd (`spar triage ROUND FINDING`, quoted by the caller) with the
// first disposition of the table that closes the class, then the others in
// table order, each with the options it needs.
func Hint(cmd, class, stage string) string {
	forms := Forms(class, stage)
	if len(forms) == 0 {
		return cmd
	}
	out := cmd + " " + forms[0]
	if len(forms) > 1 {
		out += " (or " + strings.Join(forms[1:], ", ") + ")"
	}
	return out
}

// Forms are the spar triage flags (`--as D` and the options its advice
// names, Advised) of every disposition that closes a finding of class in a
// round of stage, in table order; a duplicate, which closes through its
// chain, included. A code-round defect's fix is the verified form,
// `--as fixed --commit REV --check CMD`.
func Forms(class, stage string) []string {
	var forms []string
	for _, r := range closers(class) {
		f := "--as " + r.Disposition
		for _, o := range r.Advised(class, stage) {
			f += " " + optArg(o)
		}
		forms = append(forms, f)
	}
	return forms
}

// StageAlso is what the first form of Forms(class, "") (a round of any
// stage) needs more in a round of stage, "" when nothing: each need of that
// stage's own, and where a verified fix claim gives the options, --check
// first and then the words form, as in
// `--check CMD, or --failed-before CHECK --passed-after CHECK`.
func StageAlso(class, stage string) string {
	rs := closers(class)
	if len(rs) == 0 {
		return ""
	}
	var out []string
	for _, n := range rs[0].Needs {
		if n.Stage == "" || !n.applies(class, stage) {
			continue
		}
		words := make([]string, len(n.Options))
		for i, o := range n.Options {
			words[i] = optArg(o)
		}
		w := strings.Join(words, " ")
		if n.Check {
			w = optArg(OptCheck) + ", or " + w
		}
		out = append(out, w)
	}
	return strings.Join(out, "; ")
}

// closers are the rules of Forms: every one that closes a finding of class,
// and the duplicate, in table order.
func closers(class string) []Rule {
	var out []Rule
	for _, r := range Rules {
		if r.Follows || contains(r.Closes, class) {
			out = append(out, r)
		}
	}
	return out
}

// Synopsis is the options part of spar triage's one-line synopsis:
// `[--commit REV] [--of ID] …`, every option of Options in order, then
// the verified fix claim's (checkFlags).
func Synopsis() string {
	out := make([]string, len(Options))
	for i, o := range Options {
		out[i] = "[" + optArg(o.Flag) + "]"
	}
	return strings.Join(out, " ") + " [" + optArg(OptCheck) + " [" + optArg(OptAllowRegression) + "]]"
}

// usageWidth is the width the usage text wraps at.
const usageWidth = 76

// UsageTable is the part of spar triage's usage that lists, per
// disposition, the options it needs: one row per rule in table order.
func UsageTable() string {
	var b strings.Builder
	const indent = "                  "
	for _, r := range Rules {
		var words []string
		if r.For != nil {
			words = append(words, strings.Join(r.For, " or ")+" only:")
		}
		var always []string
		var also []Need
		for _, n := range r.Needs {
			if n.Classes == nil && n.Stage == "" {
				always = append(always, n.Options...)
			} else {
				also = append(also, n)
			}
		}
		words = append(words, optWords(always)...)
		if r.Note != "" {
			words = append(words, strings.Fields(r.Note)...)
		}
		for _, n := range also {
			words[len(words)-1] += ";"
			words = append(words, "a")
			if n.Stage != "" {
				words = append(words, n.Stage+"-stage")
			}
			if n.Classes != nil {
				words = append(words, strings.Fields(strings.Join(n.Classes, " or "))...)
			}
			words = append(words, "also")
			words = append(words, optWords(n.Options)...)
		}
		line := fmt.Sprintf("  --as %-10s", r.Disposition)
		for _, w := range words {
			if len(line)+1+len(w) > usageWidth {
				b.WriteString(line + "\n")
				line = indent[:len(indent)-1]
			}
			line += " " + w
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// optWords are the options as usage words, joined with "and": each option
// with its value is one word, so that the two stay on one line.
func optWords(opts []string) []string {
	var out []string
	for i, o := range opts {
		if i > 0 {
			out = append(out, "and")
		}
		out = append(out, optArg(o))
	}
	return out
}

// optArg is a flag with the word for its value: a text option's (Options)
// or a verified fix claim's (checkArgs).
func optArg(flag string) string {
	if arg, ok := checkArgs[flag]; ok {
		return "--" + flag + " " + arg
	}
	return "--" + flag + " " + OptionOf(flag).Arg
}
