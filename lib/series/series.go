// Package series decides what a new round of a series counts for
// (docs/review-round.md §8.6): whether it is counted against its stage's cap, whether it is a
// rerun of an earlier counted round, which reviewers already completed that
// input, and whether the cap (plus extensions) refuses it. spar-exec calls
// Decide under the series lock (G33), after re-reading the records.
package series

import (
	"errors"
	"fmt"
	"github.com/jaekit/spar/lib/escape"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/jaekit/spar/lib/config"
	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/round"
)

// Decision is the cap decision of a new round.
type Decision struct {
	// Cap is what round.json keeps as `cap`.
	Cap envelope.Cap
	// Completed maps a reviewer name to the name of the round of the same
	// input where it completed with the same applied entry
	// (config.ReviewerValue) and that --rerun does not name: a rerun runs
	// only the other reviewers.
	Completed map[string]string
	// Again maps the name of a reviewer that completed in a round of the
	// same input but runs again to why, for the progress line: "--rerun
	// (it completed in round code-1)", "its configuration changed since
	// round code-1 (argv)".
	Again map[string]string
	// Refusal is non-empty when a counted round would pass
	// cap + sum(extensions of the stage): the message names the stage, the
	// count, the limit and the `spar extend` command that would allow it.
	Refusal string
}

// CapKey maps a stage name (G31) to its key in config.caps.
func CapKey(stage string) (string, error) {
	switch stage {
	case "plan":
		return "plan", nil
	case "plan-delta":
		return "plan_delta", nil
	case "code":
		return "code", nil
	}
	return "", fmt.Errorf("stage %q is not plan, plan-delta or code", stage)
}

// CapOf returns the configured cap of a stage.
func CapOf(caps envelope.Caps, stage string) (int, error) {
	switch stage {
	case "plan":
		return caps.Plan, nil
	case "plan-delta":
		return caps.PlanDelta, nil
	case "code":
		return caps.Code, nil
	}
	return 0, fmt.Errorf("stage %q is not plan, plan-delta or code", stage)
}

// Round is one round of a series as the cap decision reads it.
type Round struct {
	Dir    string
	Record *round.Record
	// Finished is true for a published round (round.Load succeeded); false
	// for a round that stopped before recording findings (G29).
	Finished bool
}

// Rounds reads every round of a series in order (round.ListRounds). A
// missing series folder has no rounds. A round that stopped before
// recording is returned with Finished false; any other unreadable record is
// an error (G32: the command refuses).
func Rounds(seriesDir string) ([]Round, error) {
	dirs, err := round.ListRounds(seriesDir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("series %s: %w", seriesDir, err)
	}
	out := make([]Round, 0, len(dirs))
	for _, d := range dirs {
		rec, _, err := round.Load(d)
		switch {
		case err == nil:
			out = append(out, Round{Dir: d, Record: rec, Finished: true})
		case errors.Is(err, round.ErrUnfinished):
			out = append(out, Round{Dir: d, Record: rec, Finished: false})
		default:
			return nil, fmt.Errorf("round %s: %w", d, err)
		}
	}
	return out, nil
}

// Counted reports whether a round counts against its stage's cap: a
// published round that is not a dry run and whose decision counted it (a
// rerun is recorded with counted false).
func (r Round) Counted() bool {
	return r.Finished && !r.Record.DryRun && r.Record.Cap.Counted
}

// NoReviewerStarted is why a round the decision counted is recorded as not
// counted (Settle).
const NoReviewerStarted = "no reviewer could start"

// Settle is the cap a round is recorded with (docs/review-round.md §8.6,
// "A round in which no reviewer could start"): the decision made before
// the reviewers ran (Decide), except that a counted round in which no
// reviewer could start (every one NotStarted) is not counted: counted
// false, number kept (the count it would have had), not_counted saying
// why. spar-record settles at every recording, from the decision the
// envelope carries, so a re-recording gives the same cap: a settled cap
// whose round has a reviewer that started is counted again. Every reader
// of "is this round counted" (the next decision, the gate, cap-report,
// summary.md) reads the settled cap.counted and nothing else.
func Settle(c envelope.Cap, dryRun bool, rs []round.Reviewer) envelope.Cap {
	if dryRun || c.RerunOf != nil || (!c.Counted && c.NotCounted == nil) {
		return c
	}
	none := len(rs) > 0
	for _, r := range rs {
		none = none && NotStarted(r)
	}
	if none {
		c.Counted = false
		why := NoReviewerStarted
		c.NotCounted = &why
	} else {
		c.Counted = true
		c.NotCounted = nil
	}
	return c
}

