package gate

import (
	"fmt"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/round"
)

// incompleteNotes: docs/review-gate.md "Reviewers that did not complete".
// Every reviewer of the series' latest input that is not required and
// completed no review of it (in the latest round or a rerun of it) and
// kept none is named with its status and reason: a crashed command
// reviewer (not required by default) must never look like a clean review.
// A required one is reason 12, which names it and its status.
func (g *gate) incompleteNotes(s *seriesData) []string {
	if s.latest == nil {
		return nil
	}
	required := map[string]bool{}
	for _, r := range g.required(s) {
		required[r.Name] = true
	}
	type last struct {
		round  string
		rv     round.Reviewer
		done   bool
		exists bool
	}
	var order []string
	seen := map[string]*last{}
	for _, r := range s.input {
		for _, rv := range r.rec.Reviewers {
			l := seen[rv.Name]
			if l == nil {
				l = &last{}
				seen[rv.Name] = l
				order = append(order, rv.Name)
			}
			if rv.Status == envelope.StatusCompleted || rv.Status == envelope.StatusNotRun && rv.CompletedIn != nil {
				l.done = true
			}
			// The status it has where it last ran: a rerun's not_run
			// keeps the earlier round's.
			if rv.Status != envelope.StatusNotRun || !l.exists {
				l.round, l.rv, l.exists = r.name, rv, true
			}
		}
	}
	var out []string
	for _, name := range order {
		l := seen[name]
		// A required one is reason 12's, which names it and its status.
		if l.done || required[name] {
			continue
		}
		why := l.rv.Reason
		if why == "" {
			why = "no reason recorded"
		}
		tail := "not required, so the gate does not wait for it; to make it required: required = true in its [[reviewers]] entry; to run it again: repeat the round's spar run (a rerun of the same input runs only the reviewers that did not complete)"
		out = append(out, fmt.Sprintf("%s: round %s: reviewer %s (%s) did not complete the series' latest input (%s: %s); %s",
			s.display, l.round, name, l.rv.Preset, l.rv.Status, oneLine(why), tail))
	}
	return out
}
