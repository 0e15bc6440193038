package gate

import (
	"errors"
	"fmt"
	"slices"

	"github.com/jaekit/spar/lib/envelope"
)

// repeatTarget is the earlier finding f restates (findings.json
// repeat_of): a finding of a published round before r in the series. ok is
// false when repeat_of names none (a removed round blocks by 5r already):
// the finding is then judged as any other.
func (s *seriesData) repeatTarget(r *roundData, f *finding) (target, bool) {
	if f.RepeatOf == nil {
		return target{}, false
	}
	t := s.byName[f.RepeatOf.Round]
	if t == nil || t.state != published || s.index[t] >= s.index[r] || t.byID[f.RepeatOf.Finding] == nil {
		return target{}, false
	}
	return target{t, t.byID[f.RepeatOf.Finding]}, true
}

// classOrder ranks the classes from the strictest: a repeat is judged as
// the stricter of its own class and its target's.
var classOrder = []string{envelope.ClassDefect, envelope.ClassRequirementQuestion, envelope.ClassHardening, envelope.ClassNote}

func stricter(a, b string) string {
	if slices.Index(classOrder, b) >= 0 && slices.Index(classOrder, b) < slices.Index(classOrder, a) {
		return b
	}
	return a
}

// repeats: docs/review-gate.md §3 reason 9r. A finding that restates an
// earlier one (a reviewer of a follow-up round gave that finding's id)
// says the earlier decision does not hold. It blocks until the user
// triages it, whatever its class: it is judged as the stricter of its own
// class and its target's, and an automatic deferral never closes it. The
// reason says what it refutes: a fix claim (the target closed as fixed),
// a rejection or deferral (the old words beside the new evidence).
// g.findings leaves these findings to this check.
func (g *gate) repeats(s *seriesData) {
	for _, l := range s.listed {
		r := l.gated()
		if r == nil {
			continue
		}
		for i := range r.finds {
			f := &r.finds[i]
			t, ok := s.repeatTarget(r, f)
			if !ok {
				continue
			}
			g.repeat(s, r, f, t)
		}
	}
}

func (g *gate) repeat(s *seriesData, r *roundData, f *finding, t target) {
	as := *f
	as.Class = stricter(f.Class, t.f.Class)
	c := g.count(f.Class)
	closed, why := false, "no disposition"
	if e := r.last[f.ID]; e != nil && e.Auto {
		why = "an automatic deferral, which never closes a repeat"
	} else if via := s.carriesBack(target{r, f}, t); via != "" {
		why = via
	} else if as.Class == envelope.ClassHardening || as.Class == envelope.ClassNote {
		closed = e != nil
	} else {
		v := s.judge(target{r, &as})
		closed, why = v.closed, v.why
		if v.closed && v.commit != "" {
			if ok, w := s.fixHolds(v); !ok {
				closed, why = false, w
			}
		}
	}
	g.state(r, f.ID, closed)
	if closed {
		c.Closed++
		return
	}
	c.Open++
	of := t.r.name + "/" + t.f.ID
	hint := ""
	if !g.tallyOnly {
		hint = triageHint(s.dirOf(r), f.ID, as.Class, r.rec.Stage)
	}
	what := s.refutes(t)
	g.judge(r, f.ID, fmt.Sprintf("restates %s, %s (%s)", of, what.short, why), hint, true)
	if g.tallyOnly {
		return
	}
	newEv, oldEv := g.evidence(r, f.ID), g.evidence(t.r, t.f.ID)
	g.reason("9r", "%s: round %s: %s %s restates %s, %s (%s); its new evidence: %s; the earlier finding's: %s; to clear: %s",
		s.display, r.name, f.Class, f.ID, of, what.long, why, newEv, oldEv, what.clear+hint)
	g.menu(as.Class)
}

// refutation is what a repeat says of its target's decision.
type refutation struct{ short, long, clear string }

