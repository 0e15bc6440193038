package gate

import (
	"fmt"
	"slices"

	"github.com/jaekit/spar/lib/followup"
)

// followUps: docs/review-gate.md §3 reason 8u. A follow-up round's
// follow_up is what spar-exec checked against the series under the lock
// (lib/followup.Check): the findings of the rounds recorded before it, and
// a last reviewed head that one of them reviewed. round.json is the
// agent's to edit; an edit that drops a finding from follow_up.earlier
// would unlink its repeat, one that moves since would change what the
// round is credited with (coverage). So the gate holds each published
// round's follow_up to the rounds before it in series order: those were
// recorded before it took the lock (a round starts under the lock).
func (g *gate) followUps(s *seriesData) {
	for i, r := range s.rounds {
		if r.state != published || r.rec == nil || r.rec.DryRun || r.rec.FollowUp == nil {
			continue
		}
		fu := r.rec.FollowUp
		want := []string{}
		heads := map[string]string{} // round name -> head
		for _, e := range s.rounds[:i] {
			if e.state != published || e.rec == nil || e.rec.DryRun || e.rec.Stage != followup.Stage || e.rec.Base == r.rec.Base && e.rec.Head == r.rec.Head {
				continue
			}
			heads[e.name] = e.rec.Head
			for _, f := range e.finds {
				want = append(want, followup.Qualified(e.name, f.ID))
			}
		}
		problem := ""
		switch {
		case r.rec.Stage != followup.Stage:
			problem = fmt.Sprintf("a %s round has a follow_up, which only code rounds get", r.rec.Stage)
		case fu.Full && (fu.Since != "" || len(fu.Earlier) > 0 || len(fu.Delta) > 0):
			problem = "its follow_up says full (the first round's packet) but names a last reviewed head or earlier findings"
		case !fu.Full && !slices.Equal(fu.Earlier, want):
			problem = fmt.Sprintf("its follow_up.earlier lists %d findings, but the rounds recorded before it hold %d (%s)", len(fu.Earlier), len(want), firstDifference(fu.Earlier, want))
		case fu.Since != "" && heads[fu.SinceRound] != fu.Since:
			problem = fmt.Sprintf("its follow_up.since %s is not the head of an earlier round %q of the series", fu.Since, fu.SinceRound)
		case fu.Since == "" && (fu.SinceRound != "" || len(fu.Delta) > 0):
			problem = "its follow_up names a round or a delta without a last reviewed head"
		}
		if problem == "" {
			continue
		}
		g.reason("8u", "%s: round %s: round.json does not follow from the series: %s; to clear: restore the round's records as spar wrote them, or run a new round: %s",
			s.display, r.name, problem, s.nextRun())
	}
}

// firstDifference names the first ID one list has and the other lacks.
func firstDifference(got, want []string) string {
	for _, w := range want {
		if !slices.Contains(got, w) {
			return w + " is missing"
		}
	}
	for _, x := range got {
		if !slices.Contains(want, x) {
			return x + " is no finding of them"
		}
	}
	return "another order"
}
