// Package sparclassify is spar-classify's command layer: it places every
// finding of the completed reviewers (G7 locations, G8 rule and contract
// links, G9 criterion links, G24 check paths) and classifies it by
// docs/review-round.md §6 (lib/classify). It
// reads the spar-pipe/v1 envelope on stdin (run and results) and writes it
// back on stdout with the findings key added.
package sparclassify

import (
	"errors"
	"fmt"
	"io"

	"github.com/jaekit/spar/lib/classify"
	"github.com/jaekit/spar/lib/exitcode"
	"github.com/jaekit/spar/stage/cli"
)

const usageText = `usage: spar-classify < envelope.json > envelope.json

Reads the spar-pipe/v1 envelope on stdin and writes it to stdout with
"findings" added: every finding of each completed reviewer, numbered
<reviewer>-F<n>, with its location (G7: path, lines, in_check_paths,
location_unreadable), its link (G8 rule/contract, G9 criterion: link_kind
and link when confirmed, claimed_link_kind and claimed_link as given,
link_fragment) and its class with class_reason (the rule and its facts).

It reads run.repo, run.base, run.head (one git ls-tree each),
run.check_paths, run.documents, run.criteria_ids and results. Every other
key passes through unchanged.

Flags:
  -h, --help   print this text and exit 0

Exit codes: 0 written; 64 usage error; 65 the envelope is empty, invalid or
names a repository or commit git cannot read (nothing written); 70 internal
error.

Example:
  spar-classify < check.json > classify.json
`

// Main runs spar-classify with the command line args and returns its exit
// code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return cli.Exit(stderr, "spar-classify", run(args, stdin, stdout))
}

func run(args []string, stdin io.Reader, stdout io.Writer) error {
	a, err := cli.Parse(args, cli.Grammar{NoPositionals: true})
	if a.Help {
		_, err := io.WriteString(stdout, usageText)
		return err
	}
	var se *cli.SyntaxError
	if errors.As(err, &se) {
		return exitcode.WithUsage(fmt.Sprintf("unknown argument %q", se.Word), usageText)
	}
	return classify.Stage(stdin, stdout)
}
