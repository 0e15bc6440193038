// Package series decides what a new round of a series counts for
// (docs/review-round.md §8.6): whether it is counted against its stage's cap, whether it is a
// rerun of an earlier counted round, which reviewers already completed that
// input, and whether the cap (plus extensions) refuses it. spar-exec calls
// Decide under the series lock (G33), after re-reading the records.
package series

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/round"
)

// Decision is the cap decision of a new round.
type Decision struct {
	// Cap is what round.json keeps as `cap`.
	Cap envelope.Cap
	// Completed maps a reviewer name to the name of the round of the same
	// input where it completed: a rerun runs only the other reviewers.
	Completed map[string]string
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
// Rounds that stopped before recording never count and never serve as the
// round a rerun repeats. An unreadable record is an error (G32).
func Decide(seriesDir, stage, base, head, packetSHA256 string, dryRun bool, caps envelope.Caps) (Decision, error) {
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
		if rerunOf == nil && sameInput(r.Record, stage, base, head, packetSHA256) {
			name := filepath.Base(r.Dir)
			rerunOf = &name
		}
	}
	if rerunOf != nil {
		d.Cap.RerunOf = rerunOf
		for _, r := range rounds {
			if !r.Finished || r.Record.DryRun || !sameInput(r.Record, stage, base, head, packetSHA256) {
				continue
			}
			for _, rv := range r.Record.Reviewers {
				if rv.Status != envelope.StatusCompleted {
					continue
				}
				if _, ok := d.Completed[rv.Name]; !ok {
					d.Completed[rv.Name] = filepath.Base(r.Dir)
				}
			}
		}
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

// ExtendCommand is the spar extend command that allows one more round of a
// stage (G31: a code extension needs --cause from the fixed list).
func ExtendCommand(seriesDir, stage string) string {
	cmd := "spar extend " + shellQuote(seriesDir) + " --stage " + stage + " --by 1"
	if stage == "code" {
		cmd += " --cause CAUSE (CAUSE: churn, recurring, unrelated, hardening or other; other needs --reason R)"
	}
	return cmd
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+=:,@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
