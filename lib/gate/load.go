package gate

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/round"
)

// state is what reading a round folder gave.
type state int

const (
	published  state = iota // round.Load succeeded
	unfinished              // G29: stopped before recording findings
	unreadable              // G32: missing, not JSON, another schema, sha256 mismatch
)

// roundData is one round folder as read once by the gate.
type roundData struct {
	abs     string // absolute folder
	name    string // folder name
	state   state
	err     error // why unfinished or unreadable
	rec     *round.Record
	finds   *round.Findings
	ledger  []round.LedgerEntry
	waivers []round.Waiver
	// waiversErr is a waivers.jsonl that G32 does not accept.
	waiversErr error
	// byID indexes finds; last is the deciding ledger line per finding.
	byID map[string]*envelope.Finding
	last map[string]*round.LedgerEntry
}

func (r *roundData) dryRun() bool { return r.rec != nil && r.rec.DryRun }

// readRound reads a round folder: round.json, findings.json (by the sha256
// round.json names), ledger.jsonl and waivers.jsonl. It never fails: what
// went wrong is kept in the state.
func readRound(dir string) *roundData {
	d := &roundData{abs: dir, name: filepath.Base(dir)}
	rec, finds, err := round.Load(dir)
	d.rec = rec
	switch {
	case err == nil:
		d.state = published
	case errors.Is(err, round.ErrUnfinished) && (rec == nil || rec.FinishedAt == nil):
		d.state, d.err = unfinished, err
		return d
	default:
		// round.json says the round was published (finished_at) but
		// findings.json is missing or not the one it names: a hand edit, or
		// a re-recording caught between its writes (G32, G33). Either way
		// it is not a round that stopped before recording, so it is never
		// left out of the list silently.
		if errors.Is(err, round.ErrUnfinished) {
			err = errors.New(trimUnfinished(err))
		}
		d.state, d.err = unreadable, pathFree(err)
		return d
	}
	if rec.Name != d.name {
		// A round.json copied from another folder is not this round's record.
		d.state, d.err = unreadable, errors.New("round.json names the round "+quote(rec.Name)+", not its folder "+quote(d.name))
		return d
	}
	for i := range finds.Findings {
		if !knownClass(finds.Findings[i].Class) {
			d.state, d.err = unreadable, errors.New("findings.json: finding "+quote(finds.Findings[i].ID)+" has the class "+quote(finds.Findings[i].Class))
			return d
		}
	}
	led, err := round.ReadLedger(dir)
	if err != nil {
		d.state, d.err = unreadable, pathFree(err)
		return d
	}
	d.finds, d.ledger = finds, led
	d.waivers, _, d.waiversErr = round.ReadWaivers(dir)
	d.waiversErr = pathFreeOrNil(d.waiversErr)
	d.byID = make(map[string]*envelope.Finding, len(finds.Findings))
	for i := range finds.Findings {
		d.byID[finds.Findings[i].ID] = &finds.Findings[i]
	}
	d.last = make(map[string]*round.LedgerEntry, len(led))
	for i := range led {
		d.last[led[i].Finding] = &led[i]
	}
	return d
}

// pathFree drops the absolute path an *fs.PathError adds: the reason
// already names the round.
func pathFree(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		msg := err.Error()
		if i := strings.Index(msg, pe.Error()); i >= 0 {
			return errors.New(msg[:i] + pe.Err.Error())
		}
	}
	return err
}

func pathFreeOrNil(err error) error {
	if err == nil {
		return nil
	}
	return pathFree(err)
}

func knownClass(c string) bool {
	switch c {
	case "defect", "requirement-question", "hardening", "note":
		return true
	}
	return false
}

// readSeries reads every round of a series folder (its sub-folders holding
// a round.json, as round.ListRounds) and the listed folders that are not
// among them, in parallel, each once. The series' rounds come back in
// series order: started_at, then name.
func readSeries(series string, listed []string) (rounds []*roundData, extra map[string]*roundData) {
	var dirs []string
	if ents, err := os.ReadDir(series); err == nil {
		for _, e := range ents {
			if !e.IsDir() {
				continue
			}
			dir := filepath.Join(series, e.Name())
			if _, err := os.Lstat(filepath.Join(dir, round.RoundFile)); err != nil {
				continue // no round.json: not a round (spar-exec never started it)
			}
			dirs = append(dirs, dir)
		}
	}
	inSeries := make(map[string]bool, len(dirs))
	for _, d := range dirs {
		inSeries[d] = true
	}
	var extras []string
	for _, l := range listed {
		if !inSeries[l] {
			extras = append(extras, l)
		}
	}
	all := append(append([]string{}, dirs...), extras...)
	read := make([]*roundData, len(all))
	var wg sync.WaitGroup
	next := make(chan int)
	workers := runtime.GOMAXPROCS(0)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				read[i] = readRound(all[i])
			}
		}()
	}
	for i := range all {
		next <- i
	}
	close(next)
	wg.Wait()
	rounds = read[:len(dirs)]
	sort.SliceStable(rounds, func(i, j int) bool {
		a, b := startedAt(rounds[i]), startedAt(rounds[j])
		if a != b {
			return a < b
		}
		return rounds[i].abs < rounds[j].abs
	})
	extra = make(map[string]*roundData, len(extras))
	for i, l := range extras {
		extra[l] = read[len(dirs)+i]
	}
	return rounds, extra
}

func startedAt(r *roundData) string {
	if r.rec == nil {
		return ""
	}
	return r.rec.StartedAt
}
