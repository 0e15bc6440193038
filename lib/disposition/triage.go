package disposition

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/jaekit/spar/lib/atomic"
	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/exitcode"
	"github.com/jaekit/spar/lib/fixcheck"
	"github.com/jaekit/spar/lib/gitx"
	"github.com/jaekit/spar/lib/round"
	"github.com/jaekit/spar/lib/summary"
)

// TriageRequest is one spar triage: the round folder, the finding ID, the
// disposition and its text options keyed by flag name (TriageOptions).
type TriageRequest struct {
	Round       string
	Finding     string
	Disposition string
	Options     map[string]string
	// Check is the command of --check ("" when not given): spar runs it
	// before and after the fix (lib/fixcheck) and records it with the
	// line; AllowRegression is --allow-regression's user's words.
	Check           string
	AllowRegression string
	// Context stops a running check (Ctrl-C); nil is Background.
	Context context.Context
	// Verdict is the gate's open and closed counts of the round with the
	// line just appended, for summary.md's verdict line (the gate is their
	// owner; the stage layer passes gate.RoundVerdict, since the gate asks
	// this package what closes a finding). nil, or an error: the line
	// claims neither.
	Verdict func(dir string) (summary.Tally, error)
}

func refuse(format string, a ...any) error {
	return exitcode.New(exitcode.Config, fmt.Sprintf(format, a...))
}

// roundFolder checks that dir is a folder before the lock is taken, so that
// a mistyped round never creates a lock file in a folder that is no series.
func roundFolder(cmd, dir string) (clean, series string, err error) {
	clean = filepath.Clean(dir)
	fi, err := os.Stat(clean)
	if err != nil || !fi.IsDir() {
		return "", "", refuse("%s: round %q is not a round folder", cmd, dir)
	}
	return clean, filepath.Dir(clean), nil
}

// loadPublished reads a round that was recorded (G29, G32): anything else
// is refused, naming the round and what is wrong.
func loadPublished(cmd, dir string) (*round.Record, *round.Findings, error) {
	rec, f, err := round.Load(dir)
	if err != nil {
		return nil, nil, refuse("%s: round %q: %v", cmd, dir, err)
	}
	return rec, f, nil
}

