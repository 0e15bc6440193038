package disposition

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/jaekit/spar/lib/round"
)

// WaiveRequest is one spar waive.
type WaiveRequest struct {
	Round     string
	Reviewer  string
	UserQuote string
}

// Waive appends one line to the round's waivers.jsonl under the series lock
// and returns it (G20, G30, G32).
func Waive(req WaiveRequest, stderr io.Writer) (round.Waiver, error) {
	// G30: waive without the user's words is refused; no record is needed
	// to see it, so it is refused before the lock.
	if !Given(req.UserQuote) {
		return round.Waiver{}, refuse("waive: --user-quote is missing or blank: a waiver needs the user's words")
	}
	if err := CheckText("waive", "user-quote", req.UserQuote); err != nil {
		return round.Waiver{}, err
	}
	dir, series, err := roundFolder("waive", req.Round)
	if err != nil {
		return round.Waiver{}, err
	}
	var w round.Waiver
	err = withLock(series, stderr, func() error {
		rec, _, err := loadPublished("waive", dir)
		if err != nil {
			return err
		}
		// G32: only spar waive and spar gate read waivers.jsonl; when it
		// exists every line must be a whole waiver.
		if _, _, err := round.ReadWaivers(dir); err != nil {
			return refuse("waive: round %q: %v", req.Round, err)
		}
		if rec.DryRun {
			return refuse("waive: round %q is a dry run: no reviewer ran, there is nothing to waive", req.Round)
		}
		// G20: literal comparison with the round's required reviewers
		// (configured_required of the applied configuration in round.json).
		preset, ok := "", false
		var names []string
		for _, r := range rec.Config.ConfiguredRequired {
			names = append(names, r.Name)
			if r.Name == req.Reviewer {
				preset, ok = r.Preset, true
			}
		}
		if !ok {
			return refuse("waive: %q is not a required reviewer of round %q (required: %s)", req.Reviewer, filepath.Base(dir), requiredList(names))
		}
		w = round.Waiver{Reviewer: req.Reviewer, Preset: preset, UserQuote: req.UserQuote, At: stamp()}
		pause()
		return appendRecord(filepath.Join(dir, round.WaiversFile), w)
	})
	return w, err
}

func requiredList(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}
