package criteria

import (
	"reflect"
	"testing"
)

func TestG9_IDs(t *testing.T) {
	cases := map[string][]string{
		"AC-1":                 {"AC-1"},
		"AC-1,AC-2":            {"AC-1", "AC-2"},
		"see AC-01 and AC-1.":  {"AC-01", "AC-1"},
		"xAC-1":                nil, // letter before
		"1AC-1":                nil, // digit before
		"AC-1a":                nil, // letter after
		"AC-":                  nil,
		"AC-x":                 nil,
		"ac-1":                 nil, // literal: case matters
		"(AC-7) AC-7":          {"AC-7"},
		"é AC-3 é":             {"AC-3"},
		"AC-12-AC-13":          {"AC-12", "AC-13"},
		"criteria: AC-4;AC-5_": {"AC-4", "AC-5"},
	}
	for in, want := range cases {
		if got := IDs(in); !reflect.DeepEqual(got, want) {
			t.Errorf("IDs(%q) = %q, want %q", in, got, want)
		}
	}
}
