// Package sparexec is spar-exec's command layer, the stage that runs the
// reviewers (docs/pipeline.md §5): it reads the envelope (config, run, packet),
// makes the cap decision under the series lock (G33), creates the round
// folder with packet.md, schema.json, each reviewer's input and round.json
// without finished_at, materializes head/ and base/ in a workspace of
// spar's cache folder outside every repository (<round>/workspace links to
// it, docs/review-round.md "The workspace"), linking the blobs earlier rounds stored, runs every
// reviewer at once (G10–G14, G19, refusal phrases) and adds `round` and `runs` to
// the envelope.
//
// The reviewer sandbox's launcher is the spar-exec binary run again through
// /proc/self/exe (docs/sandbox.md): its main calls sandbox.Main before Main.
package sparexec

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/jaekit/spar/lib/exitcode"
	"github.com/jaekit/spar/lib/sign"
	"github.com/jaekit/spar/stage/cli"
)

const name = "spar-exec"

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

// Main runs spar-exec with the command line args and returns its exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// The driver's __spar-discard ROUND (interrupt.go), check-shell and
	// check-refusal (inspect.go) come before anything else.
	if len(args) > 0 && args[0] == discardArg {
		return discard(args[1:], stderr)
	}
	if handled, code := inspect(args, stdin, stdout, stderr); handled {
		return code
	}
	a, err := cli.Parse(args, cli.Grammar{NoPositionals: true, Flags: []cli.Flag{{Name: "quiet", Bool: true}, {Name: "rerun", Repeat: true}}})
	if a.Help {
		fmt.Fprint(stdout, usage)
		return exitcode.OK
	}
	var se *cli.SyntaxError
	if errors.As(err, &se) {
		msg := fmt.Sprintf("unexpected argument %q", se.Word)
		if se.Kind == cli.Missing {
			msg = "--rerun needs a reviewer name"
		}
		return cli.Exit(stderr, name, exitcode.WithUsage(msg, strings.TrimSuffix(usage, "\n")))
	}
	_, quiet := a.Value("quiet")
	// A CI job's signing key (lib/sign): read once, then gone from the
	// environment every reviewer and git process inherits.
	key, err := sign.KeyFromEnv(os.Getenv)
	sign.Unset()
	if err != nil {
		return cli.Exit(stderr, name, exitcode.New(exitcode.Config, "refused: "+err.Error()))
	}
	return cli.Exit(stderr, name, run(stdin, stdout, stderr, options{quiet: quiet, rerun: a.Values("rerun"), signKey: key}))
}
