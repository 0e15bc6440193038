// Command spar-exec is the stage of stage/sparexec (docs/pipeline.md).
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
