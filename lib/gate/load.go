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

	"github.com/jaekit/spar/lib/config"
	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/round"
	"github.com/jaekit/spar/lib/series"
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
	// findings_sha256) while the re-derivation compares them (trust.go),
	// and after, only when they differ (findingsDiff names how).
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
	// pending: a round spar-record is recording, read from memory
	// (RoundVerdict), never from its folder.
	pending bool
	// signature is what the gate found of the round's signature, when it
	// had signers (signatures.go).
	signature *RoundSignature
	// derivation is what re-deriving the round's findings gave (trust.go),
	// for the rounds the gate re-derives.
	derivation derivation
	// dirty are the inputs that differed from the head commit, as the
	// gate recomputed them (recomputeInputs): blocked on with those
	// round.json records.
	dirty []envelope.DirtyInput
	// findings are the round's findings whole, when the gate keeps them
	// (keepFindings) and findings.json is their encoding, or as
	// wholeFindings read them from findings.json: what spar status
	// shows without reading the round again (the values findings.json
	// decodes to, but for text that is not UTF-8, a cited line of a head
	// file, which the file holds as U+FFFD).
	findings []envelope.Finding
}

// wholeFindings are the round's findings whole: those the gate kept, else
// findings.json as it stands (not re-derived to its bytes: the gate's
// reasons say why); ok is false when it no longer reads (the gate read it;
// a reader that now fails says so in the reasons when the gate runs again).
func (r *roundData) wholeFindings() (finds []envelope.Finding, ok bool) {
	if r.findings != nil {
		return r.findings, true
	}
	_, fs, err := round.Load(r.abs)
	if err != nil {
		return nil, false
	}
	// Kept: status, the loop and the repeats' evidence read it once.
	r.findings = fs.Findings
	return fs.Findings, true
}

// dryRun: a round.json that says dry run but does not read as one (G32) is
// unreadable, not a dry run to leave out.
func (r *roundData) dryRun() bool { return r.rec != nil && r.rec.DryRun && r.state != unreadable }

// finding is what the gate reads of a finding (lib/round's fast reader).
type finding = round.FindingHead

// readRound reads a round folder: round.json, findings.json (by the sha256
// round.json names), ledger.jsonl and waivers.jsonl. It never fails: what
// went wrong is kept in the state.
//
// With derive (the gate's re-derivation, trust.go), a round that is not a
// dry run has round.json read whole and its findings derived again as it is
// read; when findings.json is the derivation's bytes, the finding heads are
// taken from the derived findings instead of being parsed from the file
// (the same values, read once).
//
// Publication is lib/round's rule (round.Publication, as round.Load applies
// it), with lib/round's fast readers (round.ReadHead, ParseFindingHeads,
// ReadLedger), so that findings.json is read once and only the fields the
// gate needs are taken from it: the 1,000-round benchmark spends most of its
// time in full decoding otherwise. A torn round (round.Torn: findings.json
// without finished_at, another findings.json than round.json names, staged
// writes round.json does not name) is unreadable here, never left out
// silently (G32).
func readRound(dir string, derive rederiver) *roundData {
	return finishRound(openRound(dir, derive != nil), derive)
}

// openRound reads round.json of the round folder dir: whole (for a round
// the gate re-derives: read it whole once) or the fields every round needs.
func openRound(dir string, whole bool) *roundData {
	d := &roundData{abs: dir, name: filepath.Base(dir)}
	read := round.ReadHead
	if whole {
		read = round.ReadRecord
	}
	rec, err := read(dir)
	if err != nil {
		d.state, d.err = unreadable, pathFree(err)
		return d
	}
	d.rec = rec
	return d
}

