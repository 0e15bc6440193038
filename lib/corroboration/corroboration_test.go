package corroboration

import (
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
