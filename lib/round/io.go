package round

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/jaekit/spar/lib/atomic"
	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/pipe"
	"github.com/tidwall/gjson"
)

// WriteJSON writes v as indented JSON to path atomically (.tmp, sync, rename).
func WriteJSON(path string, v any) error {
	b, err := pipe.MarshalIndent(v)
	if err != nil {
		return err
	}
	return atomic.WriteFile(path, b, 0o644)
}

// WriteFindings writes findings.json of round name to w: the bytes
// pipe.MarshalIndent gives Findings{Schema, name, findings}, encoded a
// finding at a time as they are written (docs/pipeline.md "Memory": 60,000
// findings make 70 MB of record, never built whole in memory).
func WriteFindings(w io.Writer, name string, findings []envelope.Finding) error {
	if findings == nil {
		findings = []envelope.Finding{}
	}
	return writeFindings(w, name, findings)
}

// SHA256 returns the lowercase hex sha256 of b.
func SHA256(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// ErrUnfinished means a round that stopped before recording findings (G29):
// round.json has no finished_at, or findings.json is missing or does not have
// the sha256 round.json names. Readers never accept such a round as finished.
var ErrUnfinished = errors.New("the round stopped before recording findings")

// ErrRecording means a round whose recording is in progress or was
// interrupted (round.json names its staged writes, recording.go): unreadable
// until the next writer of its series finishes it.
var ErrRecording = errors.New("a recording of this round is in progress or was interrupted: the next write to its series (spar run, spar record, spar triage, spar waive or spar extend) finishes it")

// ReadRecord reads and checks round.json of the round folder dir (G32).
func ReadRecord(dir string) (*Record, error) {
	b, err := ReadFile(filepath.Join(dir, RoundFile))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", RoundFile, err)
	}
	var rec Record
	if err := strictUnmarshal(b, &rec); err != nil {
		return nil, fmt.Errorf("%s: not a review-round/v1 record: %v", RoundFile, err)
	}
	if rec.Schema != Schema {
		return nil, fmt.Errorf("%s: schema %q, want %q", RoundFile, rec.Schema, Schema)
	}
	return &rec, nil
}

// strictUnmarshal decodes JSON into v; unknown fields are allowed so that a
// later spar's additions do not make older readers fail, but the value must
// be one JSON object.
func strictUnmarshal(b []byte, v any) error {
	if json.Unmarshal(b, v) == nil {
		return nil
	}
	// The error as a decoder of one value names it (trailing data is
	// "more than one JSON value").
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("more than one JSON value")
	}
	return nil
}

// Load reads a published round: round.json with finished_at, and
// findings.json whose sha256 round.json names (Publication). Anything else
// is ErrRecording, ErrUnfinished (wrapped with what is missing) or a G32
// read error.
func Load(dir string) (*Record, *Findings, error) {
	rec, err := ReadRecord(dir)
	if err != nil {
		return nil, nil, err
	}
	b, err := Publication(dir, rec)
	if err != nil {
		return rec, nil, err
	}
	var f Findings
	if err := strictUnmarshal(b, &f); err != nil {
		return rec, nil, fmt.Errorf("%s: not JSON: %v", FindingsFile, err)
	}
	if f.Schema != Schema {
		return rec, nil, fmt.Errorf("%s: schema %q, want %q", FindingsFile, f.Schema, Schema)
	}
	return rec, &f, nil
}

