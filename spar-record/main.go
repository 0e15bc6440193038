// Command spar-record is the stage of stage/sparrecord (docs/pipeline.md).
package main

import (
	"os"

	"github.com/jaekit/spar/stage/sparrecord"
)

func main() { os.Exit(sparrecord.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
