// Command spar-classify is the stage of stage/sparclassify (docs/pipeline.md).
package main

import (
	"os"

	"github.com/jaekit/spar/stage/sparclassify"
)

func main() { os.Exit(sparclassify.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