// Publication is the publication rule (G29, G32; docs/review-round.md §1):
// given round.json's record, it returns findings.json's bytes when the
// round was published (finished_at and findings_sha256 set, findings.json
// with that sha256), else why not:
//
//   - ErrRecording: round.json names a recording that has not finished
//     (the next writer of the series finishes it).
//   - an error wrapping ErrUnfinished: the round stopped before recording
//     findings. Some such rounds are torn (Torn): not a clean stop, but a
//     state no crash of spar leaves.
//   - any other error: a round that claims publication but whose
//     findings.json is missing or unreadable.
//
// spar gate and Load apply the same rule; they differ only in what a torn
// round is to them.
func Publication(dir string, rec *Record) ([]byte, error) {
	if rec.Recording != nil {
		// docs/review-round.md §1, "Crashes roll forward": a recording that started and has not finished
		// is no round that stopped before recording (G29): its findings
		// exist, staged. The next writer of the series finishes it.
		return nil, ErrRecording
	}
	if rec.FinishedAt == nil || rec.FindingsSHA256 == nil {
		stopped := fmt.Errorf("%w (round.json has no finished_at)", ErrUnfinished)
		if _, err := os.Lstat(filepath.Join(dir, RecordingDir)); err == nil {
			// Staged writes that round.json does not name: a recording
			// caught before its anchor, or a folder someone made. The
			// next writer removes them.
			return nil, &tornError{stopped, ErrRecording.Error()}
		}
		if _, err := os.Lstat(filepath.Join(dir, FindingsFile)); err == nil {
			// G29: a round that stopped before recording has neither
			// finished_at nor findings.json.
			return nil, &tornError{stopped, "round.json has no finished_at, but findings.json exists (a round that stopped before recording has neither)"}
		}
		return nil, stopped
	}
	b, err := ReadFile(filepath.Join(dir, FindingsFile))
	if errors.Is(err, os.ErrNotExist) {
		// G29 leaves out only a round with neither finished_at nor
		// findings.json; once round.json says the round was published, a
		// missing findings.json is a missing file (G32: unreadable).
		// spar-record writes findings.json before the round.json that
		// names it, so no crash leaves this state.
		return nil, fmt.Errorf("%s is missing", FindingsFile)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", FindingsFile, err)
	}
	if got := SHA256(b); got != *rec.FindingsSHA256 {
		// docs/review-round.md §1: a findings.json without the sha256 round.json names
		// is a round caught between two recordings or edited, never a
		// finished one.
		return nil, &tornError{
			fmt.Errorf("%w (%s has sha256 %s, round.json names %s)", ErrUnfinished, FindingsFile, got, *rec.FindingsSHA256),
			fmt.Sprintf("%s has sha256 %s, round.json names %s", FindingsFile, got, *rec.FindingsSHA256),
		}
	}
	return b, nil
}

// tornError is a round Publication does not accept that is no clean stop
// before recording either. As an error it reads as the stop it is to a
// writer (errors.Is ErrUnfinished: spar record records it again); Torn
// gives what it is to spar gate.
type tornError struct {
	stopped error
	why     string
}

func (e *tornError) Error() string { return e.stopped.Error() }
func (e *tornError) Unwrap() error { return e.stopped }

// Torn reports whether err is a torn round's and says what is wrong with
// it: spar gate reads such a round as unreadable (G32: a round that claims
// publication, or holds records of one, is never silently left out).
func Torn(err error) (string, bool) {
	var t *tornError
	if errors.As(err, &t) {
		return t.why, true
	}
	return "", false
}

// readLines reads a JSON Lines file. A last line without its newline is a
// write that never finished (AppendLine writes line and newline at once) and
// is not read. A missing file is (nil, false, nil).
func readLines(path string) ([][]byte, bool, error) {
	b, err := ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if i := bytes.LastIndexByte(b, '\n'); i != len(b)-1 {
		b = b[:i+1]
	}
	var lines [][]byte
	for _, l := range bytes.Split(b, []byte("\n")) {
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		lines = append(lines, l)
	}
	return lines, true, nil
}

// decodeLedger is ReadLedger's full reader: every line decoded as a
// LedgerEntry, for the forms the fast reader hands over.
func decodeLedger(dir string) ([]LedgerEntry, error) {
	lines, _, err := readLines(filepath.Join(dir, LedgerFile))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", LedgerFile, err)
	}
	out := make([]LedgerEntry, 0, len(lines))
	for i, l := range lines {
		var e LedgerEntry
		if err := strictUnmarshal(l, &e); err != nil {
			return nil, fmt.Errorf("%s: line %d: not JSON: %v", LedgerFile, i+1, err)
		}
		if e.Finding == "" || e.Disposition == "" {
			return nil, fmt.Errorf("%s: line %d: missing finding or disposition", LedgerFile, i+1)
		}
		out = append(out, e)
	}
	return out, nil
}

