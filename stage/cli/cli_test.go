package cli

import (
	"bytes"
	"errors"
	"reflect"
	"testing"

	"github.com/jaekit/spar/lib/exitcode"
)

var g = Grammar{Flags: []Flag{{Name: "as"}, {Name: "evidence"}, {Name: "check", Repeat: true}, {Name: "dry", Bool: true, Repeat: true}}}

// TestParse: flags after positionals, --flag=V and --flag V, repeated and
// bool flags, "--" and "-" (docs/review-round.md §8.1's command-line form).
func TestParse(t *testing.T) {
	for _, c := range []struct {
		args []string
		pos  []string
		sets []Set
	}{
		{[]string{"r", "f", "--as", "rejected", "--evidence", "e"}, []string{"r", "f"},
			[]Set{{"as", "rejected", true}, {"evidence", "e", true}}},
		{[]string{"--as=rejected", "r", "--evidence=a=b", "f"}, []string{"r", "f"},
			[]Set{{"as", "rejected", true}, {"evidence", "a=b", true}}},
		// G35: the word after a value-taking flag is its value.
		{[]string{"r", "--evidence", "-v was never passed", "--as", "--dry"}, []string{"r"},
			[]Set{{"evidence", "-v was never passed", true}, {"as", "--dry", true}}},
		{[]string{"--as", "x", "--", "--r", "-f"}, []string{"--r", "-f"}, []Set{{"as", "x", true}}},
		{[]string{"-", "--as="}, []string{"-"}, []Set{{"as", "", true}}},
		{[]string{"--check", "a", "p", "--check=b", "--dry", "--dry=false"}, []string{"p"},
			[]Set{{"check", "a", true}, {"check", "b", true}, {"dry", "", false}, {"dry", "false", true}}},
	} {
		a, err := Parse(c.args, g)
		if err != nil || a.Help || !reflect.DeepEqual(a.Pos, c.pos) || !reflect.DeepEqual(a.Sets, c.sets) {
			t.Errorf("%q: %+v %v", c.args, a, err)
		}
	}
	a, _ := Parse([]string{"--check", "a", "--check", "b"}, g)
	if v, ok := a.Value("check"); !ok || v != "b" || !reflect.DeepEqual(a.Values("check"), []string{"a", "b"}) {
		t.Errorf("Value/Values: %q %v %q", v, ok, a.Values("check"))
	}
	if _, ok := a.Value("as"); ok {
		t.Error("Value of a flag not given")
	}
}

// TestParseFaults: the first fault left to right, with its kind, word and
// flag; its common text.
func TestParseFaults(t *testing.T) {
	for _, c := range []struct {
		args []string
		g    Grammar
		want SyntaxError
		text string
	}{
		{[]string{"r", "--of", "x"}, g, SyntaxError{Unknown, "--of", "of"}, `unknown flag "--of"`},
		{[]string{"r", "-as", "x"}, g, SyntaxError{Unknown, "-as", "as"}, `unknown flag "-as"`},
		{[]string{"--as", "a", "--as=b"}, g, SyntaxError{Twice, "--as=b", "as"}, "--as given twice"},
		{[]string{"r", "--evidence"}, g, SyntaxError{Missing, "--evidence", "evidence"}, "--evidence needs a value"},
		{[]string{"--bogus=1", "--as"}, g, SyntaxError{Unknown, "--bogus=1", "bogus"}, `unknown flag "--bogus=1"`},
		{[]string{"--dry", "extra"}, Grammar{Flags: g.Flags, NoPositionals: true}, SyntaxError{Unexpected, "extra", ""}, `unexpected argument "extra"`},
		{[]string{"--", "x"}, Grammar{NoPositionals: true}, SyntaxError{Unexpected, "x", ""}, `unexpected argument "x"`},
	} {
		_, err := Parse(c.args, c.g)
		var se *SyntaxError
		if !errors.As(err, &se) || *se != c.want || se.Error() != c.text {
			t.Errorf("%q: %#v, want %#v %q", c.args, err, c.want, c.text)
		}
	}
	// SingleDash: -name is --name; an unknown one names its flag.
	sd := Grammar{Flags: []Flag{{Name: "repo"}}, SingleDash: true}
	if a, err := Parse([]string{"-repo", "x"}, sd); err != nil || !reflect.DeepEqual(a.Sets, []Set{{"repo", "x", true}}) {
		t.Errorf("-repo x: %+v %v", a, err)
	}
	if _, err := Parse([]string{"-bogus"}, sd); err == nil || err.(*SyntaxError).Flag != "bogus" {
		t.Errorf("-bogus: %v", err)
	}
}

