package gate

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/jaekit/spar/lib/convergence"
	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/round"
	"github.com/jaekit/spar/lib/sarif"
	"github.com/jaekit/spar/lib/summary"
)

// Pending is a round spar-record is recording (its records staged, not yet
// published): what RoundVerdict judges instead of the round's folder.
type Pending struct {
	Record   *round.Record
	Findings []envelope.Finding
	Ledger   []round.LedgerEntry
}

// RoundVerdict is the verdict line's tally of the round folder dir
// (docs/review-round.md §9): each class of its findings open and closed as
// the gate decides them now (docs/review-gate.md §3, against the repository's HEAD),
// and the open findings that block of the series' other rounds, so that a rerun does not read as clean while its series blocks.
// With pending, dir is a round being recorded and pending is its records.
//
// The gate owns what closes a finding: this runs its own judgement over
// every round of the series that G29 lists, and nothing else of the gate.
func RoundVerdict(dir string, pending *Pending) (summary.Tally, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return summary.Tally{}, err
	}
	g := &gate{rec: &Record{}, states: map[*roundData]map[string]sarif.State{}, tallyOnly: true}
	// verify_fixes is read from the head commit (fixcheck.go).
	defer g.closeTrees()
	if pending != nil {
		g.pending = pendingRound(abs, pending)
	}
	g.opts.Rounds = gatedRounds(filepath.Dir(abs), g.pending)
	g.collect()
	g.resolveHeads()
	var self *roundData
	for _, s := range g.series {
		g.findings(s)
		g.repeats(s)
		g.agentInputs(s)
		g.verifiedFixes(s)
		for _, l := range s.listed {
			if l.abs == abs && l.data != nil {
				self = l.data
			}
		}
	}
	if self == nil || self.state != published {
		why := "it is not a recorded round of its series"
		if self != nil && self.err != nil {
			why = self.err.Error()
		}
		return summary.Tally{}, fmt.Errorf("round %s: %s", filepath.Base(abs), why)
	}
	var t summary.Tally
	for _, s := range g.series {
		for _, l := range s.listed {
			r := l.gated()
			if r == nil {
				continue
			}
			open := 0
			for _, f := range r.finds {
				o, isOpen := g.open[r][f.ID]
				if r == self {
					if isOpen {
						t.Open.Add(f.Class)
					} else {
						t.Closed.Add(f.Class)
					}
					continue
				}
				if isOpen && o.blocks {
					open++
				}
			}
			if r != self && open > 0 {
				t.Others = append(t.Others, summary.RoundOpen{Round: r.name, Open: open})
			}
		}
	}
	// Findings that read like an earlier round's without saying so
	// (lib/convergence): the triage that links each open one.
	for _, s := range g.series {
		for _, p := range convergence.PossibleRepeats(convergenceRounds(s.rounds)) {
			if p.Round != self.name {
				continue
			}
			if _, isOpen := g.open[self][p.Finding]; !isOpen {
				continue
			}
			t.Possible = append(t.Possible, summary.Possible{Finding: p.Finding, Of: p.Of, Similarity: p.Similarity,
				Triage: "spar triage " + shellQuote(dir) + " " + shellQuote(p.Finding) + " --as duplicate --of " + shellQuote(p.Of)})
		}
	}
	return t, nil
}

// gatedRounds is every round folder of the series G29 asks the gate to
// list, in series order (readSeries, by round.Folders and round.Before):
// each round that is not a dry run and did not stop before recording
// (pending counts as recorded). spar status and the verdict line gate
// these; seriesRounds (series.go) is what `spar gate SERIES` lists.
func gatedRounds(series string, pending *roundData) []string {
	// Which rounds are listed depends on their heads alone: a round read
	// whole could only turn from published to unreadable, listed either way.
	rounds, _ := readSeries(series, nil, nil, false)
	var out []string
	for _, r := range rounds {
		if pending != nil && r.abs == pending.abs {
			r = pending
		}
		if r.state == unfinished || r.dryRun() {
			continue
		}
		out = append(out, r.abs)
	}
	return out
}

func pendingRound(abs string, p *Pending) *roundData {
	d := &roundData{abs: abs, name: filepath.Base(abs), rec: p.Record, ledger: p.Ledger, pending: true, findings: p.Findings}
	if p.Record == nil {
		d.state, d.err = unreadable, errors.New("no record")
		return d
	}
	d.state = published
	for i := range p.Findings {
		d.finds = append(d.finds, round.HeadOf(&p.Findings[i]))
	}
	d.byID = make(map[string]*finding, len(d.finds))
	for i := range d.finds {
		d.byID[d.finds[i].ID] = &d.finds[i]
	}
	d.last = make(map[string]*round.LedgerEntry, len(d.ledger))
	for i := range d.ledger {
		d.last[d.ledger[i].Finding] = &d.ledger[i]
	}
	return d
}
