package gate

import (
	"path/filepath"
	"slices"

	"github.com/jaekit/spar/lib/disposition"
	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/round"
)

// dangling: docs/review-gate.md §3 reasons 5d and 5l. A series only grows
// (docs/trust.md "A series only grows"): a record that names a round of
// its series (a rerun's cap.rerun_of, a follow-up's follow_up.since_round,
// a repeat's repeat_of, a duplicate's of_round) names one the series held
// when it was written. A name the series lacks is a round someone removed,
// and with it whatever it held: a counted round whose defect its clean
// rerun now stands in for, the round a repeat refutes. Each such name
// blocks, whatever else the gate says of the round (the findings of a
// removed round are nowhere to be judged).
//
// And a rerun adds reviewers to the counted round it repeats, never stands
// for a round alone: a series whose latest input is an uncounted rerun
// with no counted round blocks (5l), even when the rerun's rerun_of was
// edited away.
func (g *gate) dangling(s *seriesData) {
	for _, r := range s.rounds {
		if r.state != published || r.rec == nil {
			continue
		}
		lacks := func(what, name string) {
			if name == "" || s.byName[name] != nil {
				return
			}
			g.reason("5d", "%s: round %s: %s names the round %s, which the series lacks: a round folder was removed, and with it what it recorded; to clear: restore the round %s (spar fetch writes every round the series published), or review the change in a new series",
				s.display, r.name, what, quote(name), quote(name))
		}
		if ro := r.rec.Cap.RerunOf; ro != nil {
			lacks("its cap.rerun_of", filepath.Base(*ro))
		}
		if fu := r.rec.FollowUp; fu != nil {
			lacks("its follow_up.since_round", fu.SinceRound)
		}
		for _, f := range r.finds {
			if f.RepeatOf != nil {
				lacks("its finding "+f.ID+"'s repeat_of", f.RepeatOf.Round)
			}
		}
		for _, e := range r.ledger {
			if e.Disposition == disposition.Duplicate {
				lacks("its ledger's duplicate of "+e.Finding, e.OfRound)
			}
		}
	}
	l := s.latest
	if l == nil || l.rec == nil || l.rec.Cap.Counted || l.rec.DryRun {
		return
	}
	why := ""
	if ro := l.rec.Cap.RerunOf; ro != nil {
		why = "a rerun of " + quote(filepath.Base(*ro))
	} else if slices.ContainsFunc(l.rec.Reviewers, func(rv round.Reviewer) bool { return rv.Status == envelope.StatusCompleted }) {
		// Only a round in which no reviewer could start is left
		// uncounted without being a rerun (lib/series.Settle).
		why = "yet a reviewer of it completed"
	}
	if why != "" {
		g.reason("5l", "%s: round %s is not counted (%s), and the series holds no counted round it adds its reviewers to: an uncounted round never stands for a round alone; to clear: restore the counted round it repeats, or review the change in a new round: %s",
			s.display, l.name, why, s.nextRun())
	}
}
