// Package sparcheck is spar-check's command layer: it reads `runs` (from
// spar-exec, or the one reviewer `spar record` loads) with `run` and
// `config`, and adds `results`: every completed run's raw result checked by
// G1–G6 and the standpoint report rules; every other run passes through
// with its status and reason (docs/pipeline.md §6, docs/review-round.md §5).
package sparcheck

import (
	"errors"
	"fmt"
	"io"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/exitcode"
	"github.com/jaekit/spar/lib/pipe"
	"github.com/jaekit/spar/lib/resultcheck"
	"github.com/jaekit/spar/stage/cli"
)

const usage = `usage: ... | spar-check

Reads the spar-pipe/v1 envelope with "config", "run" and "runs" on stdin
and writes it back with "results" added. Writes no file.

Exit codes: 0 done, 64 usage error, 65 invalid stdin (nothing written),
70 internal error.

Example:
  spar-check < exec.json > check.json
`

// Main runs spar-check with the command line args and returns its exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return cli.Exit(stderr, "spar-check", run(args, stdin, stdout))
}

func run(args []string, stdin io.Reader, stdout io.Writer) error {
	a, err := cli.Parse(args, cli.Grammar{NoPositionals: true})
	if a.Help {
		fmt.Fprint(stdout, usage)
		return nil
	}
	var se *cli.SyntaxError
	if errors.As(err, &se) {
		return exitcode.WithUsage(fmt.Sprintf("unexpected argument %q", se.Word), usage)
	}
	env, err := pipe.Read("check", stdin, resultcheck.InputSchema)
	if err != nil {
		return err
	}
	var cfg envelope.Config
	var r envelope.Run
	var runs []envelope.ReviewerRun
	for _, k := range []struct {
		key string
		v   any
	}{{"config", &cfg}, {"run", &r}, {"runs", &runs}} {
		if err := env.Get(k.key, k.v); err != nil {
			return exitcode.New(exitcode.Config, fmt.Sprintf("stdin: /%s: %v", k.key, err))
		}
	}
	round := resultcheck.Round{Head: r.Head, Angles: cfg.Angles, Standpoints: r.Standpoints}
	results := make([]envelope.Result, 0, len(runs))
	for i := range runs {
		results = append(results, resultcheck.Check(round, runs[i]))
		// The raw result is passed on from stdin as received; the checked
		// copy in results is all this stage still holds of it
		// (docs/pipeline.md "Memory").
		runs[i].Result = nil
	}
	if err := env.Set("results", results); err != nil {
		return err
	}
	if err := env.Write(stdout); err != nil {
		return exitcode.New(exitcode.IO, "stdout: "+err.Error())
	}
	return nil
}
