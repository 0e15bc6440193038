package gate

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/jaekit/spar/lib/round"
)

// seriesRounds is the round folders of a series folder in series order, as
// lib/round lists them (round.ListRounds: sub-folders holding a round.json,
// started_at, then name). Every listing of a series gated whole goes
// through here.
func seriesRounds(dir string) ([]string, error) {
	return round.ListRounds(dir)
}

// isSeries is a series as lib/round decides it (round.IsSeries: a folder
// that holds no record of a round itself, whose sub-folders hold rounds,
// and that holds no series; docs/review-gate.md §1). Any other path is a
// round folder, read as one (an empty or unreadable one is an unreadable
// round, G32).
func isSeries(dir string) bool { return round.IsSeries(dir) }

// checkFolder refuses a path the gate or status is given that does not
// exist ("no such folder": a mistyped path is no unreadable round) and a
// folder that holds series (round.SeriesIn: it is no series, and gating it
// would stand for none of them), naming the series inside and the command
// that takes one of them.
func checkFolder(cmd, dir string) error {
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return &RefusalError{fmt.Sprintf("%s: no such folder", quote(dir))}
	}
	held := round.SeriesIn(dir)
	if len(held) == 0 {
		return nil
	}
	names := make([]string, 0, 3)
	for i, h := range held {
		if i == 3 {
			names = append(names, fmt.Sprintf("and %d more", len(held)-3))
			break
		}
		names = append(names, quote(h))
	}
	what := "the series"
	if len(held) > 1 {
		what = fmt.Sprintf("%d series:", len(held))
	}
	return &RefusalError{fmt.Sprintf("%s holds %s %s, so it is no series itself (a series holds round folders); %s one series: spar %s %s",
		quote(dir), what, strings.Join(names, ", "), verbOf(cmd), cmd, shellQuote(held[0]))}
}

func verbOf(cmd string) string {
	if cmd == "gate" {
		return "gate"
	}
	return "show"
}

// removable reports whether advice may name dir for removal: a folder that
// holds other rounds or series never is (removing it would remove them).
func removable(dir string) bool {
	if rounds, err := round.Folders(dir); err == nil && len(rounds) > 0 {
		return false
	}
	return len(round.SeriesIn(dir)) == 0
}

// Targets splits the folders given to the gate into round folders and
// series folders (each gated whole, Options.Series). Mixing the two is an
// error that names the series folders: a series given among its rounds
// would list them twice, among another series' rounds it is a list the
// user did not mean.
func Targets(args []string) (rounds, series []string, err error) {
	for _, a := range args {
		if err := checkFolder("gate", a); err != nil {
			return nil, nil, err
		}
	}
	for _, a := range args {
		if isSeries(a) {
			series = append(series, a)
		} else {
			rounds = append(rounds, a)
		}
	}
	if len(series) > 0 && len(rounds) > 0 {
		quoted := make([]string, len(series))
		for i, s := range series {
			quoted[i] = quote(s)
		}
		what := "is a series folder"
		if len(series) > 1 {
			what = "are series folders"
		}
		return nil, nil, fmt.Errorf("%s %s, given among round folders (%s): give round folders, or series folders alone", strings.Join(quoted, ", "), what, quote(rounds[0]))
	}
	return rounds, series, nil
}

// Folders is every round folder the gate lists for rounds and series
// (Targets): the rounds, then each series' rounds. The --out and --sarif
// checks hold a path against them before the gate reads anything (G28).
func Folders(rounds, series []string) []string {
	out := append([]string{}, rounds...)
	for _, s := range series {
		// The same rounds as seriesRounds lists: a set to check
		// against, in no order.
		dirs, _ := round.Folders(s)
		out = append(out, dirs...)
	}
	return out
}

// listSeries lists every round of the series folder dir (after the rounds
// listed one by one, Options.Series).
func (g *gate) listSeries(dir string, bySeries map[string]*seriesData, seen map[string]bool) {
	display := filepath.Clean(dir)
	abs, err := filepath.Abs(display)
	if err != nil {
		abs = display
	}
	s := bySeries[abs]
	if s == nil {
		s = &seriesData{abs: abs, display: display}
		bySeries[abs] = s
		g.series = append(g.series, s)
	}
	s.whole = true
	dirs, err := seriesRounds(display)
	switch {
	case err != nil:
		s.listErr = pathFree(err).Error()
	case len(dirs) == 0:
		s.listErr = "no sub-folder holds a round.json"
	}
	for _, d := range dirs {
		rAbs := filepath.Join(abs, filepath.Base(d))
		l := &listedRound{given: d, display: filepath.Clean(d), abs: rAbs, series: s, dup: seen[rAbs]}
		seen[rAbs] = true
		s.listed = append(s.listed, l)
		g.listed = append(g.listed, l)
	}
}

// leaveOut drops from a series gated whole the rounds a gate list leaves
// out (G29: dry runs, rounds that stopped before recording findings), so
// that gating a series is gating the list G29 asks for. When every round is
// one of them, they stay listed: their reasons say what to run.
func (s *seriesData) leaveOut() {
	var kept []*listedRound
	for _, l := range s.listed {
		if r := l.data; r != nil && (r.state == unfinished || r.dryRun()) {
			continue
		}
		kept = append(kept, l)
	}
	if len(kept) == 0 {
		return
	}
	in := map[*listedRound]bool{}
	for _, l := range kept {
		in[l] = true
	}
	for _, l := range s.listed {
		l.left = !in[l]
	}
	s.listed = kept
}
