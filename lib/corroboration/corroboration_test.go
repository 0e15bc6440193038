package corroboration

import (
	"math/rand"
	"reflect"
	"testing"
)

func ln(n int) *int { return &n }

func TestGroups(t *testing.T) {
	places := []Place{
		{Reviewer: "rules", Class: "defect", Path: "app/auth.go", Start: ln(10), End: ln(12)},  // 0
		{Reviewer: "checks", Class: "defect", Path: "app/auth.go", Start: ln(12)},              // 1: overlaps 0 at line 12
		{Reviewer: "vet", Class: "defect", Path: "app/auth.go", Start: ln(13), End: ln(20)},    // 2: no overlap with 0 or 1
		{Reviewer: "vet", Class: "note", Path: "app/auth.go", Start: ln(10)},                   // 3: another class
		{Reviewer: "rules", Class: "hardening", Path: "README.md"},                             // 4: whole file
		{Reviewer: "checks", Class: "hardening", Path: "README.md"},                            // 5: whole file, same
		{Reviewer: "checks", Class: "hardening", Path: "README.md", Start: ln(1)},              // 6: lines vs whole file
		{Reviewer: "rules", Class: "defect", Path: "b.go", Start: ln(1), End: ln(5)},           // 7
		{Reviewer: "rules", Class: "defect", Path: "b.go", Start: ln(3)},                       // 8: same reviewer only
		{Reviewer: "rules", Class: "defect", Path: "", Start: ln(3)},                           // 9: no path
		{Reviewer: "checks", Class: "defect", Path: "", Start: ln(3)},                          // 10: no path
		{Reviewer: "vet", Class: "defect", Path: "app/auth.go", Start: ln(20), End: ln(19)},    // 11: end before start is line 20: overlaps 2
		{Reviewer: "checks", Class: "defect", Path: "app/auth.go", Start: ln(18), End: ln(25)}, // 12: overlaps 2 and 11
	}
	got := Groups(places)
	want := [][]int{{0, 1}, {2, 11, 12}, {4, 5}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if g := Groups(nil); g != nil {
		t.Fatalf("no places: %v", g)
	}
}

// same is the rule pairwise, the reference for Groups' sweep: two places
// are one: same class and path, and both name lines
// that overlap, or both name none (the same file).
func same(a, b Place) bool {
	if a.Path == "" || a.Path != b.Path || a.Class != b.Class {
		return false
	}
	alo, ahi, aok := a.span()
	blo, bhi, bok := b.span()
	if aok != bok {
		return false
	}
	return !aok || (alo <= bhi && blo <= ahi)
}

// bruteGroups links every pair that same accepts (n²) and keeps the groups
// of two reviewers or more.
func bruteGroups(places []Place) [][]int {
	comp := make([]int, len(places))
	for i := range comp {
		comp[i] = i
	}
	for changed := true; changed; {
		changed = false
		for i := range places {
			for j := range places {
				if i != j && same(places[i], places[j]) && comp[j] > comp[i] {
					comp[j], changed = comp[i], true
				}
			}
		}
	}
	byRoot := map[int][]int{}
	var roots []int
	for i, c := range comp {
		if _, ok := byRoot[c]; !ok {
			roots = append(roots, c)
		}
		byRoot[c] = append(byRoot[c], i)
	}
	var out [][]int
	for _, r := range roots {
		rv := map[string]bool{}
		for _, i := range byRoot[r] {
			rv[places[i].Reviewer] = true
		}
		if len(rv) >= 2 {
			out = append(out, byRoot[r])
		}
	}
	return out
}

// The sweep gives the groups the pairwise rule gives.
func TestGroupsMatchPairwise(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for n := 0; n < 300; n++ {
		var places []Place
		for k := rng.Intn(12); k > 0; k-- {
			p := Place{Reviewer: []string{"a", "b", "c"}[rng.Intn(3)], Class: []string{"defect", "note"}[rng.Intn(2)], Path: []string{"x.go", "y.go", ""}[rng.Intn(3)]}
			if rng.Intn(4) > 0 {
				p.Start = ln(1 + rng.Intn(20))
				if rng.Intn(2) == 0 {
					p.End = ln(*p.Start + rng.Intn(5) - 1)
				}
			}
			places = append(places, p)
		}
		if got, want := Groups(places), bruteGroups(places); !reflect.DeepEqual(got, want) {
			t.Fatalf("%+v:\n got %v\nwant %v", places, got, want)
		}
	}
}
