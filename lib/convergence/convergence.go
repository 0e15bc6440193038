// Package convergence says whether a series' review loop converges
// (docs/status.md §2, docs/review-gate.md §6): per round the new findings,
// the repeats and the fixes a later round confirmed by not restating them;
// a one-line trend; per reviewer how its findings were disposed; and the
// findings that look like repeats of earlier ones without saying so.
// spar status and spar cap-report show it; it decides nothing for the gate.
package convergence

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/round"
)

// Stage is the stage whose counted rounds the loop's figures and trend
// are about: code rounds (follow-up rounds are code rounds).
const Stage = "code"

// Round is one published round of a series, not a dry run, in series
// order.
type Round struct {
	Name     string
	Stage    string
	Head     string
	Counted  bool
	RerunOf  string // the counted round a rerun repeats ("" when none)
	FollowUp *envelope.FollowUp
	Findings []envelope.Finding
	// Last is the deciding ledger line of each finding that has one.
	Last map[string]*round.LedgerEntry
	// Rejected are the findings that count as rejected for their
	// reviewer's figures though their own line is no rejection: triaged as
	// a duplicate whose chain ends in a rejected finding, or a repeat
	// (repeat_of) without a line of its own, or triaged as a duplicate,
	// of a finding whose chain ends so. The gate's duplicate walk decides
	// (lib/gate convergenceRounds): a reviewer that returns a rejected claim
	// again is not made to look precise by its duplicates.
	Rejected map[string]bool
	// Restates are the findings without repeat_of that the ledger triaged
	// as duplicates of an earlier round's finding: id -> <round>/<id>, the
	// first finding of its duplicate chain that lies in an earlier round
	// (lib/gate restatedThrough, the gate's one duplicate walk). The loop
	// counts each as a repeat of that finding, as if it carried repeat_of:
	// the same claim returned round after round is not new each time.
	Restates map[string]string
}

// restates is the earlier finding f restates (<round>/<id>): its
// repeat_of, else the earlier finding the ledger made it a duplicate of;
// "" when none.
func (r *Round) restates(f *envelope.Finding) string {
	if f.RepeatOf != nil {
		return f.RepeatOf.Round + "/" + f.RepeatOf.Finding
	}
	return r.Restates[f.ID]
}

// RoundFigures are one counted round's figures, its reruns' findings
// included.
type RoundFigures struct {
	Round      string `json:"round"`
	Stage      string `json:"stage"`
	New        int    `json:"new"`         // findings that restate nothing
	NewDefects int    `json:"new_defects"` // of them, defects
	Repeats    int    `json:"repeats"`     // findings that restate an earlier one
	// FixesConfirmed are the earlier findings closed as fixed that this
	// follow-up round listed and did not restate, at a head that holds the
	// fix commit: a later round did not find them again. Each is confirmed
	// once, by the first such round (<round>/<id>).
	FixesConfirmed []string `json:"fixes_confirmed"`
}

// ReviewerFigures are how one reviewer's findings across the series were
// disposed: the user's own measure of its precision.
type ReviewerFigures struct {
	Reviewer     string `json:"reviewer"`
	Findings     int    `json:"findings"`
	Fixed        int    `json:"fixed"`
	Rejected     int    `json:"rejected"`
	Deferred     int    `json:"deferred"`      // by the user
	AutoDeferred int    `json:"auto_deferred"` // hardening, at record
	Duplicate    int    `json:"duplicate"`
	Accepted     int    `json:"accepted"`
	Answered     int    `json:"answered"`
	Open         int    `json:"open"` // no ledger line yet
}

// Report is a series' convergence.
type Report struct {
	Rounds    []RoundFigures    `json:"rounds"`
	Trend     string            `json:"trend"`
	Reviewers []ReviewerFigures `json:"reviewers"`
}

// Contains reports whether the commit head contains the commit c (c is
// head or one of its ancestors); the caller asks git.
type Contains func(c, head string) bool

