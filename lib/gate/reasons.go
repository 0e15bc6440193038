package gate

import (
	"fmt"
	"strings"
)

// Code names a kind of blocked reason: the first column of the reason
// table of docs/review-gate.md §3. Every reason the gate gives carries one
// (Reason.Code, the record's reason_details); the codes are data, so that
// CI, rdjsonl and Code Quality can tell reasons apart without reading
// their words.
type Code string

// The registry: every code the gate gives, in the order of the table, with
// what it is about. A test holds docs/review-gate.md's table to it (every
// code documented, every documented code given by some script).
var Codes = []struct {
	Code  Code
	About string
}{
	{"1", "a listed round is unreadable, or a series gated whole holds none"},
	{"2", "a listed round stopped before recording findings"},
	{"3", "a listed round is a dry run"},
	{"4", "a listed round's waivers.jsonl does not read"},
	{"5", "a round of the series is not in the gate list"},
	{"5u", "a round of the series is not in the gate list and is unreadable"},
	{"5r", "a counted round of the series is missing"},
	{"5d", "a record names a round the series lacks"},
	{"5g", "a publish of the series removed or rewrote a record, or the folder lacks what was published"},
	{"5l", "the series' latest input is a rerun with no counted round"},
	{"6", "--expect-head does not resolve to a commit"},
	{"6a", "a short revision is both a ref and an object prefix"},
	{"7", "the latest counted round reviewed another head than --expect-head"},
	{"7h", "the latest counted round reviewed another head than the repository's HEAD"},
	{"7u", "the repository's HEAD does not resolve"},
	{"7s", "a shallow clone lacks a commit a round reviewed"},
	{"7m", "the repository lacks a commit a round reviewed"},
	{"7r", "the gate's head differs from the reviewed change replayed onto its base (residual)"},
	{"7x", "the reviewed change cannot be replayed onto the gate's head's base (unverifiable)"},
	{"8r", "round.json does not follow from the reviewers' results"},
	{"8f", "findings.json does not follow from the reviewers' results"},
	{"8s", "a reviewer's result is not the one its own output holds"},
	{"8i", "round.json's inputs are not the ones spar recomputes"},
	{"8v", "a fixed line's check record does not re-derive from the round's files and the commits"},
	{"8u", "a round's follow_up does not follow from the series"},
	{"8", "a document of the latest counted round changed"},
	{"9", "a defect is open"},
	{"9c", "a finding is hardening or a note only through an uncommitted check path"},
	{"9d", "an input of the latest input differed from the head commit"},
	{"9r", "a finding restates an earlier one whose decision does not hold"},
	{"10", "a requirement-question is open"},
	{"10v", "verify_fixes = \"required\" and a code-round defect's fix claim no check verified"},
	{"10r", "--rerun-checks: a fix's check did not verify the fix when the gate ran it again"},
	{"11", "a fixed finding's commit is not in the gate's head"},
	{"11u", "a fixed finding's commit does not resolve"},
	{"11s", "a shallow clone cannot tell whether the head holds a fix"},
	{"11p", "a fix commit the reviewed head already held"},
	{"12", "a required reviewer has no completed review of the latest input"},
	{"12n", "a native review that does not count"},
	{"12c", "the gate's own configuration cannot be read"},
	{"13", "no reviewer completed a review of the latest input"},
	{"14", "the reviews do not cover the series' whole change"},
	{"14b", "the code reviews do not cover the change --expect-base makes"},
	{"15", "no round of the series is signed by a trusted key"},
	{"15k", "the trusted signers cannot be read"},
	{"15s", "a trusted key's signature does not cover its round"},
}

// known reports whether c is in the registry.
func known(c Code) bool {
	for _, x := range Codes {
		if x.Code == c {
			return true
		}
	}
	return false
}

// ReasonDetail is one reason of the record as data: its code beside the
// text of the record's reasons, split as the readable forms show it.
type ReasonDetail struct {
	Code    Code   `json:"code"`
	Problem string `json:"problem"`
	Clear   string `json:"clear"`
}

// reason adds one blocked reason of the kind code, "<problem>; to clear:
// <what clears it>". It is one line: a control character that reaches it
// from a record (a file name, an error) is shown escaped. The format's
// "; to clear: " splits it, and its arguments with it, into the Reason the
// readable forms show (report.go); a format without it is a problem only.
//
// An argument that is the series' next run (seriesData.nextRun) is the
// format's last: that command is known only once every reason of the
// series was given (each required reviewer without a review adds itself
// to it), so the reason holds the series and finish writes the command at
// its end.
func (g *gate) reason(code Code, format string, args ...any) {
	if g.tallyOnly {
		return
	}
	if !known(code) {
		panic("gate: reason code " + string(code) + " is not in the registry")
	}
	var run *seriesData
	if n := len(args); n > 0 {
		if nr, ok := args[n-1].(nextRunArg); ok {
			run, args = nr.s, args[:n-1]
			if !strings.HasSuffix(format, "%s") {
				panic("gate: a next run must be the format's last verb")
			}
			format = strings.TrimSuffix(format, "%s")
		}
	}
	problem, clear := format, ""
	var pArgs, cArgs []any = args, nil
	if i := strings.Index(format, clearSep); i >= 0 {
		n := verbs(format[:i])
		problem, clear = format[:i], format[i+len(clearSep):]
		pArgs, cArgs = args[:n], args[n:]
	}
	r := Reason{Code: code, Problem: oneLineText(fmt.Sprintf(problem, pArgs...)), run: run}
	if clear != "" {
		r.Clear = oneLineText(fmt.Sprintf(clear, cArgs...))
	}
	g.reasons = append(g.reasons, r)
}

// nextRunArg stands for the series' next run among a reason's arguments.
type nextRunArg struct{ s *seriesData }

// finish completes every reason (the series' next run at the end of those
// that name it) and writes them into the record, as lines and as data.
func (g *gate) finish() {
	for i := range g.reasons {
		r := &g.reasons[i]
		if r.run != nil {
			r.Clear += oneLineText(r.run.nextRunCommand())
			r.run = nil
		}
		g.rec.Reasons = append(g.rec.Reasons, r.Line())
		g.rec.ReasonDetails = append(g.rec.ReasonDetails, ReasonDetail{Code: r.Code, Problem: r.Problem, Clear: r.Clear})
	}
}

// openCode is the code of an open finding of class: 9 for a defect, 10 for
// a requirement-question (the classes that block).
func openCode(class string) Code {
	if class == "requirement-question" {
		return "10"
	}
	return "9"
}
