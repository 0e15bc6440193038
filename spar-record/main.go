// Command spar-record is the only writer of a series' records after
// spar-exec (docs/pipeline.md §8): it records a round from the envelope,
// loads a recorded round back into an envelope for `spar record`, and
// appends triage, waiver and extension lines. Every write holds the series
// lock (G33).
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/jaekit/spar/lib/exitcode"
)

const usageText = `usage: spar-record [< envelope]
       spar-record load ROUND --reviewer NAME [--result F] [--transcript F]
       spar-record verdict ROUND
       spar-record triage ROUND FINDING --as DISPOSITION [options]
       spar-record waive ROUND --reviewer NAME --user-quote Q
       spar-record extend SERIES --stage S --by N [--cause C] [--reason R]

With no command, reads the spar-pipe/v1 envelope of spar-classify on stdin,
records the round (findings.json, ledger.jsonl, summary.md, then round.json
with finished_at) and writes the envelope with "recorded" to stdout.

load builds the envelope of a recorded round with NAME's result (the file of
--result, else the transcript's final message) for spar-check, spar-classify
and spar-record: that is how 'spar record' re-records a round.

verdict prints where a recorded round is and its verdict line.

Exit codes: 0 done, 64 usage error, 65 refused (nothing written),
70 internal error, 74 I/O error writing records.

Example:
  spar-classify < check.json | spar-record > recorded.json
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		return runRecord(stdin, stdout, stderr)
	}
	switch args[0] {
	case "-h", "--help", "-help", "help":
		fmt.Fprint(stdout, usageText)
		return exitcode.OK
	case "load":
		return runLoad(args[1:], stdin, stdout, stderr)
	case "verdict":
		return runVerdict(args[1:], stdout, stderr)
	case "triage":
		return runTriage(args[1:], stdin, stdout, stderr)
	case "waive":
		return runWaive(args[1:], stdin, stdout, stderr)
	case "extend":
		return runExtend(args[1:], stdin, stdout, stderr)
	}
	fmt.Fprintf(stderr, "spar-record: unknown command %q\n", args[0])
	fmt.Fprint(stderr, usageText)
	return exitcode.Usage
}
