package sparrecord

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/jaekit/spar/lib/disposition"
	"github.com/jaekit/spar/lib/exitcode"
	"github.com/jaekit/spar/lib/gate"
	"github.com/jaekit/spar/lib/summary"
)

// triageUsage is rendered from the disposition rules table
// (disposition.UsageTable), the one place that says what each disposition
// needs.
var triageUsage = `usage: spar triage ROUND FINDING --as DISPOSITION [options]

Records what happened to a finding (fixed, rejected, a duplicate, …):
appends one line to ROUND/ledger.jsonl and prints it. The last line for a
finding decides its disposition, and the gate counts the finding closed
only when that line holds what the table below asks for.

` + disposition.UsageTable() + `
A text that is empty after trimming counts as not given. --user-quote is
the user's words, as the user said them: an agent never writes its own.
Exit codes: 0 appended, 64 usage error, 65 refused (nothing written),
74 I/O error.

Verified fix claims (spar's own options):
  --check CMD          with --as fixed and --commit: spar runs the shell
                       command CMD (sh -c) in the fix-check sandbox, twice
                       on the round's head with the check files (what the
                       fix adds or changes under check_paths) taken from
                       the fix, where it must fail, and twice on the fix,
                       where it must pass; the line records both sides'
                       exit codes, durations and output digests, the
                       outputs go into ROUND/.checks/. Anything else
                       refuses the triage with both outputs' tails. CMD is
                       then also the --failed-before and --passed-after
                       text unless they are given.
  --allow-regression WORDS
                       the user's words that let the fix break the
                       project's check_command (.jaekit/spar.toml).

Example:
  spar triage reviews/login/code-1 rules-F1 --as fixed --commit HEAD \
    --check 'go test -run TestTokenCompare ./checks'
`

// runTriage is `spar-record triage ROUND FINDING --as D [options]`.
func runTriage(args []string, stdout, stderr io.Writer) error {
	flags := append([]string{"as", "check", "allow-regression"}, disposition.TriageOptions...)
	p, err := parseArgs("triage", args, flags)
	if p.help {
		fmt.Fprint(stdout, triageUsage)
		return nil
	}
	if err != nil {
		return usageError(err.Error(), triageUsage)
	}
	if len(p.pos) != 2 {
		return usageError(fmt.Sprintf("triage: want ROUND and FINDING, got %d arguments", len(p.pos)), triageUsage)
	}
	if !p.given["as"] {
		return usageError("triage: --as DISPOSITION is required", triageUsage)
	}
	opts := map[string]string{}
	for _, o := range disposition.TriageOptions {
		opts[o] = p.vals[o]
	}
	check := p.vals["check"]
	if p.given["check"] && disposition.Given(check) && p.vals["as"] == disposition.Fixed {
		// The check's command is what failed before and passes after,
		// unless the caller says more.
		for _, o := range []string{disposition.OptFailedBefore, disposition.OptPassedAfter} {
			if !p.given[o] {
				opts[o] = check
			}
		}
	}
	if p.given["check"] && check == "" {
		check = " "
	}
	// Ctrl-C stops a running check and records nothing.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	e, err := disposition.Triage(disposition.TriageRequest{
		Round: p.pos[0], Finding: p.pos[1], Disposition: p.vals["as"], Options: opts,
		Check: check, AllowRegression: p.vals["allow-regression"], Context: ctx,
		Verdict: func(dir string) (summary.Tally, error) { return gate.RoundVerdict(dir, nil) },
	}, stderr)
	return finish(stdout, e, err)
}

// finish prints the appended line, or passes on the error.
func finish(stdout io.Writer, line any, err error) error {
	if err != nil {
		return err
	}
	if err := disposition.Output(stdout, line); err != nil {
		return exitcode.New(exitcode.IO, "stdout: "+err.Error())
	}
	return nil
}