// TestParseHelp: -h, -help, --help as words of their own win over any
// other fault; the value of a flag (G27: --expect-head --help) and a word
// after "--" are not help requests.
func TestParseHelp(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"r", "--help"}, {"--bogus", "-help"}, {"--help", "--bogus"}, {"--as", "x", "-h"}, {"--dry", "--help"}} {
		if a, _ := Parse(args, g); !a.Help {
			t.Errorf("%q: no help request", args)
		}
	}
	for _, args := range [][]string{{"--as", "--help"}, {"--evidence", "-h", "r"}, {"--", "--help"}} {
		if a, _ := Parse(args, g); a.Help {
			t.Errorf("%q: a help request", args)
		}
	}
	if a, _ := Parse([]string{"--as", "--help"}, g); !reflect.DeepEqual(a.Sets, []Set{{"as", "--help", true}}) {
		t.Errorf("--as --help: %+v", a.Sets)
	}
	// The rest of the line is still read: its fault is there for a
	// command that gives help only for some words (spar-gate's commands).
	if a, err := Parse([]string{"r", "--help", "--of"}, g); !a.Help || !reflect.DeepEqual(a.Pos, []string{"r"}) || err == nil || err.(*SyntaxError).Kind != Unknown {
		t.Errorf("r --help --of: %+v %v", a, err)
	}
}

// TestExit: the stage's name before a message, a located message as it
// is, an empty one not printed, anything else internal (70).
func TestExit(t *testing.T) {
	for _, c := range []struct {
		err    error
		code   int
		stderr string
	}{
		{nil, 0, ""},
		{exitcode.New(exitcode.Config, "refused: x"), 65, "spar-t: refused: x\n"},
		{exitcode.Usagef("--%s needs a value\nusage: …", "as"), 64, "spar-t: --as needs a value\nusage: …\n"},
		{exitcode.NewLocated(exitcode.Config, "/a.toml:3: bad"), 65, "/a.toml:3: bad\n"},
		{exitcode.New(exitcode.Blocked, ""), 1, ""},
		{errors.New("boom"), 70, "spar-t: internal error: boom\n"},
	} {
		var b bytes.Buffer
		if code := Exit(&b, "spar-t", c.err); code != c.code || b.String() != c.stderr {
			t.Errorf("%v: %d %q, want %d %q", c.err, code, b.String(), c.code, c.stderr)
		}
	}
}

// TestExitDriven: under the driver (SPAR_COMMAND) a stage's message goes by
// the driver's command, without a repeated subcommand, and its usage text
// gives way to the driver's help; without it the stage's own name and usage.
func TestExitDriven(t *testing.T) {
	usage := exitcode.WithUsage("triage: --as DISPOSITION is required", "usage: spar-record triage …")
	for _, c := range []struct {
		driver string
		err    error
		stderr string
	}{
		{"", usage, "spar-record: triage: --as DISPOSITION is required\nusage: spar-record triage …\n"},
		{"spar triage", usage, "spar triage: --as DISPOSITION is required\nRun 'spar triage --help' for its usage.\n"},
		{"spar run", exitcode.WithUsage("--out is required", "usage: spar-config ... | spar-packet …"), "spar run: --out is required\nRun 'spar run --help' for its usage.\n"},
		{"spar run", exitcode.New(exitcode.Config, "stdin: /: empty input"), "spar run: stdin: /: empty input\n"},
		{"spar run", exitcode.NewLocated(exitcode.Config, "/a.toml:3: bad"), "/a.toml:3: bad\n"},
		{"spar gate", errors.New("boom"), "spar gate: internal error: boom\n"},
	} {
		t.Setenv(DriverEnv, c.driver)
		var b bytes.Buffer
		Exit(&b, "spar-record", c.err)
		if b.String() != c.stderr {
			t.Errorf("SPAR_COMMAND=%q %v: %q, want %q", c.driver, c.err, b.String(), c.stderr)
		}
		if got, want := Command("spar-record"), map[bool]string{true: "spar-record", false: c.driver}[c.driver == ""]; got != want {
			t.Errorf("Command = %q, want %q", got, want)
		}
	}
}
