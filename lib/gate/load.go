package gate

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/jaekit/spar/lib/round"
	"github.com/tidwall/gjson"
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
	abs   string // absolute folder
	name  string // folder name
	state state
	err   error // why unfinished or unreadable
	rec   *round.Record
	finds []finding
	// findingsRaw is findings.json's bytes (verified against
	// findings_sha256): the re-derivation compares them (trust.go).
	findingsRaw []byte
	// full: rec is round.json read whole (fullRecord), not only the
	// fields every round needs (readHead).
	full    bool
	ledger  []round.LedgerEntry
	waivers []round.Waiver
	// waiversErr is a waivers.jsonl that G32 does not accept.
	waiversErr error
	// byID indexes finds; last is the deciding ledger line per finding.
	byID map[string]*finding
	last map[string]*round.LedgerEntry
}

// dryRun: a round.json that says dry run but does not read as one (G32) is
// unreadable, not a dry run to leave out.
func (r *roundData) dryRun() bool { return r.rec != nil && r.rec.DryRun && r.state != unreadable }

// finding is what the gate reads of a finding: findings.json keeps every
// field (envelope.Finding), the decision needs only these.
type finding struct {
	ID                 string
	Class              string
	LocationUnreadable bool // G32: absent means the location was read
	// CheckPath and CommittedClass: the check path glob the location
	// matched and the class by the committed check paths alone ("" in
	// records written before them; docs/trust.md).
	CheckPath      string
	CommittedClass string
}

// readRound reads a round folder: round.json, findings.json (by the sha256
// round.json names), ledger.jsonl and waivers.jsonl. It never fails: what
// went wrong is kept in the state.
//
// Publication is round.Load's rule, applied here so that findings.json is
// read once and only the three fields the gate needs are taken from it
// (gjson over the verified bytes: the 1,000-round benchmark spends most of
// its time in full decoding otherwise). round.json has finished_at and
// findings_sha256 (else: stopped before recording, G29); findings.json has
// that sha256 and is one review-round/v1 object (else: unreadable, G32).
func readRound(dir string) *roundData {
	d := &roundData{abs: dir, name: filepath.Base(dir)}
	rec, err := readHead(dir)
	if err != nil {
		d.state, d.err = unreadable, pathFree(err)
		return d
	}
	d.rec = rec
	if rec.FinishedAt == nil || rec.FindingsSHA256 == nil {
		// DESIGN.md §14.4: a recording in progress or interrupted (its
		// staged writes in .recording/) is unreadable until the next writer
		// of the series finishes it; never left out like a round that
		// stopped before recording.
		if _, err := os.Lstat(filepath.Join(dir, round.RecordingDir)); err == nil {
			d.state, d.err = unreadable, round.ErrRecording
			return d
		}
		// G29: a round that stopped before recording has neither
		// finished_at nor findings.json. With findings.json it is a round
		// whose round.json lost finished_at (by hand, or a recording caught
		// between its writes): unreadable, never silently left out (G32).
		if _, err := os.Lstat(filepath.Join(dir, round.FindingsFile)); err == nil {
			d.state, d.err = unreadable, errors.New("round.json has no finished_at, but findings.json exists (a round that stopped before recording has neither)")
			return d
		}
		d.state, d.err = unfinished, fmt.Errorf("%w (round.json has no finished_at)", round.ErrUnfinished)
		return d
	}
	// From here on round.json says the round was published: a findings.json
	// that is missing or not the one it names is a hand edit, or a
	// re-recording caught between its writes (G32, G33). Either way it is
	// not a round that stopped before recording, so it is never left out of
	// the list silently.
	b, err := round.ReadFile(filepath.Join(dir, round.FindingsFile))
	if errors.Is(err, fs.ErrNotExist) {
		d.state, d.err = unreadable, errors.New("findings.json is missing")
		return d
	}
	if err != nil {
		d.state, d.err = unreadable, pathFree(fmt.Errorf("%s: %w", round.FindingsFile, err))
		return d
	}
	if got := round.SHA256(b); got != *rec.FindingsSHA256 {
		d.state, d.err = unreadable, fmt.Errorf("findings.json has sha256 %s, round.json names %s", got, *rec.FindingsSHA256)
		return d
	}
	if rec.Name != d.name {
		// A round.json copied from another folder is not this round's record.
		d.state, d.err = unreadable, errors.New("round.json names the round "+quote(rec.Name)+", not its folder "+quote(d.name))
		return d
	}
	finds, err := parseFindings(b)
	if err != nil {
		d.state, d.err = unreadable, err
		return d
	}
	if got := countClasses(finds); got != rec.Counts {
		// spar-record writes counts from the same findings: a findings.json
		// edited along with findings_sha256 still disagrees with them.
		d.state, d.err = unreadable, fmt.Errorf("findings.json holds %s, round.json counts %s", countText(got), countText(rec.Counts))
		return d
	}
	if rec.DryRun {
		// A dry run starts no reviewer (no workspace), finds nothing and is
		// never counted: round.json saying otherwise was edited by hand to
		// leave the round out of the gate (G29, G32).
		var not []string
		if _, err := os.Lstat(filepath.Join(dir, round.WorkspaceDir)); err == nil {
			not = append(not, "has a workspace")
		}
		if n := len(finds); n > 0 {
			not = append(not, fmt.Sprintf("counts %d finding%s", n, map[bool]string{true: "", false: "s"}[n == 1]))
		}
		if rec.Cap.Counted {
			not = append(not, "is counted")
		}
		if len(not) > 0 {
			d.state, d.err = unreadable, errors.New("round.json says dry run, but the round "+joinAnd(not))
			return d
		}
	}
	led, err := readLedger(dir)
	if err != nil {
		d.state, d.err = unreadable, pathFree(err)
		return d
	}
	d.state = published
	d.finds, d.ledger, d.findingsRaw = finds, led, b
	d.waivers, _, d.waiversErr = round.ReadWaivers(dir)
	d.waiversErr = pathFreeOrNil(d.waiversErr)
	d.byID = make(map[string]*finding, len(finds))
	for i := range finds {
		d.byID[finds[i].ID] = &finds[i]
	}
	d.last = make(map[string]*round.LedgerEntry, len(led))
	for i := range led {
		d.last[led[i].Finding] = &led[i]
	}
	return d
}

