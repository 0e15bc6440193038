package gate

import (
	"fmt"
	"path/filepath"

	"github.com/jaekit/spar/lib/gitx"

	"github.com/jaekit/spar/lib/round"
	"github.com/jaekit/spar/lib/sarif"
)

// Findings decides like Explain and also returns the listed, published
// rounds with their findings and the state the gate gave each: what every
// code-host rendering reads (the SARIF log, lib/codehost's formats). A
// round the gate could not read is not among them; the gate record's
// reasons name it.
func Findings(o Options) (*Report, []sarif.Round, error) {
	g := run(o)
	var rounds []sarif.Round
	maps := map[[2]string]*gitx.LineMap{}
	for _, l := range g.listed {
		r := l.gated()
		if r == nil {
			continue
		}
		rec, f, err := round.Load(r.abs)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %v", l.display, err)
		}
		sr := sarif.Round{
			Series:   filepath.Base(l.series.abs),
			Dir:      r.abs,
			Record:   rec,
			Findings: f.Findings,
			States:   g.sarifStates(r),
		}
		// A round of an earlier head: its lines as they read at the head
		// the gate checked (docs/pipeline.md "SARIF export").
		// The repository the gate found the series' commits in
		// (repository.go), not a path round.json recorded elsewhere.
		repo := l.series.repo
		if repo == "" {
			repo = rec.Repo
		}
		if h := l.series.head; h != "" && h != rec.Head && repo != "" {
			key := [2]string{rec.Head, h}
			m, done := maps[key]
			if !done {
				m, _ = gitx.NewLineMap(repo, rec.Head, h)
				maps[key] = m
			}
			if m != nil {
				sr.GatedHead, sr.Lines = h, m
			}
		}
		rounds = append(rounds, sr)
	}
	rep := g.report()
	rep.full = rounds
	return rep, rounds, nil
}

// sarifStates is the state the gate gave each finding of r, with Blocks
// set for the open ones it blocks on (judge): the one rule every code-host
// rendering shows as its error.
func (g *gate) sarifStates(r *roundData) map[string]sarif.State {
	m := g.states[r]
	for id, o := range g.open[r] {
		if st, ok := m[id]; ok && o.blocks && !st.Closed {
			st.Blocks = true
			m[id] = st
		}
	}
	return m
}

// Export decides like Explain and also returns the SARIF log of the listed,
// published rounds (docs/pipeline.md "SARIF export"): every finding with the
// state the gate gave it, so a closed finding is suppressed with its
// disposition as the justification.
func Export(o Options) (*Report, sarif.Log, error) {
	rep, rounds, err := Findings(o)
	if err != nil {
		return nil, sarif.Log{}, err
	}
	return rep, sarif.Export(rounds), nil
}
