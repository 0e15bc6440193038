package main

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// TestParseArgs: the command-line form shared by triage, waive and extend
// (docs/review-round.md §8.1).
func TestParseArgs(t *testing.T) {
	flags := []string{"as", "evidence"}
	ok := []struct {
		args []string
		pos  []string
		vals map[string]string
	}{
		{[]string{"r", "f", "--as", "rejected", "--evidence", "e"}, []string{"r", "f"}, map[string]string{"as": "rejected", "evidence": "e"}},
		{[]string{"--as=rejected", "r", "--evidence=a=b", "f"}, []string{"r", "f"}, map[string]string{"as": "rejected", "evidence": "a=b"}},
		{[]string{"r", "f", "--evidence", "-v was never passed", "--as", "x"}, []string{"r", "f"}, map[string]string{"as": "x", "evidence": "-v was never passed"}},
		{[]string{"--as", "x", "--", "--r", "-f"}, []string{"--r", "-f"}, map[string]string{"as": "x"}},
		{[]string{"-", "--as="}, []string{"-"}, map[string]string{"as": ""}},
	}
	for _, c := range ok {
		p, err := parseArgs("triage", c.args, flags)
		if err != nil || !reflect.DeepEqual(p.pos, c.pos) || !reflect.DeepEqual(p.vals, c.vals) {
			t.Errorf("%q: %+v %v", c.args, p, err)
		}
	}
	bad := map[string][]string{
		`unknown flag "--of"`:      {"r", "--of", "x"},
		`unknown flag "-as"`:       {"r", "-as", "x"},
		"--as given twice":         {"--as", "a", "--as=b"},
		"--evidence needs a value": {"r", "--evidence"},
	}
	for msg, args := range bad {
		if _, err := parseArgs("triage", args, flags); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%q: %v, want %q", args, err, msg)
		}
	}
	if p, _ := parseArgs("triage", []string{"--help"}, flags); !p.help {
		t.Error("--help")
	}
}

// TestRunExitCodes: usage errors print the usage on stderr and exit 64;
// --help prints it on stdout and exits 0.
func TestRunExitCodes(t *testing.T) {
	for _, c := range []struct {
		run  func([]string, *bytes.Buffer, *bytes.Buffer) int
		args []string
		want int
	}{
		{func(a []string, o, e *bytes.Buffer) int { return runTriage(a, nil, o, e) }, []string{"--help"}, 0},
		{func(a []string, o, e *bytes.Buffer) int { return runTriage(a, nil, o, e) }, []string{"r"}, 64},
		{func(a []string, o, e *bytes.Buffer) int { return runWaive(a, nil, o, e) }, []string{"--help"}, 0},
		{func(a []string, o, e *bytes.Buffer) int { return runWaive(a, nil, o, e) }, []string{"r"}, 64},
		{func(a []string, o, e *bytes.Buffer) int { return runExtend(a, nil, o, e) }, []string{"--help"}, 0},
		{func(a []string, o, e *bytes.Buffer) int { return runExtend(a, nil, o, e) }, []string{"s", "--stage", "plan"}, 64},
		{func(a []string, o, e *bytes.Buffer) int { return runExtend(a, nil, o, e) }, []string{"", "--stage", "plan", "--by", "1"}, 64},
	} {
		var o, e bytes.Buffer
		if got := c.run(c.args, &o, &e); got != c.want {
			t.Errorf("%q: exit %d, want %d (%s)", c.args, got, c.want, e.String())
		}
		if c.want == 0 && !strings.HasPrefix(o.String(), "usage: spar ") {
			t.Errorf("%q: stdout %q", c.args, o.String())
		}
		if c.want == 64 && !strings.Contains(e.String(), "usage: spar ") {
			t.Errorf("%q: stderr %q", c.args, e.String())
		}
	}
}
