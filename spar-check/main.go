// Command spar-check is the stage of stage/sparcheck (docs/pipeline.md).
package main

import (
	"os"

	"github.com/jaekit/spar/stage/sparcheck"
)

func main() { os.Exit(sparcheck.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