// Triage appends one ledger line to the round's ledger.jsonl under the
// series lock and returns it. Usage errors (64) come before any file is
// touched; every refusal (65) writes nothing.
func Triage(req TriageRequest, stderr io.Writer) (round.LedgerEntry, error) {
	rule, err := CheckOptions(req.Disposition, req.Options)
	if err != nil {
		return round.LedgerEntry{}, err
	}
	if err := checkFlags(req, rule); err != nil {
		return round.LedgerEntry{}, err
	}
	dir, series, err := roundFolder("triage", req.Round)
	if err != nil {
		return round.LedgerEntry{}, err
	}
	// A check runs before the lock is taken (it may take minutes); the
	// line's own checks run again under it.
	var check *fixcheck.Result
	if Given(req.Check) {
		if check, err = runCheck(req, dir, stderr); err != nil {
			return round.LedgerEntry{}, err
		}
	}
	var entry round.LedgerEntry
	err = withLock(series, stderr, func() error {
		// G33: the records are read only now that the lock is held.
		rec, fs, err := loadPublished("triage", dir)
		if err != nil {
			return err
		}
		if _, err := round.ReadLedger(dir); err != nil {
			return refuse("triage: round %q: %v", req.Round, err)
		}
		// G30: the finding ID is literally an id of this round's findings.json.
		f, ok := findingByID(fs, req.Finding)
		if !ok {
			return refuse("triage: finding %q is not in round %q%s", req.Finding, req.Round, idList(fs))
		}
		if err := CheckFinding(rule, f, rec.Stage, req.Options); err != nil {
			return err
		}
		e := round.LedgerEntry{Finding: f.ID, Disposition: rule.Disposition}
		o := req.Options
		if Given(o[OptCommit]) {
			// G27: a revision Git resolves to a commit, recorded as its full ID.
			id, err := gitx.ResolveCommit(rec.Repo, o[OptCommit])
			if err != nil {
				return refuse("triage: --commit %q does not resolve to a commit in %q", o[OptCommit], rec.Repo)
			}
			e.Commit = id
			// docs/review-round.md §8.2: fixed names the commit that fixes the finding. The
			// head the round reviewed still has the finding, so neither it nor
			// any commit it contains can be that fix (an agent that forgot to
			// commit its fix and gave --commit HEAD would otherwise close an
			// open defect).
			if rule.Disposition == Fixed && rec.Head != "" {
				in, err := gitx.IsAncestor(rec.Repo, id, rec.Head)
				if err != nil {
					return refuse("triage: --commit %q: %v", o[OptCommit], err)
				}
				if in {
					return refuse("triage: --commit %q (%s) is already in the head round %q reviewed (%s); a fix is a commit after it", o[OptCommit], id, req.Round, rec.Head)
				}
			}
		}
		if Given(o[OptOf]) {
			ofRound, ofID, err := resolveOf(series, dir, rec, fs, f.ID, o[OptOf])
			if err != nil {
				return err
			}
			// A repeat restates an earlier finding and says why the
			// decision on it does not hold: a duplicate of that finding
			// carries that decision back, and spar gate counts it closed
			// never (docs/review-gate.md 9r). Said here, before the line is
			// written.
			if rp := f.RepeatOf; rp != nil && rp.Round == ofRound && rp.Finding == ofID {
				return refuse("triage: --of %q: finding %q repeats %s/%s, saying why the decision on it does not hold; a repeat is not a duplicate of the finding it restates: triage it as a new finding", o[OptOf], f.ID, rp.Round, rp.Finding)
			}
			// of stays as given: spar gate resolves it by the same rule;
			// of_round says where this rule found it.
			e.Of, e.OfRound = o[OptOf], ofRound
		}
		e.Evidence = text(o[OptEvidence])
		e.To = text(o[OptTo])
		e.UserQuote = text(o[OptUserQuote])
		e.FailedBefore = text(o[OptFailedBefore])
		e.PassedAfter = text(o[OptPassedAfter])
		if check != nil {
			if check.Check.Fix != e.Commit {
				return refuse("triage: --commit %q is %s now, not the commit the check ran on (%s): run the triage again", o[OptCommit], e.Commit, check.Check.Fix)
			}
			c, err := writeCheck(dir, f.ID, check)
			if err != nil {
				return err
			}
			e.Check = c
		}
		e.At = stamp()
		pause()
		if err := appendRecord(filepath.Join(dir, round.LedgerFile), e); err != nil {
			return err
		}
		entry = e
		// summary.md shows each finding's disposition (docs/review-round.md §9): it is
		// rendered again from the records, under the same lock. The ledger
		// line is the record; a crash before this leaves an older summary.
		return rewriteSummary(dir, rec, fs, req.Verdict)
	})
	return entry, err
}

// text keeps a given text as received; one that counts as not given (G30)
// is not recorded.
func text(s string) string {
	if !Given(s) {
		return ""
	}
	return s
}

func findingByID(fs *round.Findings, id string) (envelope.Finding, bool) {
	for _, f := range fs.Findings {
		if f.ID == id {
			return f, true
		}
	}
	return envelope.Finding{}, false
}

