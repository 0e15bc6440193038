// Command spar-packet is the stage of stage/sparpacket (docs/pipeline.md).
package main

import (
	"os"

	"github.com/jaekit/spar/stage/sparpacket"
)

func main() { os.Exit(sparpacket.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
