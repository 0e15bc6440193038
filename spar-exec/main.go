// spar-exec is the stage that runs the reviewers (DESIGN.md §3–§5): it reads
// the envelope (config, run, packet), makes the cap decision under the
// series lock (G33), creates the round folder with packet.md, schema.json,
// each reviewer's input and round.json without finished_at, materializes
// head/ and base/ in a workspace of spar's cache folder outside every
// repository (<round>/workspace links to it, DESIGN.md §12), linking the
// blobs earlier rounds stored, runs every reviewer at once (G10–G14,
// G19, section 5) and adds `round` and `runs` to the envelope.
package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/jaekit/spar/lib/exitcode"
	"github.com/jaekit/spar/lib/pipe"
	"github.com/jaekit/spar/lib/sandbox"
)

const usage = `usage: spar-exec [--quiet] [--rerun NAME]... < envelope.json > envelope.json
       spar-exec check-shell < lines.json
       spar-exec check-refusal < texts.json

Reads a spar-pipe/v1 envelope with config, run and packet; creates the round
folder (run.out), runs every reviewer at once and writes the envelope back
with round and runs added. Progress lines go to stderr: one per reviewer
state change and, while a reviewer runs, a heartbeat every 30 s
(SPAR_HEARTBEAT=100ms, for tests, shortens it); --quiet prints none of them
(never an error). --rerun NAME runs NAME again in a rerun of the same input
even when it completed there (refused when NAME is not a reviewer of the
round).

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
	var opts options
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--quiet":
			opts.quiet = true
		case a == "--rerun" && i+1 < len(args):
			i++
			opts.rerun = append(opts.rerun, args[i])
		case strings.HasPrefix(a, "--rerun="):
			opts.rerun = append(opts.rerun, strings.TrimPrefix(a, "--rerun="))
		case a == "--rerun":
			fmt.Fprintf(os.Stderr, "spar-exec: --rerun needs a reviewer name\n%s", usage)
			os.Exit(exitcode.Usage)
		default:
			fmt.Fprintf(os.Stderr, "spar-exec: unexpected argument %q\n%s", a, usage)
			os.Exit(exitcode.Usage)
		}
	}
	pipe.Exit("exec", run(os.Stdin, os.Stdout, os.Stderr, opts))
}