// resolveOf finds the finding --of names by round.ResolveOf, the rule
// spar gate follows it by: ID (this round first, then the earlier rounds of
// the series, newest first) or ROUND/ID (that round, which is this round or
// an earlier one). A finding is never a duplicate of itself.
func resolveOf(series, dir string, rec *round.Record, fs *round.Findings, self, of string) (string, string, error) {
	here := filepath.Base(dir)
	wantRound, id := round.SplitOf(of)
	query := of
	if wantRound != "" && wantRound == rec.Name {
		// round.json's name for this round names it too.
		query = here + "/" + id
	}
	dirs := map[string]string{}
	earlier := func() ([]string, error) {
		all, err := earlierRounds(series, dir)
		if err != nil {
			return nil, err
		}
		names := make([]string, len(all))
		for i, d := range all {
			names[i] = filepath.Base(d)
			dirs[names[i]] = d
		}
		return names, nil
	}
	has := func(name, id string) (bool, error) {
		if name == here {
			if id == self {
				return false, refuse("triage: --of %q: a finding is not a duplicate of itself", of)
			}
			_, ok := findingByID(fs, id)
			return ok, nil
		}
		_, efs, err := round.Load(dirs[name])
		if errors.Is(err, round.ErrUnfinished) {
			// A round that stopped before recording has no findings (G29).
			return false, nil
		}
		if err != nil {
			return false, refuse("triage: --of %q: round %q of the series: %v", of, name, err)
		}
		_, ok := findingByID(efs, id)
		return ok, nil
	}
	name, err := round.ResolveOf(query, here, earlier, has)
	switch {
	case err != nil:
		return "", "", err
	case name != "":
		return name, id, nil
	case wantRound != "" && (wantRound == here || wantRound == rec.Name):
		return "", "", refuse("triage: --of %q: finding %q is not in round %q", of, id, wantRound)
	case wantRound != "":
		return "", "", refuse("triage: --of %q: round %q is not this round or an earlier round of the series with finding %q", of, wantRound, id)
	}
	return "", "", refuse("triage: --of %q is not a finding of this round or of an earlier round of the series", of)
}

// earlierRounds lists the rounds of the series before dir, in series order
// (round.ListRounds: started_at, then name). Only a duplicate reads them.
func earlierRounds(series, dir string) ([]string, error) {
	all, err := round.ListRounds(series)
	if err != nil {
		return nil, refuse("triage: series %q: %v", series, err)
	}
	// An unreadable round.json leaves its place in the series unknown, so
	// no round can be said to be earlier or later than it (G32).
	for _, d := range all {
		if _, err := round.ReadRecord(d); err != nil {
			return nil, refuse("triage: round %q of the series: %v", filepath.Base(d), err)
		}
	}
	self := filepath.Base(dir)
	for i, d := range all {
		if filepath.Base(d) == self {
			return all[:i], nil
		}
	}
	return nil, refuse("triage: round %q is not a round of series %q", dir, series)
}

// rewriteSummary renders summary.md from round.json, findings.json and the
// ledger as they are now.
func rewriteSummary(dir string, rec *round.Record, fs *round.Findings, verdict func(string) (summary.Tally, error)) error {
	ledger, err := round.ReadLedger(dir)
	if err != nil {
		return refuse("triage: %v", err)
	}
	// The verdict line's open and closed counts are the gate's decision
	// with the line just appended (docs/review-round.md §9); when the gate
	// cannot judge the round the line claims neither.
	var tally *summary.Tally
	if verdict != nil {
		if t, err := verdict(dir); err == nil {
			tally = &t
		}
	}
	path := filepath.Join(dir, round.SummaryFile)
	if err := atomic.WriteFile(path, summary.Render(rec, fs.Findings, ledger, tally), 0o644); err != nil {
		return exitcode.New(exitcode.IO, fmt.Sprintf("triage: %s: %v", path, err))
	}
	return nil
}

// idList names the findings a round has, for a refusal of an ID it does
// not have: the user sees what to type instead.
func idList(fs *round.Findings) string {
	if fs == nil || len(fs.Findings) == 0 {
		return " (it has no findings)"
	}
	ids := make([]string, 0, len(fs.Findings))
	for _, f := range fs.Findings {
		ids = append(ids, f.ID)
	}
	const most = 20
	if len(ids) > most {
		return fmt.Sprintf(" (its findings: %s and %d more)", strings.Join(ids[:most], ", "), len(ids)-most)
	}
	return " (its findings: " + strings.Join(ids, ", ") + ")"
}
