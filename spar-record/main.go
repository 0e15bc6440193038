// Command spar-record records a round, loads a recorded one for `spar
// record`, and appends triage, waiver and extension lines under the series
// lock (G33). Its command layer is stage/sparrecord (docs/pipeline.md §1.1,
// §8).
package main

import (
	"os"

	"github.com/jaekit/spar/lib/fixcheck"
	"github.com/jaekit/spar/lib/sandbox"
	"github.com/jaekit/spar/stage/sparrecord"
)

func main() {
	// spar triage --check runs its check through the sandbox's launcher,
	// this binary run again (docs/sandbox.md); it never returns then.
	sandbox.Main()
	// A Go check's build cache program is this binary too (lib/fixcheck).
	fixcheck.Main()
	os.Exit(sparrecord.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
