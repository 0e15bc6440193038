// Command spar-classify places every finding of the completed reviewers
// (G7 locations, G8 rule and contract links, G9 criterion links, G24 check
// paths) and classifies it by docs/review-round.md §6.1, the unreadable
// locations included. It reads the spar-pipe/v1 envelope on stdin (run and results)
// and writes it back on stdout with the findings key added.
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/jaekit/spar/lib/classify"
	"github.com/jaekit/spar/lib/exitcode"
	"github.com/jaekit/spar/lib/pipe"
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

func main() {
	pipe.Exit("classify", run(os.Args[1:], os.Stdin, os.Stdout))
}

func run(args []string, stdin io.Reader, stdout io.Writer) error {
	for _, a := range args {
		if a == "-h" || a == "--help" || a == "-help" {
			_, err := io.WriteString(stdout, usageText)
			return err
		}
	}
	if len(args) > 0 {
		return exitcode.New(exitcode.Usage, fmt.Sprintf("spar-classify: unknown argument %q\n%s", args[0], usageText))
	}
	return classify.Stage(stdin, stdout)
}
