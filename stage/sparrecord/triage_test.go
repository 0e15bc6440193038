package sparrecord

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

// TestRunExitCodes: usage errors print the usage on stderr after the
// message named "spar-record: <command>: " and exit 64; --help prints it
// on stdout and exits 0.
func TestRunExitCodes(t *testing.T) {
	for _, c := range []struct {
		args []string
		want int
	}{
		{[]string{"triage", "--help"}, 0},
		{[]string{"triage", "r"}, 64},
		{[]string{"waive", "--help"}, 0},
		{[]string{"waive", "r"}, 64},
		{[]string{"extend", "--help"}, 0},
		{[]string{"extend", "s", "--stage", "plan"}, 64},
		{[]string{"extend", "", "--stage", "plan", "--by", "1"}, 64},
		{[]string{"load", "r", "--reviewer"}, 64},
		{[]string{"verdict"}, 64},
		{[]string{"bogus"}, 64},
	} {
		var o, e bytes.Buffer
		got := Main(c.args, nil, &o, &e)
		if got != c.want {
			t.Errorf("%q: exit %d, want %d (%s)", c.args, got, c.want, e.String())
		}
		if c.want == 0 && !strings.HasPrefix(o.String(), "usage: spar") {
			t.Errorf("%q: stdout %q", c.args, o.String())
		}
		if c.want == 64 && (!strings.HasPrefix(e.String(), "spar-record: ") || !strings.Contains(e.String(), "\nusage: spar") || strings.HasSuffix(e.String(), "\n\n")) {
			t.Errorf("%q: stderr %q", c.args, e.String())
		}
	}
}
