// spar-exec is the stage that runs the reviewers (docs/pipeline.md §5): it reads
// the envelope (config, run, packet), makes the cap decision under the
// series lock (G33), creates the round folder with packet.md, schema.json,
// each reviewer's input and round.json without finished_at, materializes
// head/ and base/ in a workspace of spar's cache folder outside every
// repository (<round>/workspace links to it, docs/review-round.md "The workspace"), linking the
// blobs earlier rounds stored, runs every reviewer at once (G10–G14,
// G19, docs/review-round.md "Refusal phrases") and adds `round` and `runs` to the envelope.
package main

import (
	"fmt"
	"os"

	"github.com/jaekit/spar/lib/exitcode"
	"github.com/jaekit/spar/lib/pipe"
	"github.com/jaekit/spar/lib/sandbox"
)

const usage = `usage: spar-exec < envelope.json > envelope.json
       spar-exec check-shell < lines.json
       spar-exec check-refusal < texts.json

Reads a spar-pipe/v1 envelope with config, run and packet; creates the round
folder (run.out), runs every reviewer at once and writes the envelope back
with round and runs added. Progress lines go to stderr.

check-shell and check-refusal print why an agy shell line (G11) or a
reviewer's message (section 5) is refused.

Exit codes: 0 done (whatever the reviewers' statuses), 64 usage error,
65 invalid stdin or refused (nothing written), 70 internal error,
74 I/O error writing the round folder.

Example:
  spar-exec < packet.json > exec.json
`

func main() {
	// The reviewer sandbox's launcher is this binary run again through
	// /proc/self/exe (docs/sandbox.md); it never returns then.
	sandbox.Main()
	// check-shell and check-refusal (inspect.go) come before anything else.
	if handled, code := inspect(os.Args[1:], os.Stdin, os.Stdout, os.Stderr); handled {
		os.Exit(code)
	}
	args := os.Args[1:]
	if len(args) == 1 && (args[0] == "--help" || args[0] == "-h") {
		fmt.Print(usage)
		os.Exit(exitcode.OK)
	}
	if len(args) > 0 {
		fmt.Fprintf(os.Stderr, "spar-exec: unexpected argument %q\n%s", args[0], usage)
		os.Exit(exitcode.Usage)
	}
	pipe.Exit("exec", run(os.Stdin, os.Stdout, os.Stderr))
}
