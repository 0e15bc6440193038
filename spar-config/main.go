// Command spar-config decides the applied configuration and starts the
// stage pipeline (stage/sparconfig).
package main

import (
	"os"

	"github.com/jaekit/spar/stage/sparconfig"
)

func main() { os.Exit(sparconfig.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
