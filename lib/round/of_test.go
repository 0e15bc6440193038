package round

import (
	"errors"
	"testing"
)

// G30: the --of rule spar triage writes by and spar gate follows.
func TestG30_ResolveOf(t *testing.T) {
	// code-3 is this round; code-1 and code-2 are earlier; F1 is in
	// code-1 and code-2, F2 in code-3 and code-1, F3 only in code-1.
	holds := map[string][]string{"code-1": {"F1", "F2", "F3"}, "code-2": {"F1"}, "code-3": {"F2"}}
	listed := 0
	earlier := func() ([]string, error) { listed++; return []string{"code-1", "code-2"}, nil }
	has := func(name, id string) (bool, error) {
		for _, x := range holds[name] {
			if x == id {
				return true, nil
			}
		}
		return false, nil
	}
	for _, c := range []struct {
		of, want string
		lists    bool
	}{
		{"F2", "code-3", false},        // this round first, earlier rounds not listed
		{"F1", "code-2", true},         // then the newest earlier round
		{"F3", "code-1", true},         //
		{"code-1/F2", "code-1", true},  // ROUND/ID: that round
		{"code-3/F2", "code-3", false}, // this round by name
		{"code-3/F1", "", false},       // ROUND/ID is only that round
		{"code-2/F3", "", true},        //
		{"code-4/F1", "", true},        // a later or unknown round
		{"F9", "", true},
	} {
		listed = 0
		got, err := ResolveOf(c.of, "code-3", earlier, has)
		if err != nil || got != c.want || (listed > 0) != c.lists {
			t.Errorf("%s: %q %v (listed %d), want %q (lists %v)", c.of, got, err, listed, c.want, c.lists)
		}
	}
	stop := errors.New("unreadable")
	if _, err := ResolveOf("F1", "code-3", earlier, func(name, id string) (bool, error) {
		if name == "code-2" {
			return false, stop
		}
		return has(name, id)
	}); !errors.Is(err, stop) {
		t.Errorf("an error of has: %v", err)
	}
}
