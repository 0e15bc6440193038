package classify

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/gitx"
	"github.com/jaekit/spar/lib/resultcheck"
)

// item is one finding as the reviewer gave it (G5): lib/resultcheck's
// reading of it.
type item = resultcheck.Finding

// The enumerations classification reads (Review round section 3), as
// lib/resultcheck defines them. spar-check has already checked them (G5); a
// value outside them here means the envelope did not come from spar-check.
var enums = []struct {
	key    string
	get    func(*item) string
	values []string
}{
	{"proposed_class", func(i *item) string { return i.ProposedClass }, resultcheck.ProposedClass},
	{"link_kind", func(i *item) string { return i.LinkKind }, resultcheck.LinkKinds},
	{"introduced_by_change", func(i *item) string { return i.IntroducedByChange }, resultcheck.YesNoUnknown},
	{"regression", func(i *item) string { return i.Regression }, resultcheck.YesNoUnknown},
	{"check_impact", func(i *item) string { return i.CheckImpact }, resultcheck.CheckImpacts},
}

// Classify returns the classified findings of every completed reviewer, in
// reviewer order and, within a reviewer, in the order reported. IDs are
// <reviewer>-F<n>, n counting from 1 per reviewer; the reviewer's own id
// stays as reviewer_id.
func Classify(run *envelope.Run, results []envelope.Result) ([]envelope.Finding, error) {
	return ClassifyWith(run, results, gitx.LoadTree)
}

// ClassifyWith is Classify with the commits' trees from load (a
// gitx.Trees shared by the many rounds the gate re-derives gives the trees
// gitx.LoadTree gives, through one git process).
func ClassifyWith(run *envelope.Run, results []envelope.Result, load func(repo, commit string) (*gitx.Tree, error)) ([]envelope.Finding, error) {
	items, err := decode(results)
	if err != nil {
		return nil, err
	}
	ix, err := newIndex(run, load)
	if err != nil {
		return nil, err
	}
	return ix.classify(items)
}

// Checked is one reviewer's findings as lib/resultcheck read them from its
// result (resultcheck.CheckFindings): a completed reviewer's, in the order
// reported.
type Checked struct {
	Reviewer string
	Findings []resultcheck.Finding
}

// ClassifyChecked is ClassifyWith for findings the result check already
// read: the gate re-derives every round's findings this way, without
// decoding each result a second time. reviewers are the completed
// reviewers, in reviewer order; a name twice is refused as Classify
// refuses it.
func ClassifyChecked(run *envelope.Run, reviewers []Checked, load func(repo, commit string) (*gitx.Tree, error)) ([]envelope.Finding, error) {
	n := 0
	for _, rv := range reviewers {
		n += len(rv.Findings)
	}
	items := make([]entry, 0, n)
	seen := map[string]bool{}
	for ri, rv := range reviewers {
		if seen[rv.Reviewer] {
			return nil, &InputError{fmt.Sprintf("/results/%d/reviewer", ri), fmt.Sprintf("%q appears twice", rv.Reviewer)}
		}
		seen[rv.Reviewer] = true
		for fi, f := range rv.Findings {
			items = append(items, entry{Reviewer: rv.Reviewer, N: fi + 1, item: f})
		}
	}
	ix, err := newIndex(run, load)
	if err != nil {
		return nil, err
	}
	return ix.classify(items)
}

// entry is one reviewer finding ready to classify.
type entry struct {
	Reviewer string
	N        int // 1-based within the reviewer
	item
}

func decode(results []envelope.Result) ([]entry, error) {
	var out []entry
	seen := map[string]bool{}
	for ri, res := range results {
		// Finding IDs are <reviewer>-F<n>: a name twice would give two
		// findings one ID.
		if seen[res.Reviewer] {
			return nil, &InputError{fmt.Sprintf("/results/%d/reviewer", ri), fmt.Sprintf("%q appears twice", res.Reviewer)}
		}
		seen[res.Reviewer] = true
		if res.Status != envelope.StatusCompleted {
			continue
		}
		where := fmt.Sprintf("/results/%d/result", ri)
		if len(res.Result) == 0 || string(res.Result) == "null" {
			return nil, &InputError{where, "a completed reviewer has no result object"}
		}
		var obj struct {
			Findings []json.RawMessage `json:"findings"`
		}
		if err := json.Unmarshal(res.Result, &obj); err != nil {
			return nil, &InputError{where, err.Error()}
		}
		if obj.Findings == nil {
			return nil, &InputError{where + "/findings", "missing (G1)"}
		}
		for fi, raw := range obj.Findings {
			w := fmt.Sprintf("%s/findings/%d", where, fi)
			var it item
			dec := json.NewDecoder(bytes.NewReader(raw))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&it); err != nil {
				return nil, &InputError{w, "not a G5 finding: " + err.Error()}
			}
			for _, e := range enums {
				if v := e.get(&it); !slices.Contains(e.values, v) {
					return nil, &InputError{w + "/" + e.key, fmt.Sprintf("%q is outside the enumeration (G5)", v)}
				}
			}
			out = append(out, entry{Reviewer: res.Reviewer, N: fi + 1, item: it})
		}
	}
	return out, nil
}

