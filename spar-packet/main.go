// Command spar-packet reads the run arguments and adds `run` and `packet`
// to the envelope; every refusal of the arguments happens here. Its command
// layer is stage/sparpacket (docs/pipeline.md §1.1, §4).
package main

import (
	"os"

	"github.com/jaekit/spar/stage/sparpacket"
)

func main() { os.Exit(sparpacket.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