// NotStarted reports whether a reviewer run of a round could not start a
// review: unavailable (G14's executable not found, a refusal, a CLI
// without credentials), with nothing of a model seen in any attempt: no
// tool or item kind, no model stated, no tokens or cost stated above zero
// (envelope.Usage.Spent). A reviewer refused
// after it had read files or spent tokens started.
func NotStarted(r round.Reviewer) bool {
	if r.Status != envelope.StatusUnavailable || len(r.Tools) > 0 || r.ObservedModel != nil {
		return false
	}
	for _, a := range r.Attempts {
		if a.ObservedModel != nil || a.Usage.Spent() {
			return false
		}
	}
	return true
}

// AddCapped adds two counts of 0 or more (caps, extensions' --by), stopping
// at the largest int instead of wrapping around: G31 accepts any --by of 1
// or more, and a sum that wrapped would turn a huge extension into a limit
// below the rounds already counted.
func AddCapped(a, b int) int {
	if b > 0 && a > math.MaxInt-b {
		return math.MaxInt
	}
	return a + b
}

// sameInput: same stage, base, head and packet_sha256 (docs/review-round.md §8.6; the
// standpoints are part of the packet, so of packet_sha256).
func sameInput(rec *round.Record, stage, base, head, packetSHA256 string) bool {
	return rec.Stage == stage && rec.Base == base && rec.Head == head && rec.PacketSHA256 == packetSHA256
}

// Decide makes the cap decision of a new round of the series seriesDir.
//
//   - A dry run is not counted and runs every reviewer.
//   - A round with the same stage, base, head and packet_sha256 as an
//     earlier counted round is a rerun of it: not counted, rerun_of names
//     that round, and Completed lists each reviewer that completed in a
//     published round of the same input (the counted one or its reruns).
//   - Otherwise the round is counted: number is one more than the counted
//     rounds of its stage, limit is the stage's cap plus its extensions, and
//     a number past the limit is refused with the spar extend command that
//     would allow it.
//
// A reviewer counts as completed there only when its applied entry in that
// round's record (config.reviewers) is the same as its entry in current,
// this round's applied reviewers (config.ReviewerValue: command, argv,
// preset, model, effort, …): a reviewer whose configuration was fixed
// reviews the same input again. A name in rerun (spar run --rerun) runs
// again whatever it completed; CheckRerun refused the names that are not
// among current before anything was written.
//
// With trusted not nil, a round it refuses (its error, the round folder
// given) serves no reviewer as a completed review: each runs again, with
// the error as why (review in CI: a round the job did not sign, lib/sign).
// Nor is it the round a rerun repeats: a counted round of the same input
// that trusted refuses leaves the new round counted, so that a rerun the
// job makes never hands the series' latest input to a round it did not
// make (docs/trust.md "Signed rounds").
//
// Rounds that stopped before recording never count and never serve as the
// round a rerun repeats. An unreadable record is an error (G32).
func Decide(seriesDir, stage, base, head, packetSHA256 string, dryRun bool, caps envelope.Caps, current []envelope.Reviewer, rerun []string, trusted func(roundDir string) error) (Decision, error) {
	key, err := CapKey(stage)
	if err != nil {
		return Decision{}, err
	}
	capN, _ := CapOf(caps, stage)
	rounds, err := Rounds(seriesDir)
	if err != nil {
		return Decision{}, err
	}
	exts, err := round.ReadExtensions(seriesDir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return Decision{}, fmt.Errorf("series %s: %w", seriesDir, err)
	}
	extended := 0
	for _, e := range exts {
		if e.Stage == stage {
			extended = AddCapped(extended, e.By)
		}
	}
	limit := AddCapped(capN, extended)
	d := Decision{
		Cap:       envelope.Cap{Stage: key, Limit: limit},
		Completed: map[string]string{},
		Again:     map[string]string{},
	}
	if dryRun {
		return d, nil
	}
	counted := 0
	var rerunOf *string
	for _, r := range rounds {
		if !r.Counted() || r.Record.Stage != stage {
			continue
		}
		counted++
		if rerunOf == nil && sameInput(r.Record, stage, base, head, packetSHA256) && (trusted == nil || trusted(r.Dir) == nil) {
			name := filepath.Base(r.Dir)
			rerunOf = &name
		}
	}
	if rerunOf != nil {
		d.Cap.RerunOf = rerunOf
		d.keep(rounds, stage, base, head, packetSHA256, current, rerun, trusted)
		return d, nil
	}
	d.Cap.Counted = true
	d.Cap.Number = counted + 1
	if d.Cap.Number > limit {
		d.Refusal = fmt.Sprintf("stage %q: this would be counted round %d and the limit is %d (cap %d + %d extended); to allow one more round run: %s",
			stage, d.Cap.Number, limit, capN, extended, ExtendCommand(seriesDir, stage))
	}
	return d, nil
}

