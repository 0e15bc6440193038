package gate

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/jaekit/spar/lib/convergence"
	"github.com/jaekit/spar/lib/disposition"
)

// convergenceRounds are the series' published rounds, dry runs aside, as
// lib/convergence reads them: with their findings whole (kept by the gate,
// else read from findings.json) and their deciding ledger lines. A round
// whose findings no longer read is left out (the gate's reasons say why).
func convergenceRounds(rounds []*roundData) []convergence.Round {
	var out []convergence.Round
	// The series as the duplicate walk reads it (resolveOf: this round or
	// an earlier one).
	s := &seriesData{rounds: rounds, byName: map[string]*roundData{}, index: map[*roundData]int{}}
	for i, r := range rounds {
		s.byName[r.name] = r
		s.index[r] = i
	}
	for _, r := range rounds {
		if r.state != published || r.rec == nil || r.rec.DryRun {
			continue
		}
		finds, ok := r.wholeFindings()
		if !ok {
			continue
		}
		cr := convergence.Round{Name: r.name, Stage: r.rec.Stage, Head: r.rec.Head, Counted: r.rec.Cap.Counted,
			FollowUp: r.rec.FollowUp, Findings: finds, Last: r.last, Rejected: s.rejectedThrough(r), Restates: s.restatedThrough(r)}
		if r.rec.Cap.RerunOf != nil {
			cr.RerunOf = filepath.Base(*r.rec.Cap.RerunOf)
		}
		out = append(out, cr)
	}
	return out
}

// rejectedThrough are the findings of r that count as rejected for their
// reviewer's figures (convergence.Round.Rejected, docs/review-gate.md §6)
// though their own line is no rejection: a duplicate whose chain (dupWalk,
// the gate's one walk) ends in a rejected finding; a repeat with no line of
// its own, or triaged as a duplicate, of a finding whose chain ends so. A
// chain that breaks (unresolved, a cycle) counts as it did.
func (s *seriesData) rejectedThrough(r *roundData) map[string]bool {
	out := map[string]bool{}
	endsRejected := func(t target) bool {
		w := s.dupWalk(t)
		if w.unresolved != "" || w.cycle != nil {
			return false
		}
		end := w.path[len(w.path)-1]
		e := end.r.last[end.f.ID]
		return e != nil && e.Disposition == disposition.Rejected
	}
	for i := range r.finds {
		f := &r.finds[i]
		e := r.last[f.ID]
		switch {
		case e != nil && e.Disposition == disposition.Duplicate && endsRejected(target{r, f}):
			out[f.ID] = true
		case e == nil || e.Disposition == disposition.Duplicate:
			if t, ok := s.repeatTarget(r, f); ok && endsRejected(t) {
				out[f.ID] = true
			}
		}
	}
	return out
}

// restatedThrough are the findings of r without repeat_of that the ledger
// triaged as duplicates of an earlier round's finding
// (convergence.Round.Restates, docs/review-gate.md §6): each to the first
// finding of its duplicate chain (dupWalk, the gate's one walk) that lies
// in an earlier round. A duplicate of a finding of its own round whose
// chain stays in the round restates nothing earlier.
func (s *seriesData) restatedThrough(r *roundData) map[string]string {
	out := map[string]string{}
	for i := range r.finds {
		f := &r.finds[i]
		if f.RepeatOf != nil {
			continue
		}
		for _, t := range s.dupWalk(target{r, f}).path[1:] {
			if s.index[t.r] < s.index[r] {
				out[f.ID] = t.r.name + "/" + t.f.ID
				break
			}
		}
	}
	return out
}

// convergenceOf is the series' convergence (docs/status.md §2): git says
// whether a round's head holds a fix commit.
func convergenceOf(rounds []convergence.Round, repo string) convergence.Report {
	return convergence.Of(rounds, func(c, head string) bool {
		return repo != "" && Contains(repo, head, []string{c})[c] == nil
	})
}

// LoopText is the loop in words (spar status, cap-report): the trend, one
// line per round, one per reviewer; each line starts with indent.
func LoopText(c *convergence.Report, indent string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%sloop: %s\n", indent, c.Trend)
	for _, r := range c.Rounds {
		line := fmt.Sprintf("%s  %s: %d new (%d %s), %d %s", indent, r.Round, r.New, r.NewDefects, pluralWord(r.NewDefects, "defect", "defects"), r.Repeats, pluralWord(r.Repeats, "repeat", "repeats"))
		if len(r.FixesConfirmed) > 0 {
			line += ", fixes confirmed: " + strings.Join(r.FixesConfirmed, ", ")
		}
		b.WriteString(line + "\n")
	}
	for _, rv := range c.Reviewers {
		fmt.Fprintf(&b, "%sreviewer %s: %s\n", indent, rv.Reviewer, ReviewerText(rv))
	}
	return b.String()
}

// ReviewerText is how a reviewer's findings were disposed, in words.
func ReviewerText(rv convergence.ReviewerFigures) string {
	parts := []string{}
	for _, p := range []struct {
		n    int
		word string
	}{{rv.Fixed, "fixed"}, {rv.Rejected, "rejected"}, {rv.Deferred, "deferred"}, {rv.AutoDeferred, "deferred automatically"},
		{rv.Duplicate, "duplicate"}, {rv.Accepted, "accepted"}, {rv.Answered, "answered"}, {rv.Open, "open"}} {
		if p.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", p.n, p.word))
		}
	}
	return fmt.Sprintf("%d %s (%s)", rv.Findings, pluralWord(rv.Findings, "finding", "findings"), strings.Join(parts, ", "))
}

func pluralWord(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