// finishRound reads the rest of the round openRound opened (readRound).
func finishRound(d *roundData, derive rederiver) *roundData {
	if d.rec == nil {
		return d
	}
	dir, rec := d.abs, d.rec
	b, err := round.Publication(dir, rec)
	if why, torn := round.Torn(err); torn {
		d.state, d.err = unreadable, errors.New(why)
		return d
	}
	if errors.Is(err, round.ErrUnfinished) {
		d.state, d.err = unfinished, err
		return d
	}
	if err != nil {
		d.state, d.err = unreadable, pathFree(err)
		return d
	}
	if rec.Name != d.name {
		// A round.json copied from another folder is not this round's record.
		d.state, d.err = unreadable, errors.New("round.json names the round "+quote(rec.Name)+", not its folder "+quote(d.name))
		return d
	}
	var finds []finding
	if derive != nil && !rec.DryRun {
		d.findingsRaw = b
		if !wholeRecord(d, rec) {
			return d
		}
		if derived := derive.deriveRound(d); derived != nil {
			finds = make([]finding, len(derived))
			for i := range derived {
				finds[i] = round.HeadOf(&derived[i])
			}
			// findings.json is the derivation's: its bytes are not
			// needed again (a thousand rounds hold tens of MB of them).
			d.findingsRaw = nil
		}
	}
	if finds == nil {
		finds, err = round.ParseFindingHeads(b)
		if err != nil {
			d.state, d.err = unreadable, err
			return d
		}
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
	led, err := round.ReadLedger(dir)
	if err != nil {
		d.state, d.err = unreadable, pathFree(err)
		return d
	}
	d.state = published
	d.finds, d.ledger = finds, led
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

// rederiver is the gate's re-derivation as readSeries runs it (trust.go):
// what every round will need read at once (prefetch, given the round.json of
// each round of the series), then each round derived as it is read.
type rederiver interface {
	relocate(series string, rec *round.Record)
	prefetch(recs []*round.Record)
	deriveRound(r *roundData) []envelope.Finding
}

// readSeries reads every round of a series folder (round.Folders: links
// followed, any record counts) and the listed folders that are not among
// them, in parallel, each once. The series' rounds come back in series
// order (round.Before).
//
// With derive, the rounds of the series are re-derived as they are read:
// their round.json first (whole), then derive.prefetch, then the rest of
// each round (readRound); the listed folders outside the series are read
// without it.
//
// Without derive, whole says whether each published round but a dry run is
// read whole (fullRecord, as the gate reads it: a config whose digest does
// not follow is unreadable everywhere) or only its heads (gatedRounds: which
// rounds a list holds does not depend on it).
func readSeries(series string, listed []string, derive rederiver, whole bool) (rounds []*roundData, extra map[string]*roundData) {
	dirs, _ := round.Folders(series)
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
	if derive != nil {
		parallel(len(dirs), func(i int) { read[i] = openRound(dirs[i], true) })
		recs := make([]*round.Record, 0, len(dirs))
		for _, r := range read[:len(dirs)] {
			if r.rec != nil {
				derive.relocate(series, r.rec)
				recs = append(recs, r.rec)
			}
		}
		derive.prefetch(recs)
	}
	parallel(len(all), func(i int) {
		if i < len(dirs) && derive != nil {
			read[i] = finishRound(read[i], derive)
			return
		}
		r := readRound(all[i], nil)
		if whole && r.state == published && !r.rec.DryRun {
			fullRecord(r)
		}
		read[i] = r
	})
	rounds = read[:len(dirs)]
	foreignRounds(series, dirs, rounds)
	sort.SliceStable(rounds, func(i, j int) bool {
		return round.Before(startedAt(rounds[i]), rounds[i].abs, startedAt(rounds[j]), rounds[j].abs)
	})
	extra = make(map[string]*roundData, len(extras))
	for i, l := range extras {
		extra[l] = read[len(dirs)+i]
	}
	return rounds, extra
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

// parallel runs f(0) … f(n-1), one worker per processor.
func parallel(n int, f func(i int)) {
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < min(runtime.GOMAXPROCS(0), n); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				f(i)
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
}

func startedAt(r *roundData) string {
	if r.rec == nil {
		return ""
	}
	return r.rec.StartedAt
}

// fullRecord reads round.json whole (round.ReadRecord) for the rounds whose
// reviewers, documents and run arguments the gate uses.
func fullRecord(r *roundData) bool {
	if r.pending {
		// A round being recorded: its record is the one in memory.
		return true
	}
	rec, err := round.ReadRecord(r.abs)
	if err != nil {
		r.state, r.err = unreadable, pathFree(err)
		return false
	}
	return wholeRecord(r, rec)
}

// wholeRecord takes rec, round.json read whole, as r's record.
func wholeRecord(r *roundData, rec *round.Record) bool {
	// The required reviewers come from config.configured_required: a
	// config edited by hand no longer has the digest spar-config gave it
	// (docs/pipeline.md §2).
	if d, err := config.Digest(&rec.Config); err != nil || d != rec.Config.Digest {
		r.state, r.err = unreadable, fmt.Errorf("round.json: config.digest %q is not the digest of its config (%s)", rec.Config.Digest, d)
		return false
	}
	// A round recorded as not counted because no reviewer could start
	// (lib/series.Settle, docs/review-round.md §8.6) must be one: a
	// round.json that claims it for a round whose reviewers ran was edited
	// to take back a counted round.
	if rec.Cap.NotCounted != nil {
		if want := series.Settle(rec.Cap, rec.DryRun, rec.Reviewers); rec.DryRun || rec.Cap.RerunOf != nil || want.Counted {
			r.state, r.err = unreadable, fmt.Errorf("round.json: cap.not_counted says %q, but the round is a dry run, a rerun, or a reviewer of it started", *rec.Cap.NotCounted)
			return false
		}
	}
	r.rec, r.full = rec, true
	return true
}