// classify classifies items against the index. Head files named by
// contract links are read with one git cat-file for all of them.
func (ix *Index) classify(items []entry) ([]envelope.Finding, error) {
	locs := make([]Location, len(items))
	targets := make([]linkTarget, len(items))
	var ids []string
	for i := range items {
		it := &items[i]
		locs[i] = ix.Locate(it.Location)
		if it.LinkKind == "rule" || it.LinkKind == "contract" {
			targets[i] = ix.findLinkTarget(it.LinkKind, it.Link)
			if t := targets[i]; t.why == "" && t.doc == nil && t.ref.HasLine && t.ref.LineErr == "" {
				ids = append(ids, t.blob.ID)
			}
		}
	}
	blobs, err := gitx.ReadBlobs(ix.repo, ids)
	if err != nil {
		return nil, err
	}
	heads := make(map[string]headFile, len(blobs))
	for id, b := range blobs {
		heads[id] = headFile{count: gitx.CountLines(b), lines: gitx.Lines(b)}
	}
	out := make([]envelope.Finding, 0, len(items))
	for i := range items {
		it := &items[i]
		var l Link
		switch it.LinkKind {
		case "rule", "contract":
			l = targets[i].confirm(it.LinkKind, heads)
		case "criterion":
			l = ix.confirmCriterion(it.Link)
		default:
			l = Link{Why: "link_kind none"}
		}
		loc := locs[i]
		facts := Facts{
			ProposedClass:      it.ProposedClass,
			CheckImpact:        it.CheckImpact,
			IntroducedByChange: it.IntroducedByChange,
			Regression:         it.Regression,
			InCheckPaths:       loc.InCheck,
			CheckGlob:          loc.CheckGlob,
			Unreadable:         loc.Unreadable,
			UnreadableReason:   loc.Reason,
			LinkConfirmed:      l.Confirmed,
			LinkWhy:            l.Why,
		}
		class, reason := Decide(facts)
		// The class by the committed check paths alone (docs/trust.md
		// "Inputs the agent can edit"): the rules are the same; only a
		// location whose glob the head commit's configuration does not
		// list is decided again as outside the check paths.
		committedClass := class
		if loc.InCheck && !loc.Committed {
			facts.InCheckPaths, facts.CheckGlob = false, ""
			committedClass, _ = Decide(facts)
		}
		f := envelope.Finding{
			ID:                 fmt.Sprintf("%s-F%d", it.Reviewer, it.N),
			Reviewer:           it.Reviewer,
			ReviewerID:         it.ID,
			ProposedClass:      it.ProposedClass,
			Angle:              it.Angle,
			Location:           it.Location,
			Claim:              it.Claim,
			FailureScenario:    it.FailureScenario,
			Evidence:           it.Evidence,
			IntroducedByChange: it.IntroducedByChange,
			Regression:         it.Regression,
			CheckImpact:        it.CheckImpact,
			Confidence:         it.Confidence,
			Path:               loc.Path,
			LineStart:          loc.LineStart,
			LineEnd:            loc.LineEnd,
			InCheckPaths:       loc.InCheck,
			LocationUnreadable: loc.Unreadable,
			LinkKind:           "none",
			Link:               "",
			ClaimedLinkKind:    it.LinkKind,
			ClaimedLink:        it.Link,
			LinkFragment:       l.Fragment,
			Class:              class,
			ClassReason:        reason,
			CheckPath:          loc.CheckGlob,
			CheckPathCommitted: loc.Committed,
			CommittedClass:     committedClass,
		}
		if it.SmallestFix != nil {
			f.SmallestFix = *it.SmallestFix
		}
		if l.Confirmed {
			f.LinkKind, f.Link = it.LinkKind, it.Link
		}
		// A repeat (docs/review-round.md §6.6): the reviewer gave the
		// qualified id of an earlier finding its packet listed.
		if id := strings.TrimSpace(it.ID); ix.earlier[id] {
			if i := strings.LastIndexByte(id, '/'); i > 0 {
				f.RepeatOf = &envelope.RepeatOf{Round: id[:i], Finding: id[i+1:]}
			}
		}
		out = append(out, f)
	}
	return out, nil
}
