// Command spar-config decides the applied configuration (G16–G25) and
// starts the stage pipeline. Its command layer is stage/sparconfig
// (docs/pipeline.md §1.1, §3).
package main

import (
	"os"

	"github.com/jaekit/spar/lib/sandbox"
	"github.com/jaekit/spar/stage/sparconfig"
)

func main() {
	// spar doctor runs each reviewer's version check in the sandbox, as a
	// round does (docs/sandbox.md "What the sandbox denies"): this binary
	// is the launcher then, run again through /proc/self/exe.
	sandbox.Main()
	os.Exit(sparconfig.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
