package sparrecord

import (
	"fmt"
	"io"

	"github.com/jaekit/spar/lib/disposition"
)

const extendUsage = `usage: spar extend SERIES --stage plan|plan-delta|code --by N [--cause C] [--reason R]

Lets a series count N more rounds of a stage than its cap (the user's call,
when a change needs more reviewing): appends one line {stage, by, cause?,
reason?, at} to SERIES/extensions.jsonl and prints it.
  --by N       an integer of 1 or more
  --cause C    code only, required: churn, recurring, unrelated, hardening, other
  --reason R   code only; required when --by is 2 or more or --cause is other
SERIES must be ignored by every Git repository that contains it (e.g. by
reviews/ in .gitignore); it is created when it does not exist yet.
Exit codes: 0 appended, 64 usage error, 65 refused (nothing written),
74 I/O error.

Example:
  spar extend reviews/login --stage code --by 1 --cause churn
`

// runExtend is `spar-record extend SERIES --stage S --by N [--cause C] [--reason R]`.
func runExtend(args []string, stdout, stderr io.Writer) error {
	p, err := parseArgs("extend", args, []string{"stage", "by", "cause", "reason"})
	if p.help {
		fmt.Fprint(stdout, extendUsage)
		return nil
	}
	if err != nil {
		return usageError(err.Error(), extendUsage)
	}
	if len(p.pos) != 1 {
		return usageError(fmt.Sprintf("extend: want one SERIES, got %d arguments", len(p.pos)), extendUsage)
	}
	for _, f := range []string{"stage", "by"} {
		if !p.given[f] {
			return usageError(fmt.Sprintf("extend: --%s is required", f), extendUsage)
		}
	}
	if p.pos[0] == "" {
		return usageError("extend: SERIES is empty", extendUsage)
	}
	e, err := disposition.Extend(disposition.ExtendRequest{
		Series: p.pos[0], Stage: p.vals["stage"], By: p.vals["by"],
		Cause: p.vals["cause"], CauseGiven: p.given["cause"],
		Reason: p.vals["reason"], ReasonGiven: p.given["reason"],
	}, stderr)
	return finish(stdout, e, err)
}
