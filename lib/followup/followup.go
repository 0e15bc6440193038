// Package followup decides what a follow-up code round knows of its series
// (docs/review-round.md §2.4): the last reviewed head, the change since it
// (the part to attack first), and every finding of the earlier rounds with
// what was decided about it. spar-packet calls Prepare before the packet is
// written; spar-classify links repeats through the IDs it lists; the gate
// credits a follow-up round with the delta it reviewed (coverage).
package followup

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/gitx"
	"github.com/jaekit/spar/lib/packet"
	"github.com/jaekit/spar/lib/round"
)

// DiffLimit bounds the delta's diff in the packet (256 KiB): past it the
// packet says the diff is cut and the file list stays whole.
const DiffLimit = 256 << 10

// Stage is the only stage that gets follow-up packets.
const Stage = "code"

// Qualified is the ID a follow-up packet shows for a finding of an earlier
// round, and the one a reviewer gives to restate it: <round>/<finding>.
// Bare finding IDs (codex-F3) repeat across rounds and are what a reviewer
// may number its own findings with, so only the qualified form links.
func Qualified(roundName, finding string) string { return roundName + "/" + finding }

// Split is Qualified's inverse; ok is false for an ID without a round.
func Split(id string) (roundName, finding string, ok bool) {
	roundName, finding = round.SplitOf(id)
	return roundName, finding, roundName != "" && finding != ""
}

// earlierRound is one earlier round of the series as read.
type earlierRound struct {
	dir      string
	rec      *round.Record
	findings []envelope.Finding
	ledger   map[string]round.LedgerEntry
	waivers  []round.Waiver
	// ledgerUnreadable: ledger.jsonl does not read back (G32).
	ledgerUnreadable bool
}

// Prepare sets run.FollowUp and run.EarlierFindings for a code round whose
// series (run.Series) already has a published round, not a dry run, of the
// code stage with a completed review, other than the rounds of the same
// base and head (they are this round's own input: its reruns must get the
// same packet). full (spar run --full) leaves the packet a first round's.
// required are the reviewers the applied configuration requires (none:
// any reviewer counts).
//
// The records are read as they are when spar-packet runs (spar run takes
// the series lock only after the packet is built): an unreadable round is
// an error, as for the cap decision that would follow.
func Prepare(run *envelope.Run, required []envelope.RequiredReviewer, exclude []string, full bool) error {
	run.FollowUp, run.EarlierFindings, run.DeltaDiff, run.DeltaDiffCut = nil, nil, "", false
	if run.Stage != Stage || run.Series == "" {
		return nil
	}
	rounds, err := read(run.Series)
	if err != nil {
		return err
	}
	var earlier []*earlierRound
	for _, r := range rounds {
		if r.rec.DryRun || r.rec.Stage != Stage || r.rec.Base == run.Base && r.rec.Head == run.Head {
			continue
		}
		earlier = append(earlier, r)
	}
	anyCompleted := false
	var since *earlierRound
	for _, r := range earlier {
		if completedAny(r.rec) {
			anyCompleted = true
		}
		if reviewedByAll(r, required) {
			since = r
		}
	}
	if !anyCompleted {
		return nil
	}
	fu := &envelope.FollowUp{Delta: []envelope.Change{}, Earlier: []string{}}
	if full {
		// The first round's packet, said so in round.json.
		fu.Full = true
		run.FollowUp = fu
		return nil
	}
	if since != nil {
		fu.Since, fu.SinceRound = since.rec.Head, filepath.Base(since.dir)
		if since.rec.Head != run.Head {
			delta, _, err := packet.Changes(run.Repo, since.rec.Head, run.Head, run.CheckPaths, exclude)
			if err != nil {
				return err
			}
			fu.Delta = delta
			paths := make([]string, 0, len(delta)*2)
			for _, c := range delta {
				paths = append(paths, c.Path)
				if c.OldPath != "" {
					paths = append(paths, c.OldPath)
				}
			}
			if run.DeltaDiff, run.DeltaDiffCut, err = gitx.UnifiedDiff(run.Repo, since.rec.Head, run.Head, paths, DiffLimit); err != nil {
				return err
			}
		}
	}
	var shown []envelope.EarlierFinding
	for _, r := range earlier {
		name := filepath.Base(r.dir)
		for _, f := range r.findings {
			fu.Earlier = append(fu.Earlier, Qualified(name, f.ID))
			ef := envelope.EarlierFinding{Round: name, Finding: f.ID, Reviewer: f.Reviewer, Class: f.Class,
				Location: f.Location, Claim: f.Claim, Evidence: f.Evidence, RepeatOf: f.RepeatOf}
			if r.ledgerUnreadable {
				ef.Disposition = &envelope.Disposition{Kind: envelope.DispositionUnknown}
			} else if e, ok := r.ledger[f.ID]; ok {
				ef.Disposition = &envelope.Disposition{Kind: e.Disposition, Auto: e.Auto, Commit: e.Commit, Of: e.Of,
					Evidence: e.Evidence, To: e.To, UserQuote: e.UserQuote, FailedBefore: e.FailedBefore, PassedAfter: e.PassedAfter}
				if e.OfRound != "" && e.Of != "" {
					if _, _, q := Split(e.Of); !q {
						ef.Disposition.Of = Qualified(e.OfRound, e.Of)
					}
				}
				if e.Check != nil {
					ef.Disposition.Check = showCheck(run.Repo, r.dir, e.Check)
				}
			}
			shown = append(shown, ef)
		}
	}
	run.FollowUp, run.EarlierFindings = fu, shown
	return nil
}