func joinAnd(list []string) string {
	if len(list) < 2 {
		return strings.Join(list, "")
	}
	return strings.Join(list[:len(list)-1], ", ") + " and " + list[len(list)-1]
}

func countClasses(finds []finding) round.Counts {
	var c round.Counts
	for _, f := range finds {
		c.Add(f.Class)
	}
	return c
}

func countText(c round.Counts) string {
	return fmt.Sprintf("%d defect, %d requirement-question, %d hardening, %d note", c.Defect, c.RequirementQuestion, c.Hardening, c.Note)
}

// parseFindings takes id, class and location_unreadable of each finding of
// a findings.json (G32: one JSON object of the review-round/v1 schema; a
// class outside the four is not a record spar wrote).
func parseFindings(b []byte) ([]finding, error) {
	if !gjson.ValidBytes(b) {
		return nil, errors.New("findings.json: not JSON")
	}
	doc := gjson.Parse(view(b))
	if !doc.IsObject() {
		return nil, errors.New("findings.json: not a JSON object")
	}
	if sc := doc.Get("schema"); sc.Type != gjson.String || sc.Str != round.Schema {
		return nil, fmt.Errorf("findings.json: schema %s, want %q", sc.Raw, round.Schema)
	}
	list := doc.Get("findings")
	if !list.IsArray() {
		return nil, errors.New("findings.json: findings is not an array")
	}
	var out []finding
	var bad error
	list.ForEach(func(_, f gjson.Result) bool {
		if !f.IsObject() {
			bad = errors.New("findings.json: a finding that is not an object")
			return false
		}
		// One pass over the finding's members (id, class and
		// location_unreadable are spread through it).
		var id, class, lu, cp, cc gjson.Result
		f.ForEach(func(k, v gjson.Result) bool {
			switch k.Str {
			case "id":
				id = v
			case "class":
				class = v
			case "location_unreadable":
				lu = v
			case "check_path":
				cp = v
			case "committed_class":
				cc = v
			}
			return true
		})
		switch {
		case id.Type != gjson.String:
			bad = errors.New("findings.json: a finding without an id")
		case class.Type != gjson.String || !knownClass(class.Str):
			bad = fmt.Errorf("findings.json: finding %q has the class %s", id.Str, class.Raw)
		case lu.Exists() && lu.Type != gjson.True && lu.Type != gjson.False:
			bad = fmt.Errorf("findings.json: finding %q: location_unreadable is %s", id.Str, lu.Raw)
		case cp.Exists() && cp.Type != gjson.String:
			bad = fmt.Errorf("findings.json: finding %q: check_path is %s", id.Str, cp.Raw)
		case cc.Exists() && (cc.Type != gjson.String || cc.Str != "" && !knownClass(cc.Str)):
			bad = fmt.Errorf("findings.json: finding %q has the committed_class %s", id.Str, cc.Raw)
		}
		if bad != nil {
			return false
		}
		out = append(out, finding{ID: id.Str, Class: class.Str, LocationUnreadable: lu.Type == gjson.True, CheckPath: cp.Str, CommittedClass: cc.Str})
		return true
	})
	return out, bad
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
			// A symbolic link to a folder is read as the folder: a round
			// moved away behind a link is still a round of the series.
			dir := filepath.Join(series, e.Name())
			if !holdsRecord(dir) {
				continue // no record: not a round (spar-exec never wrote round.json)
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
				r := readRound(all[i])
				if r.state == published && !r.rec.DryRun {
					// Every published round is re-derived (trust.go):
					// its round.json is read whole.
					fullRecord(r)
				}
				read[i] = r
			}
		}()
	}
	for i := range all {
		next <- i
	}
	close(next)
	wg.Wait()
	rounds = read[:len(dirs)]
	foreignRounds(series, dirs, rounds)
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

