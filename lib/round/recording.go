package round

// Crashes roll forward (docs/review-round.md §1, "Crashes roll forward";
// docs/trust.md "Records"). A recording is made in three phases:
//
//  1. Stage: every file it will publish (each changed <reviewer>/result.json,
//     findings.json, summary.md and the final round.json) is written into
//     <round>/.recording/, a folder of spar's scratch files that no reader
//     reads, each streamed as it is produced (Stager). A crash here changes
//     no record.
//  2. Anchor: round.json is rewritten without finished_at and with
//     "recording": the staged files by name and sha256 and the ledger lines
//     to append (with the size and sha256 of the ledger they go after).
//     This is the one write that starts the recording: from here on round.json
//     itself says what is still to be done.
//  3. Finish: each staged file is renamed over its record, the ledger lines
//     are appended (the ledger is created with O_EXCL when the round has
//     none), the staged round.json (with finished_at and findings_sha256, no
//     "recording") is renamed over round.json, and .recording/ is removed.
//
// Finish is idempotent: a file already holding its sha256 is left alone, and
// only the ledger lines not yet there are appended, so a crash at any point
// of phase 3 is finished by the next writer of the series, which calls
// FinishSeries when it takes the series lock (lib/lock): nothing is lost and
// nothing is doubled. Only round.json names a recording: a .recording/ folder
// that round.json does not name (a crash in phase 1, or a folder someone
// else made) is scratch and is removed.

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/jaekit/spar/lib/filekind"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/jaekit/spar/lib/atomic"
)

// RecordingDir is the folder of a recording's staged files inside a round
// folder (its leading dot keeps it out of G20's reviewer names).
const RecordingDir = ".recording"

// Recording is round.json's "recording": what a recording still has to
// write, in order.
type Recording struct {
	// Files are renamed from .recording/<staged> over <name>, in order.
	Files []RecordingFile `json:"files"`
	// Ledger is appended after Files.
	Ledger RecordingLedger `json:"ledger"`
	// Round is the final round.json, renamed last.
	Round RecordingFile `json:"round"`
}

// RecordingFile is one staged file and the record it becomes.
type RecordingFile struct {
	Name   string `json:"name"`   // path inside the round folder
	Staged string `json:"staged"` // file name inside .recording/
	SHA256 string `json:"sha256"` // of its bytes
}

// RecordingLedger is the ledger lines a recording appends (the automatic
// deferrals): Lines go after the first Before bytes of ledger.jsonl, whose
// sha256 is BeforeSHA256.
type RecordingLedger struct {
	Before       int64    `json:"before"`
	BeforeSHA256 string   `json:"before_sha256"`
	Lines        []string `json:"lines"` // each one JSON line, without its newline
}

// Stager writes phase 1 of a recording: each file it will publish, in
// publication order, streamed into .recording/ as it is produced (a record
// is never built whole in memory, docs/pipeline.md "Memory"), then the
// final round.json. Every staged file is written the way records are
// (NAME.tmp, synced, renamed); its sha256 is taken on the way.
type Stager struct {
	dir    string
	before func(string)
	rec    *Recording
	done   bool
}

// NewStager starts phase 1 of a recording of the round folder dir: a new,
// empty .recording/ (whatever was there is scratch, round.json names no
// recording), and the ledger as it is now (up to its last newline: a
// partial last line was never written and is cut when the lines are
// appended). before is called with each step's name before its write (the
// crash test's hook; nil for none). The caller holds the series lock.
func NewStager(dir string, before func(string)) (*Stager, error) {
	if before == nil {
		before = func(string) {}
	}
	rec := &Recording{Files: []RecordingFile{}, Ledger: RecordingLedger{Lines: []string{}}}
	cur, err := ReadFile(filepath.Join(dir, LedgerFile))
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("%s: %w", LedgerFile, err)
	default:
		n := bytes.LastIndexByte(cur, '\n') + 1
		rec.Ledger.Before, rec.Ledger.BeforeSHA256 = int64(n), SHA256(cur[:n])
	}
	if rec.Ledger.Before == 0 {
		rec.Ledger.BeforeSHA256 = SHA256(nil)
	}
	stage := filepath.Join(dir, RecordingDir)
	if err := os.RemoveAll(stage); err != nil {
		return nil, err
	}
	if err := os.Mkdir(stage, 0o755); err != nil {
		return nil, err
	}
	return &Stager{dir: dir, before: before, rec: rec}, nil
}

