// Package cli is the stage layer's command line: the one flag reader of
// every spar-* stage, and the one place that turns the error a stage ended
// with into its stderr text (named "spar-<stage>: ") and its exit code
// (docs/pipeline.md §1: 64 usage, 65 refused, 70 internal, 74 I/O).
//
// Library code returns errors without a binary's name; only this layer
// names the binary.
package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/jaekit/spar/lib/exitcode"
)

// Flag is one flag a command takes, written --Name.
type Flag struct {
	Name string // without the leading dashes
	// Bool: the flag takes no value of its own (--name); one given with
	// "=" (--name=V) is kept as the flag's value for the command to judge.
	Bool bool
	// Repeat: the flag may be given more than once, every value kept in
	// order; otherwise a second one is a usage error (Twice).
	Repeat bool
}

// Grammar is one command's command line.
type Grammar struct {
	Flags []Flag
	// NoPositionals: the command takes no positional argument; the first
	// word that is not a flag is a usage error (Unexpected) where it stands.
	NoPositionals bool
	// SingleDash: -name is read as --name (the form of Go's flag package,
	// which spar-config's command line has always accepted).
	SingleDash bool
}

// Set is one flag as given.
type Set struct {
	Name     string
	Value    string
	HasValue bool // false only for a Bool flag given without "="
}

// Args is a command line as read.
type Args struct {
	Pos  []string // the positional arguments, in order
	Sets []Set    // every flag given, in order
	Help bool     // -h, -help or --help was given as a word of its own
}

// Value is the last value given for the flag name.
func (a *Args) Value(name string) (string, bool) {
	for i := len(a.Sets) - 1; i >= 0; i-- {
		if a.Sets[i].Name == name {
			return a.Sets[i].Value, true
		}
	}
	return "", false
}

// Values are every value given for the flag name, in order.
func (a *Args) Values(name string) []string {
	var vs []string
	for _, s := range a.Sets {
		if s.Name == name {
			vs = append(vs, s.Value)
		}
	}
	return vs
}

// Kind is what is wrong with a command line.
type Kind int

const (
	Unknown    Kind = iota + 1 // a flag the command does not take
	Missing                    // a flag that takes a value ends the command line
	Twice                      // a flag that is not Repeat given again
	Unexpected                 // a positional argument of a command that takes none
)

// SyntaxError is a usage error (64) of a command line. Its Error text is
// the common form; a stage whose messages have another form (they are
// part of what users see) builds its own from Kind, Word and Flag.
type SyntaxError struct {
	Kind Kind
	Word string // the word at fault, as given
	Flag string // the flag's name without dashes (Unknown: the word's, before "=")
}

func (e *SyntaxError) Error() string {
	switch e.Kind {
	case Unknown:
		return fmt.Sprintf("unknown flag %q", e.Word)
	case Missing:
		return fmt.Sprintf("--%s needs a value", e.Flag)
	case Twice:
		return fmt.Sprintf("--%s given twice", e.Flag)
	}
	return fmt.Sprintf("unexpected argument %q", e.Word)
}

func isHelp(w string) bool { return w == "-h" || w == "-help" || w == "--help" }

