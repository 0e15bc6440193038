// Command spar-record records a round, loads a recorded one for `spar
// record`, and appends triage, waiver and extension lines under the series
// lock (G33). Its command layer is stage/sparrecord (docs/pipeline.md §1.1,
// §8).
package main

import (
	"os"

	"github.com/jaekit/spar/stage/sparrecord"
)

func main() { os.Exit(sparrecord.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