// ReadWaivers reads waivers.jsonl (G32): a missing file is a round with no
// decision; when it exists every line has reviewer, preset and a user_quote
// that is not blank.
func ReadWaivers(dir string) ([]Waiver, bool, error) {
	lines, ok, err := readLines(filepath.Join(dir, WaiversFile))
	if err != nil || !ok {
		if err != nil {
			err = fmt.Errorf("%s: %w", WaiversFile, err)
		}
		return nil, ok, err
	}
	out := make([]Waiver, 0, len(lines))
	for i, l := range lines {
		var w Waiver
		if err := strictUnmarshal(l, &w); err != nil {
			return nil, true, fmt.Errorf("%s: line %d: not JSON: %v", WaiversFile, i+1, err)
		}
		switch {
		case w.Reviewer == "":
			return nil, true, fmt.Errorf("%s: line %d: missing reviewer", WaiversFile, i+1)
		case w.Preset == "":
			return nil, true, fmt.Errorf("%s: line %d: missing preset", WaiversFile, i+1)
		case strings.TrimSpace(w.UserQuote) == "":
			return nil, true, fmt.Errorf("%s: line %d: missing user_quote", WaiversFile, i+1)
		}
		out = append(out, w)
	}
	return out, true, nil
}

// ReadExtensions reads the series' extensions.jsonl (missing: none). A line
// without cause and reason is an extension with no recorded cause (G32).
func ReadExtensions(series string) ([]Extension, error) {
	lines, _, err := readLines(filepath.Join(series, ExtensionFile))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ExtensionFile, err)
	}
	out := make([]Extension, 0, len(lines))
	for i, l := range lines {
		var e Extension
		if err := strictUnmarshal(l, &e); err != nil {
			return nil, fmt.Errorf("%s: line %d: not JSON: %v", ExtensionFile, i+1, err)
		}
		if e.Stage == "" || e.By < 1 {
			return nil, fmt.Errorf("%s: line %d: missing stage or by", ExtensionFile, i+1)
		}
		out = append(out, e)
	}
	return out, nil
}

// Series membership (G29, G32; docs/review-gate.md §2) has one definition,
// here: every reader of a series (spar gate, the cap decision, spar triage's
// --of, cap-report) lists its rounds with Folders and orders them with
// Before.

// recordFiles are the records of a round folder: round.json and the records
// spar writes only after it.
var recordFiles = []string{RoundFile, FindingsFile, LedgerFile, SummaryFile, WaiversFile}

// HoldsRecord reports whether dir holds round.json or a record spar writes
// only after it (G29, G32): a folder whose round.json is gone but whose
// findings, ledger, summary or waivers remain is an unreadable round of the
// series, never a folder that is no round.
func HoldsRecord(dir string) bool {
	for _, f := range recordFiles {
		if _, err := os.Lstat(filepath.Join(dir, f)); err == nil {
			return true
		}
	}
	return false
}

// Folders returns the round folders of a series, by name: each entry of
// the series folder that is a folder, or a symbolic link to one, and holds
// a record (HoldsRecord). A link is read as the folder it names, so that a
// round moved away behind a link is still a round of the series; a folder
// with no record (a run that stopped before writing round.json) is no
// round.
func Folders(series string) ([]string, error) {
	ents, err := os.ReadDir(series)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		dir := filepath.Join(series, e.Name())
		if HoldsRecord(dir) {
			out = append(out, dir)
		}
	}
	return out, nil
}

// holdsRounds reports a folder that holds no record of a round itself and
// whose sub-folders hold rounds (Folders).
func holdsRounds(dir string) bool {
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() || HoldsRecord(dir) {
		return false
	}
	rounds, err := Folders(dir)
	return err == nil && len(rounds) > 0
}

