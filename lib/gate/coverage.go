package gate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/round"
)

// coverage: docs/review-gate.md §3, the reviews cover the series' whole
// change. A round reviews the range from its base to its head; the change
// the series gates runs from the base of its first counted round (of the
// latest round's stage) to the gate's head. Each required reviewer (any
// reviewer when none is required) must have completed reviews whose ranges
// chain from that base to the gate's head by what their reviewers saw
// (chain): a round extends what is covered from a covered commit C to its
// head when its range starts at C, or at a commit whose content equals
// C's on every path C..head changes. A round on a moved base (--base
// v1.10.2 where the series began at v1.10.1) leaves the commits between
// the two bases unreviewed, and the gate names them.
func (g *gate) coverage(s *seriesData) {
	// A latest round on another head than the gate's, or a required
	// reviewer without a completed review of the latest input, blocks for
	// that already (headMismatch, requiredReviewers, noReview): coverage
	// speaks only where those are met.
	if s.latest == nil || s.head == "" || s.latest.rec == nil || s.latest.rec.Head != s.head {
		return
	}
	if g.opts.ExpectBaseGiven {
		// The caller says where the change starts: coverage runs from
		// the merge base of --expect-base and the head (14b), not from
		// the series' first base, which a rebase onto a moved main
		// leaves behind (a new --full round of the rebased change
		// covers it).
		return
	}
	stage := s.latest.rec.Stage
	var rounds []*roundData
	var first *roundData
	for _, r := range s.rounds {
		if r.state != published || r.rec == nil || r.rec.DryRun || r.pending || r.rec.Stage != stage || !s.counts(r) {
			continue
		}
		rounds = append(rounds, r)
		if first == nil && r.rec.Cap.Counted {
			first = r
		}
	}
	if first == nil {
		return
	}
	from := first.rec.Base
	reqs := g.required(s)
	anyone := len(reqs) == 0
	if anyone {
		reqs = []envelope.RequiredReviewer{{}}
	}
	for _, req := range reqs {
		if !slices.ContainsFunc(s.input, func(r *roundData) bool { return reviewed(r, req, anyone) }) {
			continue
		}
		var mine []*roundData
		for _, r := range rounds {
			if reviewed(r, req, anyone) {
				mine = append(mine, r)
			}
		}
		reach, why := g.chain(s, from, mine, nil)
		if reach[s.head] {
			continue
		}
		who := fmt.Sprintf("required reviewer %s (%s)", req.Name, req.Preset)
		if anyone {
			who = "any reviewer"
		}
		var ranges []string
		for _, r := range mine {
			rg := fmt.Sprintf("%s %s..%s", r.name, short(reviewedFrom(r.rec)), short(r.rec.Head))
			if w := why[r]; w != "" {
				rg += " (not credited: " + w + ")"
			}
			ranges = append(ranges, rg)
		}
		have := "no completed review of " + who
		if len(ranges) > 0 {
			have = "the completed reviews of " + who + " cover " + strings.Join(ranges, ", ")
		}
		g.reason("14", "%s: the reviews do not cover the series' whole change %s..%s (from the base of its first counted round %s to the gate's head): %s, which do not chain from %s to %s; to clear: review the whole change in a new round: %s",
			s.display, short(from), short(s.head), first.name, have, short(from), short(s.head), s.runCommand(from, s.head, req.Name))
	}
}

// reviewed reports whether req completed a review that counts in r (or
// the user waived it there); anyone: any reviewer did.
func reviewed(r *roundData, req envelope.RequiredReviewer, anyone bool) bool {
	for _, rv := range r.rec.Reviewers {
		if !anyone && (rv.Name != req.Name || rv.Preset != req.Preset) {
			continue
		}
		if rv.Status == envelope.StatusCompleted {
			if ok, _ := countsAsReview(rv); ok {
				return true
			}
		}
	}
	for _, w := range r.waivers {
		if anyone || w.Reviewer == req.Name && w.Preset == req.Preset {
			return true
		}
	}
	return false
}

// reviewedFrom is where the range a round is credited with starts: its
// base, or for a follow-up round the last reviewed head its packet put
// first (follow_up.since): it covers that delta on top of what the earlier
// rounds covered (docs/review-gate.md §3, coverage).
func reviewedFrom(rec *round.Record) string {
	// Nothing changed since the last reviewed head: the packet put no
	// delta first, and the round reviewed its whole range.
	if rec.FollowUp != nil && rec.FollowUp.Since != "" && rec.FollowUp.Since != rec.Head {
		return rec.FollowUp.Since
	}
	return rec.Base
}

// chain is the set of commits the rounds' ranges reach from the commit
// from, by what their reviewers saw (docs/review-gate.md §3, "Coverage"):
// a round reaches its head from a reached commit C when the range it
// reviewed starts at C, or when the content at its start equals C's on
// every path that C..head changes (credits: sameContent). Ancestry alone
// proves nothing: a fix made and reverted between an old base and the head
// is in neither end, so a round of old..head never showed it.
//
// With shows not nil, a round is credited only when shows gives "" for it
// (asked once, of the rounds the chain would credit). notCredited says,
// for a round the chain never credited, why not from the commits it
// reached ("" when no reached commit was asked about).
func (g *gate) chain(s *seriesData, from string, rounds []*roundData, shows func(*roundData) string) (reach map[string]bool, notCredited map[*roundData]string) {
	return g.chainFrom(s, []string{from}, rounds, shows)
}

// chainFrom is chain from each of the commits from.
func (g *gate) chainFrom(s *seriesData, from []string, rounds []*roundData, shows func(*roundData) string) (reach map[string]bool, notCredited map[*roundData]string) {
	reach = map[string]bool{}
	for _, f := range from {
		reach[f] = true
	}
	notCredited = map[*roundData]string{}
	for changed := true; changed; {
		changed = false
		for _, r := range rounds {
			if reach[r.rec.Head] {
				continue
			}
			start := reviewedFrom(r.rec)
			ok := reach[start]
			for c := range reach {
				if ok {
					break
				}
				why := g.credits(s.repo, start, c, r.rec.Head)
				if ok = why == ""; !ok && notCredited[r] == "" {
					notCredited[r] = why
				}
			}
			if ok && shows != nil {
				if p := shows(r); p != "" {
					ok = false
					notCredited[r] = p
				}
			}
			if ok {
				reach[r.rec.Head] = true
				delete(notCredited, r)
				changed = true
			}
		}
	}
	return reach, notCredited
}