// holdsRecord reports whether dir is a folder holding round.json or a record
// spar writes only after it (G29, G32): a folder whose round.json is gone
// but whose findings, ledger, summary or waivers remain is an unreadable
// round of the series, never a folder that is no round.
func holdsRecord(dir string) bool {
	for _, f := range []string{round.RoundFile, round.FindingsFile, round.LedgerFile, round.SummaryFile, round.WaiversFile} {
		if _, err := os.Lstat(filepath.Join(dir, f)); err == nil {
			return true
		}
	}
	return false
}

// foreignRounds marks unreadable each round whose round.json names another
// series (spar-exec records the series' real path) that still exists and
// holds rounds this folder lacks: a round copied or linked out of its series
// would make a series of its own that leaves the other rounds out (G29,
// G32). A series moved or copied whole keeps every round name and is read
// as it is.
func foreignRounds(series string, dirs []string, rounds []*roundData) {
	real := series
	if abs, err := filepath.Abs(series); err == nil {
		if r, err := filepath.EvalSymlinks(abs); err == nil {
			real = r
		}
	}
	here := make(map[string]bool, len(dirs))
	for _, d := range dirs {
		here[filepath.Base(d)] = true
	}
	lacks := map[string]string{} // recorded series → a round name not here ("" when none)
	for _, r := range rounds {
		if r.rec == nil || r.rec.Series == "" || filepath.Clean(r.rec.Series) == real {
			continue
		}
		other := filepath.Clean(r.rec.Series)
		missing, seen := lacks[other]
		if !seen {
			if names, err := round.ListRounds(other); err == nil {
				for _, n := range names {
					if !here[filepath.Base(n)] {
						missing = filepath.Base(n)
						break
					}
				}
			}
			lacks[other] = missing
		}
		if missing != "" {
			r.state, r.err = unreadable, errors.New("round.json names the series "+quote(other)+", which holds "+missing+", not in this folder")
		}
	}
}

func startedAt(r *roundData) string {
	if r.rec == nil {
		return ""
	}
	return r.rec.StartedAt
}
