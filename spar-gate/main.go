// Command spar-gate decides whether a change may pass (`spar gate`) and
// reports a series' caps (`spar cap-report`, G34). Its command layer is
// stage/spargate (docs/pipeline.md §1.1, §9).
package main

import (
	"os"

	"github.com/jaekit/spar/stage/spargate"
)

func main() { os.Exit(spargate.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
