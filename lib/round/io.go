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
	return pipe.EncodeIndentWith(w, Findings{Schema: Schema, Round: name}, "findings", findings)
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
// findings.json whose sha256 round.json names. Anything else is
// ErrUnfinished (wrapped with what is missing) or a G32 read error.
func Load(dir string) (*Record, *Findings, error) {
	rec, err := ReadRecord(dir)
	if err != nil {
		return nil, nil, err
	}
	if rec.Recording != nil {
		// DESIGN.md §14.4: a recording that started and has not finished
		// is no round that stopped before recording (G29): its findings
		// exist, staged. The next writer of the series finishes it.
		return rec, nil, ErrRecording
	}
	if rec.FinishedAt == nil || rec.FindingsSHA256 == nil {
		return rec, nil, fmt.Errorf("%w (round.json has no finished_at)", ErrUnfinished)
	}
	b, err := ReadFile(filepath.Join(dir, FindingsFile))
	if errors.Is(err, os.ErrNotExist) {
		// G29 leaves out only a round with neither finished_at nor
		// findings.json; once round.json says the round was published, a
		// missing findings.json is a missing file (G32: unreadable), as
		// spar gate and spar cap-report read it. spar-record writes
		// findings.json before the round.json that names it, so no crash
		// leaves this state.
		return rec, nil, fmt.Errorf("%s is missing", FindingsFile)
	}
	if err != nil {
		return rec, nil, fmt.Errorf("%s: %w", FindingsFile, err)
	}
	if got := SHA256(b); got != *rec.FindingsSHA256 {
		// DESIGN.md §4: a findings.json without the sha256 round.json names
		// is a round caught between two recordings, never a finished one.
		return rec, nil, fmt.Errorf("%w (%s has sha256 %s, round.json names %s)", ErrUnfinished, FindingsFile, got, *rec.FindingsSHA256)
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

// ReadLedger reads ledger.jsonl of a round (missing: no entries).
func ReadLedger(dir string) ([]LedgerEntry, error) {
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

// ListRounds returns the round folders of a series: its sub-folders that
// hold a round.json, ordered by started_at, then name. Folders without
// round.json (a run that stopped before writing it) are not rounds.
func ListRounds(series string) ([]string, error) {
	ents, err := os.ReadDir(series)
	if err != nil {
		return nil, err
	}
	type item struct{ dir, started string }
	var items []item
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(series, e.Name())
		b, err := ReadFile(filepath.Join(dir, RoundFile))
		if err != nil {
			continue
		}
		var head struct {
			StartedAt string `json:"started_at"`
		}
		_ = json.Unmarshal(b, &head)
		items = append(items, item{dir, head.StartedAt})
	}
	sort.Slice(items, func(i, j int) bool {
		if items[i].started != items[j].started {
			return items[i].started < items[j].started
		}
		return items[i].dir < items[j].dir
	})
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.dir
	}
	return out, nil
}