// Check is spar-exec's, under the series lock: the follow-up the packet
// was built from (run.FollowUp) must be what the series gives now. A round
// recorded between spar-packet and the lock, or an envelope whose
// run.follow_up was edited, is refused: the reviewers would get a packet
// that does not list what the series holds (docs/trust.md).
//
// When it is, Check fills in what packet.md shows of the follow-up and the
// envelope does not carry (run.EarlierFindings, the earlier findings with
// the decisions their ledgers hold now; run.DeltaDiff, DeltaDiffCut), so
// that the packet can be built again from run and held to the one the
// envelope holds (packet.Verify): a decision recorded after the packet was
// built, or a packet whose text was edited, then differs.
func Check(run *envelope.Run, required []envelope.RequiredReviewer, exclude []string) error {
	now := *run
	full := run.FollowUp != nil && run.FollowUp.Full
	if err := Prepare(&now, required, exclude, full); err != nil {
		return err
	}
	got, want := run.FollowUp, now.FollowUp
	switch {
	case got == nil && want == nil:
		return nil
	case got == nil:
		return fmt.Errorf("the packet is not a follow-up, but the series has reviewed rounds (%d earlier findings): the series changed after the packet was built, or run.follow_up was removed from the envelope; run the round again", len(want.Earlier))
	case want == nil:
		return fmt.Errorf("the packet is a follow-up, but the series has no reviewed round to follow: run.follow_up does not come from this series; run the round again")
	case got.Full != want.Full || got.Since != want.Since || got.SinceRound != want.SinceRound || !slices.Equal(got.Earlier, want.Earlier) || !sameChanges(got.Delta, want.Delta):
		return fmt.Errorf("the packet's follow-up (since %q, %d earlier findings) is not what the series gives now (since %q, %d earlier findings): the series changed after the packet was built, or run.follow_up was edited; run the round again",
			got.SinceRound, len(got.Earlier), want.SinceRound, len(want.Earlier))
	}
	run.EarlierFindings, run.DeltaDiff, run.DeltaDiffCut = now.EarlierFindings, now.DeltaDiff, now.DeltaDiffCut
	return nil
}

func sameChanges(a, b []envelope.Change) bool {
	return slices.EqualFunc(a, b, func(x, y envelope.Change) bool { return x == y })
}

// read reads the published rounds of a series in order; rounds that
// stopped before recording or are being recorded are left out.
func read(series string) ([]*earlierRound, error) {
	dirs, err := round.ListRounds(series)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("series %s: %w", series, err)
	}
	var out []*earlierRound
	for _, d := range dirs {
		rec, fs, err := round.Load(d)
		if _, torn := round.Torn(err); torn || errors.Is(err, round.ErrUnfinished) || errors.Is(err, round.ErrRecording) {
			// Not published: it stopped before recording, or its
			// recording is in progress or was interrupted (the next
			// writer of the series finishes it under the lock, and
			// spar-exec's Check then sees it).
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("round %s: %w", d, err)
		}
		// G32 makes a round whose ledger or waivers do not read back
		// unreadable to the commands that write it and to the gate, not
		// to a new round of its series: the packet says the decisions are
		// unknown, and an unreadable waiver waives nothing.
		led, lerr := round.ReadLedger(d)
		last := map[string]round.LedgerEntry{}
		for _, e := range led {
			last[e.Finding] = e
		}
		ws, _, werr := round.ReadWaivers(d)
		if werr != nil {
			ws = nil
		}
		out = append(out, &earlierRound{dir: d, rec: rec, findings: fs.Findings, ledger: last, waivers: ws, ledgerUnreadable: lerr != nil})
	}
	return out, nil
}

// completedAny: a reviewer completed a review in the round, or kept one
// from the round of the same input (a rerun's not_run with completed_in).
func completedAny(rec *round.Record) bool {
	for _, rv := range rec.Reviewers {
		if rv.Status == envelope.StatusCompleted || rv.CompletedIn != nil {
			return true
		}
	}
	return false
}

// reviewedByAll: every required reviewer (same name and preset) completed
// a review in the round, kept one (a rerun), or was waived there; with no
// required reviewer, any reviewer completed.
func reviewedByAll(r *earlierRound, required []envelope.RequiredReviewer) bool {
	if len(required) == 0 {
		return completedAny(r.rec)
	}
	for _, req := range required {
		ok := false
		for _, rv := range r.rec.Reviewers {
			if rv.Name == req.Name && rv.Preset == req.Preset && (rv.Status == envelope.StatusCompleted || rv.CompletedIn != nil) {
				ok = true
			}
		}
		for _, w := range r.waivers {
			if w.Reviewer == req.Name && w.Preset == req.Preset {
				ok = true
			}
		}
		if !ok {
			return false
		}
	}
	return true
}
