package gate

import (
	"fmt"
	"strings"

	"github.com/jaekit/spar/lib/classify"
	"github.com/jaekit/spar/lib/config"
	"github.com/jaekit/spar/lib/envelope"
)

// agentInputs blocks on what the agent under review could bend without a
// commit (docs/trust.md "Inputs the agent can edit", docs/review-gate.md):
//
//   - each input of the series' latest input (the latest counted round and
//     its reruns) that differed from the head commit's version when spar
//     read it from the working tree (round.json dirty_inputs);
//   - each finding of a listed round that is hardening or a note only
//     because of a check path the head commit's configuration does not
//     list (findings.json committed_class): it is judged as its committed
//     class, so an automatic deferral never closes it. A glob the latest
//     round's head commit lists by now no longer counts against it.
func (g *gate) agentInputs(s *seriesData) {
	if s.latest == nil {
		return
	}
	for _, r := range s.input {
		for _, d := range dirtyInputs(r) {
			g.reason("9d", "%s: round %s: %s differed from the head commit's version when the round read it (%s): the reviewers and the classification saw what the head does not hold; to clear: commit it and run a new round on the new head: %s",
				s.display, r.name, dirtyWhat(d), d.Change, s.runCommand(s.latest.rec.Base, "REV"))
		}
	}
	committedNow := map[string]bool{}
	for _, c := range s.latest.rec.CommittedCheckPaths {
		committedNow[c] = true
	}
	for _, l := range s.listed {
		r := l.gated()
		if r == nil {
			continue
		}
		for i := range r.finds {
			f := r.finds[i]
			if !classify.UncommittedOnly(f.Class, f.CommittedClass) || committedNow[f.CheckPath] {
				continue
			}
			// Judged as the class the committed check paths give.
			as := f
			as.Class = f.CommittedClass
			v := s.judge(target{r, &as})
			why := v.why
			if v.closed && v.commit != "" {
				if ok, w := s.fixHolds(v); !ok {
					v.closed, why = false, w
				}
			}
			if v.closed {
				continue
			}
			if e := r.last[f.ID]; e != nil {
				// g.findings counted it closed by its ledger line.
				c := g.count(f.Class)
				c.Closed--
				c.Open++
			}
			g.state(r, f.ID, false)
			g.judge(r, f.ID, "a "+f.Class+" only through the uncommitted check path "+f.CheckPath+"; as the "+f.CommittedClass+" the committed check paths make it: "+why,
				triageHint(s.dirOf(r), f.ID, f.CommittedClass, r.rec.Stage), true)
			g.reason("9c", "%s: round %s: %s %s is %s only through the check path %s, which the committed %s does not list (by the committed check paths it is a %s, and as one it is open: %s); to clear: triage it as a %s would be: %s",
				s.display, r.name, f.Class, f.ID, f.Class, shellQuote(f.CheckPath), config.ProjectFile, f.CommittedClass, why,
				f.CommittedClass, triageHint(s.dirOf(r), f.ID, f.CommittedClass, r.rec.Stage))
			g.menu(f.CommittedClass)
		}
	}
}

// dirtyWhat names a dirty input as the gate's reasons do.
func dirtyWhat(d envelope.DirtyInput) string {
	if d.Role == "config" {
		return "the project configuration " + d.Path
	}
	return "the " + d.Role + " document " + d.Path
}

// DirtyInputsRefusal is why a round that would read dirty inputs would not
// count: the gate blocks on each of them (9d, agentInputs), so spar run asks
// it before any reviewer starts and refuses instead of spending a round the
// gate rejects (docs/review-round.md "Inputs that differ from the head
// commit"). nil when dirty is empty.
func DirtyInputsRefusal(dirty []envelope.DirtyInput) error {
	if len(dirty) == 0 {
		return nil
	}
	var names, paths []string
	for _, d := range dirty {
		names = append(names, dirtyWhat(d)+" ("+d.Change+")")
		paths = append(paths, shellQuote(d.Path))
	}
	verb, it := "differs", "it"
	if len(dirty) > 1 {
		verb, it = "differ", "them"
	}
	return fmt.Errorf("%s %s from the head commit's version: the reviewers and the classification would read what the head commit does not hold, and the gate blocks on such a round (9d), so no reviewer was started; to go on: commit %s (git add -- %s && git commit) and run again with the new commit as --head",
		strings.Join(names, ", "), verb, it, strings.Join(paths, " "))
}

// dirtyInputs are the inputs of r that differed from its head commit: what
// round.json records and what the gate recomputed (recomputeInputs), each
// path once; a round.json whose dirty_inputs were emptied by hand still
// blocks.
func dirtyInputs(r *roundData) []envelope.DirtyInput {
	out := append([]envelope.DirtyInput{}, r.rec.DirtyInputs...)
	seen := map[string]bool{}
	for _, d := range out {
		seen[d.Path] = true
	}
	for _, d := range r.dirty {
		if !seen[d.Path] {
			seen[d.Path] = true
			out = append(out, d)
		}
	}
	return out
}
