package sparrecord

import (
	"fmt"
	"io"

	"github.com/jaekit/spar/lib/disposition"
)

const waiveUsage = `usage: spar waive ROUND --reviewer NAME --user-quote Q

Lets the gate pass without a review by the required reviewer NAME, in the
user's own words (say, when that reviewer's service is down): appends one
line {reviewer, preset, user_quote, at} to ROUND/waivers.jsonl and prints it.
NAME must be a required reviewer of that round, spelled as configured; Q is
what the user said, never the agent's words, and must not be blank.
Exit codes: 0 appended, 64 usage error, 65 refused (nothing written),
74 I/O error.

Example:
  spar waive reviews/login/code-1 --reviewer agy --user-quote 'agy is down today; go ahead without it'
`

// runWaive is `spar-record waive ROUND --reviewer NAME --user-quote Q`.
func runWaive(args []string, stdout, stderr io.Writer) error {
	p, err := parseArgs("waive", args, []string{"reviewer", "user-quote"})
	if p.help {
		fmt.Fprint(stdout, waiveUsage)
		return nil
	}
	if err != nil {
		return usageError(err.Error(), waiveUsage)
	}
	if len(p.pos) != 1 {
		return usageError(fmt.Sprintf("waive: want one ROUND, got %d arguments", len(p.pos)), waiveUsage)
	}
	if !p.given["reviewer"] {
		return usageError("waive: --reviewer NAME is required", waiveUsage)
	}
	w, err := disposition.Waive(disposition.WaiveRequest{
		Round: p.pos[0], Reviewer: p.vals["reviewer"], UserQuote: p.vals["user-quote"],
	}, stderr)
	return finish(stdout, w, err)
}