// Parse reads args by g: flags and positional arguments in any order,
// --flag=V or --flag V for a flag that takes a value (the word after it is
// its value whatever it looks like: G35, a decision text may start with
// -), "--" ends the flags, "-" is a positional argument.
//
// -h, -help and --help as words of their own (before "--"; never the value
// of a flag, G27: --expect-head --help is a revision) ask for the usage:
// Args.Help is set, and a command prints its usage then whatever else the
// line holds. The first fault, left to right, is a *SyntaxError; the Args
// read up to it are returned with it.
func Parse(args []string, g Grammar) (Args, error) {
	flags := map[string]Flag{}
	for _, f := range g.Flags {
		flags[f.Name] = f
	}
	name := func(w string) (string, string, bool, bool) {
		body, ok := strings.CutPrefix(w, "--")
		if !ok && g.SingleDash {
			body, ok = strings.CutPrefix(w, "-")
		}
		n, v, hasV := strings.Cut(body, "=")
		return n, v, hasV, ok
	}
	a := Args{Help: helpWanted(args, flags, name)}
	given := map[string]bool{}
	for i := 0; i < len(args); i++ {
		w := args[i]
		if isHelp(w) {
			continue
		}
		if w == "--" {
			rest := args[i+1:]
			if g.NoPositionals && len(rest) > 0 {
				return a, &SyntaxError{Kind: Unexpected, Word: rest[0]}
			}
			a.Pos = append(a.Pos, rest...)
			break
		}
		if !strings.HasPrefix(w, "-") || w == "-" {
			if g.NoPositionals {
				return a, &SyntaxError{Kind: Unexpected, Word: w}
			}
			a.Pos = append(a.Pos, w)
			continue
		}
		n, v, hasV, dashed := name(w)
		f, known := flags[n]
		if !dashed || !known {
			n, _, _ = strings.Cut(strings.TrimLeft(w, "-"), "=")
			return a, &SyntaxError{Kind: Unknown, Word: w, Flag: n}
		}
		if given[n] && !f.Repeat {
			return a, &SyntaxError{Kind: Twice, Word: w, Flag: n}
		}
		if !f.Bool && !hasV {
			if i+1 >= len(args) {
				return a, &SyntaxError{Kind: Missing, Word: w, Flag: n}
			}
			i++
			v, hasV = args[i], true
		}
		given[n] = true
		a.Sets = append(a.Sets, Set{Name: n, Value: v, HasValue: hasV})
	}
	return a, nil
}

// helpWanted reports a help word of its own before "--": the word after a
// flag that takes a value is that value.
func helpWanted(args []string, flags map[string]Flag, name func(string) (string, string, bool, bool)) bool {
	for i := 0; i < len(args); i++ {
		w := args[i]
		if w == "--" {
			return false
		}
		if isHelp(w) {
			return true
		}
		if n, _, hasV, dashed := name(w); dashed && !hasV {
			if f, ok := flags[n]; ok && !f.Bool {
				i++
			}
		}
	}
	return false
}

// Command is the name a stage's messages go by: the driver command that
// runs it when the `spar` driver says so (SPAR_COMMAND, e.g. "spar run"),
// else the stage's own name. A user of `spar run` never reads
// "spar-packet: …": the driver's commands speak for themselves
// (docs/pipeline.md §10).
func Command(stage string) string {
	if c := os.Getenv(DriverEnv); c != "" {
		return c
	}
	return stage
}

// DriverEnv is the environment variable through which the driver names the
// command it runs a stage for.
const DriverEnv = "SPAR_COMMAND"

// Exit is the exit code of a stage that ended with err, whose message it
// writes to stderr: nil is 0; an *exitcode.Error prints its message after
// "<stage>: " (as it is when Located; nothing when empty), then its usage
// text, and gives its code; any other error is internal (70), named by the
// stage.
//
// Under the driver (Command) the message goes by the driver's command, a
// leading "<subcommand>: " that repeats it is dropped ("spar triage: --as
// … ", not "spar triage: triage: --as …"), and the stage's usage text
// gives way to a pointer at the driver's own help.
func Exit(stderr io.Writer, stage string, err error) int {
	if err == nil {
		return exitcode.OK
	}
	name := Command(stage)
	driven := name != stage
	var ee *exitcode.Error
	if errors.As(err, &ee) {
		msg := ee.Msg
		if driven {
			sub := name[strings.LastIndexByte(name, ' ')+1:]
			msg = strings.TrimPrefix(msg, sub+": ")
			// `spar record` runs `spar-record load`: the one stage
			// command the driver runs under another name.
			if sub == "record" {
				msg = strings.TrimPrefix(msg, "load: ")
			}
		}
		switch {
		case ee.Msg == "":
		case ee.Located:
			fmt.Fprintln(stderr, ee.Msg)
		default:
			fmt.Fprintf(stderr, "%s: %s\n", name, msg)
		}
		switch {
		case ee.Usage == "":
		case driven:
			fmt.Fprintf(stderr, "Run '%s --help' for its usage.\n", name)
		default:
			fmt.Fprintf(stderr, "%s\n", ee.Usage)
		}
		return ee.Code
	}
	fmt.Fprintf(stderr, "%s: internal error: %v\n", name, err)
	return exitcode.Internal
}
