package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/jaekit/spar/lib/disposition"
	"github.com/jaekit/spar/lib/exitcode"
)

// triageUsage is rendered from the disposition rules table
// (disposition.UsageTable), the one place that says what each disposition
// needs.
var triageUsage = `usage: spar triage ROUND FINDING --as DISPOSITION [options]

Appends one line to ROUND/ledger.jsonl and prints it. The last line for a
finding decides its disposition.

` + disposition.UsageTable() + `
A text that is empty after trimming counts as not given (G30).
Exit codes: 0 appended, 64 usage error, 65 refused (nothing written),
74 I/O error.

Example:
  spar triage reviews/login/code-1 rules-F1 --as fixed --commit HEAD \
    --failed-before 'go test ./checks' --passed-after 'go test ./checks'
`

// runTriage is `spar-record triage ROUND FINDING --as D [options]`.
func runTriage(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	flags := append([]string{"as"}, disposition.TriageOptions...)
	p, err := parseArgs("triage", args, flags)
	if err != nil {
		return usageError(stderr, err, triageUsage)
	}
	if p.help {
		fmt.Fprint(stdout, triageUsage)
		return exitcode.OK
	}
	if len(p.pos) != 2 {
		return usageError(stderr, fmt.Errorf("spar-record: triage: want ROUND and FINDING, got %d arguments", len(p.pos)), triageUsage)
	}
	if !p.given["as"] {
		return usageError(stderr, errors.New("spar-record: triage: --as DISPOSITION is required"), triageUsage)
	}
	opts := map[string]string{}
	for _, o := range disposition.TriageOptions {
		opts[o] = p.vals[o]
	}
	e, err := disposition.Triage(disposition.TriageRequest{
		Round: p.pos[0], Finding: p.pos[1], Disposition: p.vals["as"], Options: opts,
	}, stderr)
	return finish(stdout, stderr, e, err)
}

// parsed is a command line: positional arguments and flag values.
type parsed struct {
	pos   []string
	vals  map[string]string
	given map[string]bool
	help  bool
}

// parseArgs reads `--name VALUE` and `--name=VALUE` for the names in flags,
// anywhere among the positional arguments. The word after a flag is always
// its value, even when it starts with -. `--` ends the flags. An unknown
// flag, a flag given twice and a flag without its value are usage errors.
func parseArgs(cmd string, args []string, flags []string) (parsed, error) {
	p := parsed{vals: map[string]string{}, given: map[string]bool{}}
	known := map[string]bool{}
	for _, f := range flags {
		known[f] = true
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			p.pos = append(p.pos, args[i+1:]...)
			return p, nil
		case a == "-h" || a == "--help" || a == "-help":
			p.help = true
			continue
		case !strings.HasPrefix(a, "-") || a == "-":
			p.pos = append(p.pos, a)
			continue
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "--") || !known[name] {
			return p, fmt.Errorf("spar-record: %s: unknown flag %q", cmd, a)
		}
		if p.given[name] {
			return p, fmt.Errorf("spar-record: %s: --%s given twice", cmd, name)
		}
		if !hasVal {
			if i+1 >= len(args) {
				return p, fmt.Errorf("spar-record: %s: --%s needs a value", cmd, name)
			}
			i++
			val = args[i]
		}
		p.vals[name], p.given[name] = val, true
	}
	return p, nil
}

func usageError(stderr io.Writer, err error, usage string) int {
	fmt.Fprintln(stderr, err)
	fmt.Fprint(stderr, usage)
	return exitcode.Usage
}

// finish prints the appended line, or the error with its exit code.
func finish(stdout, stderr io.Writer, line any, err error) int {
	if err != nil {
		var ee *exitcode.Error
		if errors.As(err, &ee) {
			fmt.Fprintln(stderr, ee.Msg)
			return ee.Code
		}
		fmt.Fprintf(stderr, "spar-record: internal error: %v\n", err)
		return exitcode.Internal
	}
	if err := disposition.Output(stdout, line); err != nil {
		fmt.Fprintf(stderr, "spar-record: stdout: %v\n", err)
		return exitcode.IO
	}
	return exitcode.OK
}
