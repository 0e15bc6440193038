package disposition

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/jaekit/spar/lib/atomic"
	"github.com/jaekit/spar/lib/exitcode"
	"github.com/jaekit/spar/lib/fixcheck"
	"github.com/jaekit/spar/lib/gitx"
	"github.com/jaekit/spar/lib/round"
)

// checkFlags holds --check and --allow-regression to their rule
// (docs/review-round.md "Verified fix claims"): --check goes with --as
// fixed and --commit; its command is the text --failed-before and
// --passed-after name when they are not given. Usage errors (64).
func checkFlags(req TriageRequest, rule Rule) error {
	if Given(req.AllowRegression) && !Given(req.Check) {
		return exitcode.New(exitcode.Usage, "triage: --allow-regression goes with --check")
	}
	if !Given(req.Check) {
		if req.Check != "" {
			return exitcode.New(exitcode.Usage, "triage: --check is empty: give the shell command that fails before the fix and passes after it")
		}
		return nil
	}
	if rule.Disposition != Fixed {
		return exitcode.New(exitcode.Usage, fmt.Sprintf("triage: --check does not apply to --as %s (only to --as fixed)", rule.Disposition))
	}
	if !Given(req.Options[OptCommit]) {
		return exitcode.New(exitcode.Usage, "triage: --check needs --commit REV, the fix it runs on")
	}
	if err := CheckText("triage", "check", req.Check); err != nil {
		return err
	}
	if strings.ContainsRune(req.Check, 0) {
		return exitcode.New(exitcode.Usage, "triage: --check holds a NUL byte")
	}
	return CheckText("triage", "allow-regression", req.AllowRegression)
}

// runCheck runs the check of a triage: the round's head and the fix are
// resolved and held to the line's rules first (a code round; a fix after
// its head), so that no check runs for a line that would be refused. A
// check that does not verify is a refusal with both outputs' tails.
func runCheck(req TriageRequest, dir string, stderr io.Writer) (*fixcheck.Result, error) {
	rec, _, err := loadPublished("triage", dir)
	if err != nil {
		return nil, err
	}
	if rec.Stage != "code" || rec.Head == "" {
		return nil, refuse("triage: --check needs a code round; round %q is a %s round", req.Round, rec.Stage)
	}
	fix, err := gitx.ResolveCommit(rec.Repo, req.Options[OptCommit])
	if err != nil {
		return nil, refuse("triage: --commit %q does not resolve to a commit in %q", req.Options[OptCommit], rec.Repo)
	}
	if in, err := gitx.IsAncestor(rec.Repo, fix, rec.Head); err != nil || in {
		// The line's own rule says it, under the lock.
		return nil, nil
	}
	ctx := req.Context
	if ctx == nil {
		ctx = context.Background()
	}
	res, err := fixcheck.Run(ctx, fixcheck.Request{Repo: rec.Repo, Head: rec.Head, Fix: fix, Command: req.Check,
		AllowRegression: text(req.AllowRegression), Environ: os.Environ(), Progress: stderr})
	if ctx.Err() != nil {
		return nil, exitcode.New(130, "triage: stopped while the check ran; nothing was recorded")
	}
	if err != nil {
		return nil, refuse("triage: --check could not run: %v", err)
	}
	if res.Refusal != "" {
		return nil, refuse("triage: --check %q does not verify the fix: %s\nNothing was recorded.", req.Check, res.Refusal)
	}
	return &res, nil
}

// writeCheck writes a verified check's outputs into the round's checks
// folder, <finding>-<n> (n the first number not taken), and returns the
// record with their paths in the round folder. The folder is staged and
// renamed into place: a crash leaves no half folder under its name (a
// folder that no line names is harmless).
func writeCheck(dir, finding string, res *fixcheck.Result) (*round.FixCheck, error) {
	if finding == "" || strings.ContainsAny(finding, "/\\") || strings.HasPrefix(finding, ".") {
		return nil, refuse("triage: finding %q cannot name a checks folder", finding)
	}
	parent := filepath.Join(dir, round.ChecksDir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, exitcode.New(exitcode.IO, "triage: "+err.Error())
	}
	name := ""
	for n := 1; ; n++ {
		cand := finding + "-" + strconv.Itoa(n)
		if _, err := os.Lstat(filepath.Join(parent, cand)); os.IsNotExist(err) {
			name = cand
			break
		}
	}
	stage, err := os.MkdirTemp(parent, ".tmp-")
	if err != nil {
		return nil, exitcode.New(exitcode.IO, "triage: "+err.Error())
	}
	for file, b := range res.Outputs {
		if err := atomic.WriteFile(filepath.Join(stage, file), b, 0o644); err != nil {
			os.RemoveAll(stage)
			return nil, exitcode.New(exitcode.IO, "triage: "+err.Error())
		}
	}
	if err := os.Rename(stage, filepath.Join(parent, name)); err != nil {
		os.RemoveAll(stage)
		return nil, exitcode.New(exitcode.IO, "triage: "+err.Error())
	}
	c := res.Check
	prefix := round.ChecksDir + "/" + name + "/"
	for _, r := range []*[]round.CheckRun{&c.Before, &c.After} {
		runs := append([]round.CheckRun(nil), (*r)...)
		for i := range runs {
			runs[i].Output = prefix + runs[i].Output
		}
		*r = runs
	}
	if c.Regression != nil {
		g := *c.Regression
		g.AtHead.Output = prefix + g.AtHead.Output
		if g.AtFix.Output != "" {
			g.AtFix.Output = prefix + g.AtFix.Output
		}
		c.Regression = &g
	}
	return &c, nil
}
