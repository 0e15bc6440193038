// Command spar-exec creates the round folder and runs every reviewer at
// once (G10–G14, G19), adding `round` and `runs` to the envelope. Its
// command layer is stage/sparexec (docs/pipeline.md §1.1, §5).
package main

import (
	"os"

	"github.com/jaekit/spar/lib/sandbox"
	"github.com/jaekit/spar/stage/sparexec"
)

func main() {
	// The reviewer sandbox's launcher is this binary run again through
	// /proc/self/exe (docs/sandbox.md); it never returns then.
	sandbox.Main()
	os.Exit(sparexec.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
