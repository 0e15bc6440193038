// Package corroboration finds the findings that several reviewers report at
// the same place (docs/review-round.md §9 "Corroborated"): the same class,
// the same path and overlapping lines. summary.md shows them together and
// spar status suggests the duplicate triage for all but the first; every
// finding stays a finding of its own (nothing is merged or dropped).
package corroboration

import "sort"

// Place is where one finding is, as findings.json records it.
type Place struct {
	Reviewer string
	Class    string
	Path     string
	// Start and End are line_start and line_end; nil when the finding
	// names no lines (a whole file), End nil meaning Start alone.
	Start, End *int
}

// span is the line range of p; ok false when it names no lines.
func (p Place) span() (lo, hi int, ok bool) {
	if p.Start == nil {
		return 0, 0, false
	}
	lo, hi = *p.Start, *p.Start
	if p.End != nil && *p.End >= lo {
		hi = *p.End
	}
	return lo, hi, true
}

// Groups returns the groups of places that are the same place (linked by
// overlap: a chain of overlapping ranges is one group) and come from at
// least two reviewers. Each group lists indexes into places in their
// order; groups are ordered by their first index. Places of one reviewer
// alone are never a group: a reviewer repeating itself corroborates
// nothing.
func Groups(places []Place) [][]int {
	parent := make([]int, len(places))
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	// Only places of one path and class can be the same: compare within
	// those buckets.
	type key struct{ path, class string }
	buckets := map[key][]int{}
	for i, p := range places {
		if p.Path != "" {
			k := key{p.Path, p.Class}
			buckets[k] = append(buckets[k], i)
		}
	}
	union := func(a, b int) {
		a, b = find(a), find(b)
		if a == b {
			return
		}
		if a < b {
			parent[b] = a
		} else {
			parent[a] = b
		}
	}
	for _, idx := range buckets {
		// Whole-file places are one place; ranges are joined by a sweep in
		// order of their first line (overlap chains are one group), so a
		// series of thousands of findings costs n log n, not n².
		var whole, ranged []int
		for _, i := range idx {
			if _, _, ok := places[i].span(); ok {
				ranged = append(ranged, i)
			} else {
				whole = append(whole, i)
			}
		}
		for _, i := range whole[min(1, len(whole)):] {
			union(whole[0], i)
		}
		sort.SliceStable(ranged, func(x, y int) bool {
			a, _, _ := places[ranged[x]].span()
			b, _, _ := places[ranged[y]].span()
			return a < b
		})
		reach, head := 0, -1
		for _, i := range ranged {
			lo, hi, _ := places[i].span()
			if head >= 0 && lo <= reach {
				union(head, i)
				reach = max(reach, hi)
				continue
			}
			head, reach = i, hi
		}
	}
	members := map[int][]int{}
	var roots []int
	for i := range places {
		r := find(i)
		if _, ok := members[r]; !ok {
			roots = append(roots, r)
		}
		members[r] = append(members[r], i)
	}
	var out [][]int
	for _, r := range roots {
		m := members[r]
		reviewers := map[string]bool{}
		for _, i := range m {
			reviewers[places[i].Reviewer] = true
		}
		if len(reviewers) >= 2 {
			out = append(out, m)
		}
	}
	return out
}