// Of is the report of a series' rounds.
func Of(rounds []Round, contains Contains) Report {
	rep := Report{Rounds: []RoundFigures{}, Reviewers: []ReviewerFigures{}}
	byName := map[string]*Round{}
	for i := range rounds {
		byName[rounds[i].Name] = &rounds[i]
	}
	figures := map[string]*RoundFigures{}
	var order []string
	restated := map[string][]string{} // root <round>/<id> -> rounds that restated it
	confirmed := map[string]bool{}
	reviewers := map[string]*ReviewerFigures{}
	var reviewerOrder []string
	for i := range rounds {
		r := &rounds[i]
		owner := r.Name
		if !r.Counted && r.RerunOf != "" && figures[r.RerunOf] != nil {
			owner = r.RerunOf
		}
		fig := figures[owner]
		if fig == nil {
			if !r.Counted || r.Stage != Stage {
				// Reviewer figures count every round; the loop's are the
				// code rounds' (a follow-up is a code round).
				tallyReviewers(r, reviewers, &reviewerOrder)
				continue
			}
			fig = &RoundFigures{Round: r.Name, Stage: r.Stage, FixesConfirmed: []string{}}
			figures[owner] = fig
			order = append(order, owner)
		}
		mine := map[string]bool{}
		tallyReviewers(r, reviewers, &reviewerOrder)
		for i := range r.Findings {
			f := &r.Findings[i]
			of := r.restates(f)
			if of == "" {
				fig.New++
				if f.Class == envelope.ClassDefect {
					fig.NewDefects++
				}
				continue
			}
			fig.Repeats++
			mine[of] = true
			root := rootOf(of, byName)
			if !slices.Contains(restated[root], owner) {
				restated[root] = append(restated[root], owner)
			}
		}
		if r.FollowUp == nil {
			continue
		}
		for _, id := range r.FollowUp.Earlier {
			if confirmed[id] || mine[id] {
				continue
			}
			rn, fid, ok := strings.Cut(id, "/")
			er := byName[rn]
			if !ok || er == nil {
				continue
			}
			e := er.Last[fid]
			if e == nil || e.Disposition != "fixed" || strings.TrimSpace(e.Commit) == "" || contains == nil || !contains(strings.TrimSpace(e.Commit), r.Head) {
				continue
			}
			confirmed[id] = true
			fig.FixesConfirmed = append(fig.FixesConfirmed, id)
		}
	}
	for _, n := range order {
		rep.Rounds = append(rep.Rounds, *figures[n])
	}
	for _, n := range reviewerOrder {
		rep.Reviewers = append(rep.Reviewers, *reviewers[n])
	}
	rep.Trend = trend(rep.Rounds, restated)
	return rep
}

// tallyReviewers counts each finding of r for its reviewer.
func tallyReviewers(r *Round, reviewers map[string]*ReviewerFigures, order *[]string) {
	for _, f := range r.Findings {
		rv := reviewers[f.Reviewer]
		if rv == nil {
			rv = &ReviewerFigures{Reviewer: f.Reviewer}
			reviewers[f.Reviewer] = rv
			*order = append(*order, f.Reviewer)
		}
		rv.Findings++
		if r.Rejected[f.ID] {
			rv.Rejected++
			continue
		}
		tally(rv, r.Last[f.ID])
	}
}

func tally(rv *ReviewerFigures, e *round.LedgerEntry) {
	if e == nil {
		rv.Open++
		return
	}
	switch e.Disposition {
	case "fixed":
		rv.Fixed++
	case "rejected":
		rv.Rejected++
	case "deferred":
		if e.Auto {
			rv.AutoDeferred++
		} else {
			rv.Deferred++
		}
	case "duplicate":
		rv.Duplicate++
	case "accepted":
		rv.Accepted++
	case "answered":
		rv.Answered++
	}
}

// rootOf follows repeat_of links (and the duplicates Restates names) back
// to the finding first reported.
func rootOf(key string, byName map[string]*Round) string {
	seen := map[string]bool{key: true}
	for {
		rn, id, _ := strings.Cut(key, "/")
		r := byName[rn]
		if r == nil {
			return key
		}
		var next string
		for i := range r.Findings {
			if r.Findings[i].ID == id {
				next = r.restates(&r.Findings[i])
			}
		}
		if next == "" || seen[next] {
			return key
		}
		seen[next] = true
		key = next
	}
}

