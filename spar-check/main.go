// Command spar-check checks every completed reviewer's raw result (G1–G6,
// the standpoint report rules) and adds `results` to the envelope. Its
// command layer is stage/sparcheck (docs/pipeline.md §1.1, §6).
package main

import (
	"os"

	"github.com/jaekit/spar/stage/sparcheck"
)

func main() { os.Exit(sparcheck.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
