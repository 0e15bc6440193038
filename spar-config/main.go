// Command spar-config decides the applied configuration (G16–G25) and
// starts the stage pipeline. Its command layer is stage/sparconfig
// (docs/pipeline.md §1.1, §3).
package main

import (
	"os"

	"github.com/jaekit/spar/stage/sparconfig"
)

func main() { os.Exit(sparconfig.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
