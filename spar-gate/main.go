// Command spar-gate is the stage of stage/spargate (docs/pipeline.md).
package main

import (
	"os"

	"github.com/jaekit/spar/stage/spargate"
)

func main() { os.Exit(spargate.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