// IsSeries reports a series folder: one that holds no record of a round
// itself, whose sub-folders hold rounds (Folders), and that holds no
// series (SeriesIn): a folder that holds series is never a series, so that
// gating or listing it never stands for the series inside it.
func IsSeries(dir string) bool {
	return holdsRounds(dir) && len(SeriesIn(dir)) == 0
}

// IsRound reports a round folder as spar recognises one wherever it lies,
// given or not: a folder that holds round.json (the record spar writes
// first; spar run refuses a series inside one by the same file), or one
// that holds another record (HoldsRecord) in a series that holds such a
// round (IsRecordedSeries: an unreadable round of a real series). A folder
// that merely holds a file named summary.md, findings.json, ledger.jsonl
// or waivers.jsonl, among no round, is none.
func IsRound(dir string) bool {
	return holdsRoundFile(dir) || (HoldsRecord(dir) && IsRecordedSeries(filepath.Dir(dir)))
}

// IsRecordedSeries reports a series folder (IsSeries) one of whose rounds
// holds round.json: a series spar recorded a review in, not a folder one of
// whose sub-folders merely holds a file named like a record.
func IsRecordedSeries(dir string) bool {
	if !IsSeries(dir) {
		return false
	}
	rounds, err := Folders(dir)
	if err != nil {
		return false
	}
	for _, r := range rounds {
		if holdsRoundFile(r) {
			return true
		}
	}
	return false
}

// holdsRoundFile reports a folder that holds an entry named round.json.
func holdsRoundFile(dir string) bool {
	_, err := os.Lstat(filepath.Join(dir, RoundFile))
	return err == nil
}

// SeriesIn returns the sub-folders of dir (or symbolic links to folders)
// that hold rounds and no record of a round themselves, by name: the series
// dir holds. A folder that holds any is never a series itself (IsSeries),
// never a round (it holds rounds) and never the parent of a new round.
func SeriesIn(dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		d := filepath.Join(dir, e.Name())
		if holdsRounds(d) {
			out = append(out, d)
		}
	}
	return out
}

// Before is series order: started_at, then folder path (the folder name,
// within one series). A round whose round.json does not read has no
// started_at and sorts first.
func Before(startedA, dirA, startedB, dirB string) bool {
	if startedA != startedB {
		return startedA < startedB
	}
	return dirA < dirB
}

// startedAt is round.json's started_at as a decoding of it alone gives it
// (the last member of that name), read with gjson from a valid document
// without decoding the rest: a series of a thousand rounds is listed in
// milliseconds (TestStartedAtAsDecoded).
func startedAt(b []byte) string {
	if !gjson.ValidBytes(b) {
		var head struct {
			StartedAt string `json:"started_at"`
		}
		_ = json.Unmarshal(b, &head)
		return head.StartedAt
	}
	doc := gjson.Parse(view(b))
	if !doc.IsObject() {
		return ""
	}
	started, plain := "", true
	doc.ForEach(func(k, v gjson.Result) bool {
		switch {
		case k.Str == "started_at" && v.Type == gjson.String:
			started = strings.Clone(v.Str)
		case strings.EqualFold(k.Str, "started_at") || k.Str == "started_at":
			// Another case or another type: encoding/json's own rules.
			plain = false
			return false
		}
		return true
	})
	if !plain {
		var head struct {
			StartedAt string `json:"started_at"`
		}
		_ = json.Unmarshal(b, &head)
		return head.StartedAt
	}
	return started
}

// ListRounds returns the round folders of a series (Folders) in series
// order (Before), reading started_at from each round.json (startedAt).
func ListRounds(series string) ([]string, error) {
	dirs, err := Folders(series)
	if err != nil {
		return nil, err
	}
	type item struct{ dir, started string }
	items := make([]item, len(dirs))
	for i, dir := range dirs {
		items[i].dir = dir
		b, err := ReadFile(filepath.Join(dir, RoundFile))
		if err != nil {
			continue
		}
		items[i].started = startedAt(b)
	}
	sort.Slice(items, func(i, j int) bool {
		return Before(items[i].started, items[i].dir, items[j].started, items[j].dir)
	})
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.dir
	}
	return out, nil
}
