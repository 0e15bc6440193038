// Package sparrecord is spar-record's command layer, the only writer of a
// series' records after spar-exec (docs/pipeline.md §8): it records a
// round from the envelope, loads a recorded round back into an envelope for
// `spar record`, and appends triage, waiver and extension lines. Every
// write holds the series lock (G33).
package sparrecord

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/jaekit/spar/lib/exitcode"
	"github.com/jaekit/spar/lib/seriesref"
	"github.com/jaekit/spar/stage/cli"
)

const name = "spar-record"

const usageText = `usage: spar-record [< envelope]
       spar-record load ROUND --reviewer NAME [--result F] [--transcript F]
       spar-record verdict ROUND
       spar-record triage ROUND FINDING --as DISPOSITION [options]
       spar-record waive ROUND --reviewer NAME --user-quote Q
       spar-record extend SERIES --stage S --by N [--cause C] [--reason R]
       spar-record push SERIES... [--remote NAME]
       spar-record fetch NAME --out DIR [--remote NAME] [--repo DIR]

With no command, reads the spar-pipe/v1 envelope of spar-classify on stdin,
records the round (findings.json, ledger.jsonl, summary.md, then round.json
with finished_at) and writes the envelope with "recorded" to stdout.

load builds the envelope of a recorded round with NAME's result (the file of
--result, else the transcript's final message) for spar-check, spar-classify
and spar-record: that is how 'spar record' re-records a round.

verdict prints where a recorded round is and its verdict line.

push publishes each series folder on refs/spar/series/<name> and pushes it;
fetch writes a published series back as a folder (spar push --help).

Exit codes: 0 done, 64 usage error, 65 refused (nothing written),
70 internal error, 74 I/O error writing records.

Example:
  spar-classify < check.json | spar-record > recorded.json
`

// Main runs spar-record with the command line args and returns its exit
// code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return cli.Exit(stderr, name, run(args, stdin, stdout, stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return runRecord(stdin, stdout, stderr)
	}
	switch args[0] {
	case "-h", "--help", "-help", "help":
		fmt.Fprint(stdout, usageText)
		return nil
	case "load":
		return runLoad(args[1:], stdout, stderr)
	case "verdict":
		return runVerdict(args[1:], stdout)
	case "triage":
		return runTriage(args[1:], stdout, stderr)
	case "waive":
		return runWaive(args[1:], stdout, stderr)
	case "extend":
		return runExtend(args[1:], stdout, stderr)
	case "push":
		return runPush(args[1:], stdout, stderr)
	case "fetch":
		return runFetch(args[1:], stdout, stderr)
	}
	return usageError(fmt.Sprintf("unknown command %q", args[0]), usageText)
}

// usageError is a usage error (64): msg, then the usage text.
func usageError(msg, usage string) error {
	return exitcode.WithUsage(msg, strings.TrimSuffix(usage, "\n"))
}

// parsed is a command line: positional arguments and flag values.
type parsed struct {
	pos   []string
	vals  map[string]string
	given map[string]bool
	help  bool
}

// parseArgs reads the command line of cmd (docs/review-round.md §8.1):
// `--name VALUE` and `--name=VALUE` for the names in flags, each at most
// once, anywhere among the positional arguments (stage/cli). The word after
// a flag is always its value, even when it starts with -.
// timeoutFlag is --timeout SECONDS of push and fetch: a whole number of
// seconds above 0 and at most a day, seriesref.DefaultTimeout when not
// given.
func timeoutFlag(cmd string, p parsed) (time.Duration, error) {
	if !p.given["timeout"] {
		return seriesref.DefaultTimeout, nil
	}
	v := p.vals["timeout"]
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 || n > 86400 {
		return 0, fmt.Errorf("%s: --timeout: want a whole number of seconds from 1 to 86400, got %q", cmd, v)
	}
	return time.Duration(n) * time.Second, nil
}

// slowRemote is what a git transfer stopped at its time limit adds to the
// error: how to give it more.
func slowRemote(err error) string {
	if errors.Is(err, seriesref.ErrTimeout) {
		return "; nothing was changed (a slow remote: give it more with --timeout SECONDS)"
	}
	return ""
}

func parseArgs(cmd string, args []string, flags []string) (parsed, error) {
	g := cli.Grammar{}
	for _, f := range flags {
		g.Flags = append(g.Flags, cli.Flag{Name: f})
	}
	a, err := cli.Parse(args, g)
	p := parsed{pos: a.Pos, vals: map[string]string{}, given: map[string]bool{}, help: a.Help}
	var se *cli.SyntaxError
	if errors.As(err, &se) {
		return p, fmt.Errorf("%s: %v", cmd, se)
	}
	for _, s := range a.Sets {
		p.vals[s.Name], p.given[s.Name] = s.Value, true
	}
	return p, nil
}