// Add stages the file that becomes name (a path inside the round folder):
// write writes its bytes. It returns their sha256.
func (s *Stager) Add(name string, write func(io.Writer) error) (string, error) {
	if s.done {
		return "", errors.New("the recording is already staged")
	}
	staged := strconv.Itoa(len(s.rec.Files) + 1)
	s.before(RecordingDir + "/" + staged + " (" + name + ")")
	sum, err := writeHashed(filepath.Join(s.dir, RecordingDir, staged), write)
	if err != nil {
		return "", err
	}
	s.rec.Files = append(s.rec.Files, RecordingFile{Name: name, Staged: staged, SHA256: sum})
	return sum, nil
}

// Done stages the final round.json and returns the Recording for the
// anchor (phase 2); ledgerLines are the lines to append, each one JSON line
// without its newline.
func (s *Stager) Done(final []byte, ledgerLines [][]byte) (*Recording, error) {
	if s.done {
		return nil, errors.New("the recording is already staged")
	}
	s.done = true
	for _, l := range ledgerLines {
		s.rec.Ledger.Lines = append(s.rec.Ledger.Lines, string(l))
	}
	s.before(RecordingDir + "/" + RoundFile)
	if err := atomic.WriteFile(filepath.Join(s.dir, RecordingDir, RoundFile), final, 0o644); err != nil {
		return nil, err
	}
	s.rec.Round = RecordingFile{Name: RoundFile, Staged: RoundFile, SHA256: SHA256(final)}
	return s.rec, nil
}

// Abandon removes what was staged: a recording refused before its anchor
// leaves nothing behind (a .recording/ round.json does not name is scratch
// anyway, removed by the next Finish).
func (s *Stager) Abandon() error {
	s.done = true
	return os.RemoveAll(filepath.Join(s.dir, RecordingDir))
}

