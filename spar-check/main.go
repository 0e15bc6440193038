// spar-check reads `runs` (from spar-exec, or the one reviewer `spar record`
// loads) with `run` and `config`, and adds `results`: every completed run's
// raw result checked by G1–G6 and the standpoint report rules; every other
// run passes through with its status and reason (docs/pipeline.md §6,
// docs/review-round.md §5).
package main

import (
	"fmt"
	"os"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/exitcode"
	"github.com/jaekit/spar/lib/pipe"
	"github.com/jaekit/spar/lib/resultcheck"
)

const usage = `usage: ... | spar-check

Reads the spar-pipe/v1 envelope with "config", "run" and "runs" on stdin
and writes it back with "results" added. Writes no file.

Exit codes: 0 done, 64 usage error, 65 invalid stdin (nothing written),
70 internal error.

Example:
  spar-check < exec.json > check.json
`

func main() { pipe.Exit("check", run(os.Args[1:])) }

func run(argv []string) error {
	for _, a := range argv {
		if a == "--help" || a == "-h" {
			fmt.Print(usage)
			return nil
		}
	}
	if len(argv) > 0 {
		return exitcode.New(exitcode.Usage, fmt.Sprintf("spar-check: unexpected argument %q\n%s", argv[0], usage))
	}
	env, err := pipe.Read("check", os.Stdin, resultcheck.InputSchema)
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
			return exitcode.New(exitcode.Config, fmt.Sprintf("spar-check: stdin: /%s: %v", k.key, err))
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
	if err := env.Write(os.Stdout); err != nil {
		return exitcode.New(exitcode.IO, "spar-check: stdout: "+err.Error())
	}
	return nil
}
