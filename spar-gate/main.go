// Command spar-gate decides whether a change may pass (`spar gate`) and
// reports a series' caps (`spar cap-report`, G34). Its command layer is
// stage/spargate (docs/pipeline.md §1.1, §9).
package main

import (
	"os"

	"github.com/jaekit/spar/lib/fixcheck"
	"github.com/jaekit/spar/lib/sandbox"
	"github.com/jaekit/spar/stage/spargate"
)

func main() {
	// spar gate --rerun-checks runs fix checks through the sandbox's
	// launcher and serves a Go check's build cache: both are this binary
	// run again (docs/sandbox.md "Fix checks"); they never return then.
	sandbox.Main()
	fixcheck.Main()
	os.Exit(spargate.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