// keep fills Completed and Again from the published rounds of the same
// input, in order: the first round where a reviewer completed with its
// current entry is the one it keeps.
func (d *Decision) keep(rounds []Round, stage, base, head, packetSHA256 string, current []envelope.Reviewer, rerun []string, trusted func(string) error) {
	cur := map[string]envelope.Reviewer{}
	for _, r := range current {
		cur[r.Name] = r
	}
	forced := map[string]bool{}
	for _, n := range rerun {
		forced[n] = true
	}
	for _, r := range rounds {
		if !r.Finished || r.Record.DryRun || !sameInput(r.Record, stage, base, head, packetSHA256) {
			continue
		}
		name := filepath.Base(r.Dir)
		entries := map[string]envelope.Reviewer{}
		for _, e := range r.Record.Config.Reviewers {
			entries[e.Name] = e
		}
		for _, rv := range r.Record.Reviewers {
			c, ok := cur[rv.Name]
			if rv.Status != "completed" || !ok {
				continue
			}
			if _, done := d.Completed[rv.Name]; done {
				continue
			}
			if forced[rv.Name] {
				if _, ok := d.Again[rv.Name]; !ok {
					d.Again[rv.Name] = fmt.Sprintf("--rerun (it completed in round %s)", name)
				}
				continue
			}
			if trusted != nil {
				if err := trusted(r.Dir); err != nil {
					if _, ok := d.Again[rv.Name]; !ok {
						d.Again[rv.Name] = err.Error()
					}
					continue
				}
			}
			e, ok := entries[rv.Name]
			var changed []string
			if !ok {
				changed = []string{"no entry in its record"}
			} else {
				changed = config.ReviewerChanges(e, c)
			}
			if len(changed) > 0 {
				if _, ok := d.Again[rv.Name]; !ok {
					d.Again[rv.Name] = fmt.Sprintf("its configuration changed since round %s (%s)", name, strings.Join(changed, ", "))
				}
				continue
			}
			d.Completed[rv.Name] = name
			delete(d.Again, rv.Name)
		}
	}
}

// CheckRerun returns an error for a --rerun name that is not one of the
// round's applied reviewers (compared literally, as G20 compares names
// outside the configuration): the refusal comes before anything is written.
func CheckRerun(rerun []string, current []envelope.Reviewer) error {
	var names []string
	for _, r := range current {
		names = append(names, r.Name)
	}
	for _, n := range rerun {
		found := false
		for _, c := range names {
			found = found || c == n
		}
		if !found {
			return fmt.Errorf("--rerun %q: not a reviewer of this round (its reviewers: %s)", n, strings.Join(names, ", "))
		}
	}
	return nil
}

// ExtendCommand is the spar extend command that allows one more round of a
// stage (G31: a code extension needs --cause from the fixed list).
func ExtendCommand(seriesDir, stage string) string {
	cmd := "spar extend " + shellQuote(seriesDir) + " --stage " + stage + " --by 1"
	if stage == "code" {
		cmd += " --cause CAUSE (CAUSE: churn, recurring, unrelated, hardening or other; other needs --reason R)"
	}
	return cmd
}

// shellQuote quotes s for a POSIX shell when it needs it (escape.Shell).
func shellQuote(s string) string { return escape.Shell(s) }
