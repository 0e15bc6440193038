// Command spar-classify places and classifies every finding (G7–G9, G24)
// and adds `findings` to the envelope. Its command layer is
// stage/sparclassify (docs/pipeline.md §1.1, §7).
package main

import (
	"os"

	"github.com/jaekit/spar/stage/sparclassify"
)

func main() { os.Exit(sparclassify.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