// refutes reads the target's decision: the end of its duplicate chain.
func (s *seriesData) refutes(t target) refutation {
	v := s.judge(t)
	e := t.r.last[t.f.ID]
	switch {
	case v.closed && v.commit != "":
		return refutation{"the fix claim is refuted", fmt.Sprintf("which was closed as fixed by the commit %s: the fix claim is refuted", v.commit),
			"fix it in a new commit and review the new head, then "}
	case e == nil:
		return refutation{"which is open too", "which is open too", ""}
	case e.Auto:
		return refutation{"which was deferred automatically", "which was deferred automatically as hardening: the reviewer says the deferral does not hold", ""}
	}
	words := e.Evidence
	if words == "" {
		words = e.UserQuote
	}
	if words == "" {
		words = e.To
	}
	if words == "" {
		words = e.Of
	}
	return refutation{"which was " + e.Disposition, fmt.Sprintf("which was %s (%q): the reviewer says that decision does not hold", e.Disposition, clipText(oneLine(words), 200)), ""}
}

// evidence is a finding's evidence as the reason quotes it, read from its
// round's findings.json (the gate keeps only the heads of findings).
func (g *gate) evidence(r *roundData, id string) string {
	finds, ok := r.wholeFindings()
	if !ok {
		return "(findings.json cannot be read)"
	}
	for _, f := range finds {
		if f.ID == id {
			return fmt.Sprintf("%q", clipText(oneLine(f.Evidence), 200))
		}
	}
	return "(none)"
}

func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && s[i]&0xC0 == 0x80 {
		i--
	}
	return s[:i] + "…"
}

// carriesBack says why a repeat triaged as a duplicate stays open ("" when
// it is none such): its duplicate chain reaches the finding it restates, or
// a finding that finding's own chain leads to. The repeat says that
// decision does not hold; a duplicate of it would carry the refuted
// decision back and close the repeat by it (docs/trust.md "Follow-up rounds
// and repeats").
func (s *seriesData) carriesBack(rep, t target) string {
	return s.reachesRestated(rep, s.dupWalk(rep).path[1:], t)
}

// dupClosesRepeat says whether triaging rep as a duplicate of d would
// close it as far as reason 9r goes: not when rep restates a finding t
// (repeat_of) and d's duplicate chain reaches t or a finding t's chain
// leads to (carriesBack). spar status suggests no such triage.
func (s *seriesData) dupClosesRepeat(rep, d target) bool {
	t, ok := s.repeatTarget(rep.r, rep.f)
	return !ok || s.reachesRestated(rep, s.dupWalk(d).path, t) == ""
}

// reachesRestated is carriesBack's why for a duplicate chain of rep: the
// first finding of chain on t's own duplicate chain; "" when none.
func (s *seriesData) reachesRestated(rep target, chain []target, t target) string {
	restated := map[*finding]int{}
	for i, c := range s.dupWalk(t).path {
		restated[c.f] = i
	}
	for _, c := range chain {
		i, ok := restated[c.f]
		if !ok {
			continue
		}
		if i == 0 {
			return "a duplicate of " + label(rep, c) + ", the finding it restates: the reviewer says that decision does not hold"
		}
		return "a duplicate of " + label(rep, c) + ", to which the finding it restates, " + label(rep, t) + ", leads: the reviewer says that decision does not hold"
	}
	return ""
}

// fixHolds checks, one finding at a time, what g.findings checks in batch
// for a closing verdict that ends in fixed (the checks that judge a finding
// as another class than its own use it: 9r, 9c): the commit comes after the
// head the fixed finding's round reviewed (predates, 11p) and the gate's
// head contains it (11). why says why not.
func (s *seriesData) fixHolds(v verdict) (ok bool, why string) {
	h := v.end.r.rec.Head
	if w, _ := s.predates(v, map[string]map[string]error{h: Contains(s.repo, h, []string{v.commit})}); w != "" {
		return false, w
	}
	if err := Contains(s.repo, s.head, []string{v.commit})[v.commit]; err != nil {
		if !errors.Is(err, errNotAncestor) {
			return false, "fixed by the commit " + v.commit + ", which does not resolve (" + err.Error() + ")"
		}
		return false, "fixed by the commit " + v.commit + ", which the gate's head " + s.head + " does not contain"
	}
	return true, ""
}