// trend is the one line on the loop: not converging when one finding was
// restated in two or more rounds, or when a round found more new defects
// than the one before; converging otherwise.
func trend(rounds []RoundFigures, restated map[string][]string) string {
	var roots []string
	for root, in := range restated {
		if len(in) >= 2 {
			roots = append(roots, root)
		}
	}
	sort.Strings(roots)
	if len(roots) > 0 {
		return fmt.Sprintf("not converging: the same finding was restated %d times (%s, in %s)", len(restated[roots[0]]), roots[0], strings.Join(restated[roots[0]], ", "))
	}
	if len(rounds) == 0 {
		return ""
	}
	var seq []string
	repeats := 0
	rose := -1
	for i, r := range rounds {
		seq = append(seq, fmt.Sprint(r.NewDefects))
		repeats += r.Repeats
		if i > 0 && r.NewDefects > rounds[i-1].NewDefects && rose < 0 {
			rose = i
		}
	}
	tail := ""
	if repeats > 0 {
		tail = fmt.Sprintf(" (%d %s)", repeats, plural(repeats, "repeat", "repeats"))
	}
	if len(rounds) == 1 {
		return fmt.Sprintf("one round so far: %s new %s%s", seq[0], plural(rounds[0].NewDefects, "defect", "defects"), tail)
	}
	if rose > 0 {
		return fmt.Sprintf("not converging: new defects rose from %d in %s to %d in %s (%s)", rounds[rose-1].NewDefects, rounds[rose-1].Round, rounds[rose].NewDefects, rounds[rose].Round, strings.Join(seq, " → "))
	}
	return "converging: " + strings.Join(seq, " → ") + " new defects" + tail
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Possible is a finding that restates nothing but reads like an earlier
// round's finding: the same path and angle and a near-identical claim.
type Possible struct {
	Round   string `json:"round"`
	Finding string `json:"finding"`
	Of      string `json:"of"` // <round>/<id>
	// Similarity is the claims' word overlap (0..1).
	Similarity float64 `json:"similarity"`
}

// Similar is the least word overlap of two claims that makes a possible
// repeat: the Jaccard index of their sets of lowercase words.
const Similar = 0.7

// PossibleRepeats lists, for each finding without repeat_of and not
// triaged as a duplicate, the most similar finding of an earlier round with
// the same path (not empty) and angle whose claim overlaps by Similar or
// more (the earliest on a tie).
func PossibleRepeats(rounds []Round) []Possible {
	var out []Possible
	for i := range rounds {
		r := &rounds[i]
		for _, f := range r.Findings {
			if f.RepeatOf != nil || f.Path == "" {
				continue
			}
			if e := r.Last[f.ID]; e != nil && e.Disposition == "duplicate" {
				continue
			}
			words := wordSet(f.Claim)
			best, bestOf := 0.0, ""
			for j := 0; j < i; j++ {
				er := &rounds[j]
				if er.Name == r.RerunOf || r.Name == er.RerunOf && er.RerunOf != "" {
					continue
				}
				for _, g := range er.Findings {
					if g.Path != f.Path || g.Angle != f.Angle {
						continue
					}
					if s := jaccard(words, wordSet(g.Claim)); s >= Similar && s > best {
						best, bestOf = s, er.Name+"/"+g.ID
					}
				}
			}
			if bestOf != "" {
				out = append(out, Possible{Round: r.Name, Finding: f.ID, Of: bestOf, Similarity: float64(int(best*100)) / 100})
			}
		}
	}
	return out
}

func wordSet(s string) map[string]bool {
	set := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		set[w] = true
	}
	return set
}

func jaccard(a, b map[string]bool) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	in := 0
	for w := range a {
		if b[w] {
			in++
		}
	}
	return float64(in) / float64(len(a)+len(b)-in)
}