// writeHashed writes path atomically (atomic.WriteFunc) with what write
// writes, and returns the sha256 of those bytes.
func writeHashed(path string, write func(io.Writer) error) (string, error) {
	h := sha256.New()
	err := atomic.WriteFunc(path, 0o644, func(w io.Writer) error {
		return write(io.MultiWriter(w, h))
	})
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Finish does phase 3 of the recording round.json of dir names, if any, and
// removes a .recording/ folder round.json does not name. It reports whether
// it published a round. before is the crash test's hook (nil for none). The
// caller holds the series lock. An error means the recording cannot be
// finished as staged (a staged file missing or changed, a ledger that gained
// lines spar did not write): the round stays unpublished.
func Finish(dir string, before func(string)) (bool, error) {
	if before == nil {
		before = func(string) {}
	}
	stage := filepath.Join(dir, RecordingDir)
	rec, err := ReadRecord(dir)
	if err != nil {
		if _, serr := os.Lstat(stage); serr != nil {
			return false, nil // no recording here at all
		}
		return false, err
	}
	if rec.Recording == nil {
		if _, err := os.Lstat(stage); err == nil {
			before(RecordingDir + " (removed)")
			if err := os.RemoveAll(stage); err != nil {
				return false, err
			}
			return false, atomic.SyncDir(dir)
		}
		return false, nil
	}
	r := rec.Recording
	for _, f := range r.Files {
		if err := publishStaged(dir, f, before); err != nil {
			return false, err
		}
	}
	if err := appendLedger(dir, r.Ledger, before); err != nil {
		return false, err
	}
	if r.Round.Name != RoundFile {
		return false, fmt.Errorf("round.json: recording.round names %q, not %s", r.Round.Name, RoundFile)
	}
	if err := publishStaged(dir, r.Round, before); err != nil {
		return false, err
	}
	before(RecordingDir + " (removed)")
	if err := os.RemoveAll(stage); err != nil {
		return true, err
	}
	return true, atomic.SyncDir(dir)
}

// publishStaged renames .recording/<f.Staged> over <f.Name> unless the
// record already holds f's bytes.
func publishStaged(dir string, f RecordingFile, before func(string)) error {
	if !filepath.IsLocal(f.Name) || filepath.Base(f.Staged) != f.Staged || f.Staged == "." || f.Staged == ".." {
		return fmt.Errorf("round.json: recording names %q from %q, not a file of the round", f.Name, f.Staged)
	}
	target := filepath.Join(dir, f.Name)
	if err := realFolder(dir, filepath.Dir(f.Name)); err != nil {
		return err
	}
	if sum, err := FileSHA256(target); err == nil && sum == f.SHA256 {
		return nil
	}
	staged := filepath.Join(dir, RecordingDir, f.Staged)
	sum, err := FileSHA256(staged)
	if err != nil {
		return fmt.Errorf("the staged %s: %w", f.Name, err)
	}
	if sum != f.SHA256 {
		return fmt.Errorf("the staged %s does not have the sha256 round.json names", f.Name)
	}
	before(f.Name)
	return atomic.Rename(staged, target)
}

// realFolder checks that each folder of rel inside dir is a folder, not a
// symbolic link (a link would make a record land outside the round); a
// missing one is made.
func realFolder(dir, rel string) error {
	if rel == "." {
		return nil
	}
	p := dir
	for _, part := range splitPath(rel) {
		p = filepath.Join(p, part)
		fi, err := os.Lstat(p)
		if errors.Is(err, os.ErrNotExist) {
			if err := os.Mkdir(p, 0o755); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return err
		}
		if !fi.IsDir() {
			return fmt.Errorf("%s is not a folder (%s), not one spar made", filepath.Base(p), filekind.Of(fi.Mode()))
		}
	}
	return nil
}

func splitPath(rel string) []string {
	var out []string
	for rel != "." && rel != "" && rel != string(filepath.Separator) {
		out = append([]string{filepath.Base(rel)}, out...)
		rel = filepath.Dir(rel)
	}
	return out
}

// appendLedger appends the recording's ledger lines that ledger.jsonl does
// not hold yet. The ledger must still start with the Before bytes it had
// when the recording was staged, followed by nothing but a beginning of the
// lines (what an earlier, interrupted Finish appended): anything else is a
// line spar did not write, and the recording is not finished.
func appendLedger(dir string, l RecordingLedger, before func(string)) error {
	path := filepath.Join(dir, LedgerFile)
	var add []byte
	for _, line := range l.Lines {
		add = append(append(add, line...), '\n')
	}
	cur, err := ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		if l.Before != 0 {
			return fmt.Errorf("%s is missing; it held %d bytes when the recording began", LedgerFile, l.Before)
		}
		// The first recording: the ledger is created, never opened (O_EXCL).
		before(LedgerFile)
		if err := atomic.CreateExcl(path, add, 0o644); err != nil {
			return fmt.Errorf("%s: %w", LedgerFile, err)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s: %w", LedgerFile, err)
	}
	if int64(len(cur)) < l.Before || SHA256(cur[:l.Before]) != l.BeforeSHA256 {
		return fmt.Errorf("%s changed since the recording began (its first %d bytes are not the ones it had)", LedgerFile, l.Before)
	}
	rest := cur[l.Before:]
	whole := rest[:bytes.LastIndexByte(rest, '\n')+1]
	if !bytes.HasPrefix(add, whole) {
		return fmt.Errorf("%s holds lines after byte %d that this recording did not write", LedgerFile, l.Before)
	}
	if len(whole) < len(rest) {
		// A partial last line (a crash inside a write) was never written:
		// cut it so that the next line is not glued to it.
		if err := truncate(path, l.Before+int64(len(whole))); err != nil {
			return fmt.Errorf("%s: %w", LedgerFile, err)
		}
	}
	if len(whole) == len(add) {
		return nil
	}
	before(LedgerFile)
	if err := atomic.Append(path, add[len(whole):], 0o644); err != nil {
		return fmt.Errorf("%s: %w", LedgerFile, err)
	}
	return nil
}

func truncate(path string, size int64) error {
	f, err := os.OpenFile(path, os.O_RDWR|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Truncate(size); err != nil {
		return err
	}
	return f.Sync()
}

// FinishSeries finishes every interrupted recording of the series folder
// (Finish on each round folder holding .recording/). It is called by every
// writer of the series when it takes the series lock (lib/lock), so the
// next write after a crash rolls the crash forward before it reads the
// records. It prints one line per round to w: that it finished the
// recording, or why it cannot (the round then stays unpublished, and its
// readers say so). Only a series that cannot be listed is an error.
func FinishSeries(series string, w io.Writer) error {
	ents, err := os.ReadDir(series)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return err
	}
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(series, e.Name())
		if _, err := os.Lstat(filepath.Join(dir, RecordingDir)); err != nil {
			continue
		}
		done, err := Finish(dir, nil)
		switch {
		case err != nil:
			fmt.Fprintf(w, "spar: round %s: the interrupted recording cannot be finished: %v; the round stays unpublished (run a new round)\n", dir, err)
		case done:
			fmt.Fprintf(w, "spar: round %s: finished its interrupted recording\n", dir)
		}
	}
	return nil
}
