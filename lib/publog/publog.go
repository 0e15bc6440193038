// Package publog holds a series' publish history to one rule: a series
// only grows (docs/trust.md "A series only grows"). Each publish of
// refs/spar/series/<name> (lib/seriesref) is a commit whose first parent
// is the publish before it; every publish must hold every file of its
// parent unchanged, except the records that only gain lines (a round's
// ledger.jsonl and waivers.jsonl, the series' extensions.jsonl), whose
// earlier content must be a prefix of the new, and the files spar itself
// writes again (a round's summary.md; round.json and findings.json of a
// round whose native review was pending, which spar record completes).
// Walk checks a history; Holds checks a series folder against a publish
// (spar push before it publishes, the gate before it decides).
//
// Everything is read from git's objects in a bounded number of processes:
// one rev-list, one diff-tree --stdin for every pair, one cat-file --batch
// for the blobs a rule must compare.
package publog

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/jaekit/spar/lib/gitx"
	"github.com/jaekit/spar/lib/round"
)

// MaxPublishes bounds the history Walk reads (a variable for the tests): a series is bounded by its
// caps, and a triage is a publish, so a series of a thousand rounds with
// every finding triaged one push at a time stays well under it.
var MaxPublishes = 20_000

// maxBlob bounds a record Walk or Holds reads to compare (round.MaxRecord,
// the most spar fetch writes of one file).
const maxBlob = round.MaxRecord

// Violation is a publish that removed or rewrote a record.
type Violation struct {
	Publish string // the publish commit ("" for a series folder)
	Parent  string // the publish it is held to
	Path    string // the record, relative to the series folder
	What    string // "removed", "rewritten", "cut" (an append-only record lost lines)
}

func (v *Violation) Error() string {
	where := "the publish " + v.Publish
	if v.Publish == "" {
		where = "the series folder"
	}
	switch v.What {
	case "cut":
		return fmt.Sprintf("%s lost lines of %s that the publish %s held: an append-only record keeps every line it had", where, v.Path, v.Parent)
	case "removed":
		return fmt.Sprintf("%s removed %s, which the publish %s held: a series only grows", where, v.Path, v.Parent)
	}
	return fmt.Sprintf("%s rewrote %s, which the publish %s held: a recorded file never changes", where, v.Path, v.Parent)
}

// ErrTooLong is a history past MaxPublishes.
var ErrTooLong = errors.New("a publish history past the bound")

// appendOnly reports whether the record at rel (relative to the series
// folder) only ever gains lines.
func appendOnly(rel string) bool {
	if rel == round.ExtensionFile {
		return true
	}
	dir, base := path.Split(rel)
	return strings.Count(dir, "/") == 1 && (base == round.LedgerFile || base == round.WaiversFile)
}

// rewritable reports whether spar itself writes the file at rel again
// after a round is recorded whatever the round: its summary.md (rewritten
// by every triage and waiver).
func rewritable(rel string) bool {
	dir, base := path.Split(rel)
	return strings.Count(dir, "/") == 1 && base == round.SummaryFile
}

// Walk checks the first-parent history of the publish tip in repo: every
// publish holds its parent's files by the rules of the package. It returns
// the number of publishes read, and a *Violation for the newest publish
// that breaks a rule (the oldest first would hide a later one behind it:
// any is enough to block), ErrTooLong past MaxPublishes, or git's error.
func Walk(repo, tip string) (int, error) {
	out, err := gitx.Git(repo, "rev-list", "--first-parent", "--parents", "--max-count="+strconv.Itoa(MaxPublishes+1), "--end-of-options", tip)
	if err != nil {
		return 0, err
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) > MaxPublishes {
		return len(lines), fmt.Errorf("the series' publish history is longer than %d publishes, more than a series of spar holds (%w): review the change in a new series", MaxPublishes, ErrTooLong)
	}
	var pairs bytes.Buffer
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) >= 2 {
			// diff-tree --stdin reads "<commit> <parent>": the change
			// from the first parent to the publish.
			fmt.Fprintf(&pairs, "%s %s\n", f[0], f[1])
		}
	}
	if pairs.Len() == 0 {
		return len(lines), nil
	}
	// Each pair's entries follow a line naming the publish.
	cmd := gitx.Command(repo, "diff-tree", "--stdin", "-r", "-z", "--no-renames")
	cmd.Stdin = &pairs
	raw, err := cmd.Output()
	if err != nil {
		return len(lines), fmt.Errorf("git diff-tree --stdin: %w", err)
	}
	changes, err := parseRaw(raw)
	if err != nil {
		return len(lines), err
	}
	parentOf := map[string]string{}
	for _, l := range lines {
		if f := strings.Fields(l); len(f) >= 2 {
			parentOf[f[0]] = f[1]
		}
	}
	// The blobs the rules compare, read at once: both sides of an
	// append-only record's change, the earlier round.json of a round whose
	// records changed.
	var ids []string
	for _, ch := range changes {
		if ch.status == 'M' && (appendOnly(ch.path) || recordedLater(ch.path)) {
			ids = append(ids, ch.oldID, ch.newID)
		}
	}
	blobs, err := gitx.ReadBlobsMax(repo, ids, maxBlob)
	if err != nil {
		return len(lines), err
	}
	// A round's findings.json changes only with its round.json, in the
	// same publish, when that was pending (spar record of a native review).
	pendingIn := map[[2]string]bool{}
	for _, ch := range changes {
		if ch.status == 'M' && path.Base(ch.path) == round.RoundFile && recordedLater(ch.path) && hasPending(blobs[ch.oldID]) {
			pendingIn[[2]string{ch.commit, path.Dir(ch.path)}] = true
		}
	}
	// rev-list gave the newest first, and diff-tree answers in that order.
	for _, ch := range changes {
		if err := check(ch, parentOf[ch.commit], blobs, pendingIn[[2]string{ch.commit, path.Dir(ch.path)}]); err != nil {
			return len(lines), err
		}
	}
	return len(lines), nil
}

// change is one entry of diff-tree's raw output for a publish.
type change struct {
	commit           string
	oldMode, newMode string
	oldID, newID     string
	status           byte
	path             string
}

// parseRaw reads `git diff-tree --stdin -r -z` output: each pair's commit
// line, then its entries ":<old mode> <new mode> <old id> <new id> <status>"
// followed by the path, every field ended by NUL.
func parseRaw(raw []byte) ([]change, error) {
	fields := gitx.SplitZ(raw)
	var out []change
	commit := ""
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		if !strings.HasPrefix(f, ":") {
			// A commit line: "<id>" (the newline diff-tree ends it with
			// is part of the field when -z is given).
			commit = strings.TrimSpace(f)
			continue
		}
		p := strings.Fields(f[1:])
		if len(p) != 5 || i+1 >= len(fields) || len(p[4]) == 0 {
			return nil, fmt.Errorf("git diff-tree: unreadable entry %q", f)
		}
		i++
		out = append(out, change{commit: commit, oldMode: p[0], newMode: p[1], oldID: p[2], newID: p[3], status: p[4][0], path: fields[i]})
	}
	return out, nil
}

// check holds one change of the publish ch.commit to the rules, its parent
// publish being parent; blobs hold the contents the rules compare, and
// pending says whether the change's round was pending in the parent (and
// its round.json rewritten with it).
func check(ch change, parent string, blobs map[string][]byte, pending bool) error {
	if ch.status == 'A' {
		return nil
	}
	v := &Violation{Publish: ch.commit, Parent: parent, Path: ch.path}
	sameKind := ch.status == 'M' && ch.oldMode == ch.newMode
	switch {
	case ch.status == 'D':
		v.What = "removed"
		return v
	case rewritable(ch.path):
		return nil
	case appendOnly(ch.path) && sameKind:
		if !bytes.HasPrefix(blobs[ch.newID], blobs[ch.oldID]) {
			v.What = "cut"
			return v
		}
		return nil
	case recordedLater(ch.path) && sameKind && pending:
		return nil
	}
	v.What = "rewritten"
	return v
}

// recordedLater reports whether rel is a round's round.json or
// findings.json: the files spar record writes again when it records a
// native review that was pending.
func recordedLater(rel string) bool {
	dir, base := path.Split(rel)
	return strings.Count(dir, "/") == 1 && (base == round.RoundFile || base == round.FindingsFile)
}

func hasPending(b []byte) bool {
	var rec struct {
		Reviewers []struct {
			Status string `json:"status"`
		} `json:"reviewers"`
	}
	if json.Unmarshal(b, &rec) != nil {
		return false
	}
	for _, r := range rec.Reviewers {
		if r.Status == "pending" {
			return true
		}
	}
	return false
}

// Holds checks that the series folder dir holds every file of the publish
// commit by the same rules (an append-only record grown, summary.md
// rewritten, a pending round recorded): a local series that pruned what
// its last publish held is never published, and never gated as if it had
// not. A *Violation names the first file, in path order, that breaks a
// rule.
func Holds(repo, commit, dir string) error {
	out, err := gitx.Git(repo, "ls-tree", "-r", "-z", "--full-tree", "--end-of-options", commit)
	if err != nil {
		return err
	}
	format, err := objectFormat(repo)
	if err != nil {
		return err
	}
	type entry struct{ rel, id string }
	var differ []entry
	var ids []string
	for _, rec := range gitx.SplitZ(out) {
		meta, rel, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 {
			return fmt.Errorf("git ls-tree %s: unreadable entry %q", commit, rec)
		}
		local, err := readLocal(filepath.Join(dir, filepath.FromSlash(rel)))
		if errors.Is(err, os.ErrNotExist) {
			return &Violation{Parent: commit, Path: rel, What: "removed"}
		}
		if err != nil {
			return err
		}
		if blobID(format, local) == f[2] || rewritable(rel) {
			continue
		}
		differ = append(differ, entry{rel, f[2]})
		if appendOnly(rel) || path.Base(rel) == round.RoundFile {
			ids = append(ids, f[2])
		}
	}
	if len(differ) == 0 {
		return nil
	}
	blobs, err := gitx.ReadBlobsMax(repo, ids, maxBlob)
	if err != nil {
		return err
	}
	rewrote := map[string]bool{}
	for _, e := range differ {
		if path.Base(e.rel) == round.RoundFile && recordedLater(e.rel) && hasPending(blobs[e.id]) {
			rewrote[path.Dir(e.rel)] = true
		}
	}
	for _, e := range differ {
		v := &Violation{Parent: commit, Path: e.rel, What: "rewritten"}
		switch {
		case appendOnly(e.rel):
			local, err := readLocal(filepath.Join(dir, filepath.FromSlash(e.rel)))
			if err != nil {
				return err
			}
			if bytes.HasPrefix(local, blobs[e.id]) {
				continue
			}
			v.What = "cut"
		case recordedLater(e.rel) && rewrote[path.Dir(e.rel)]:
			continue
		}
		return v
	}
	return nil
}

// readLocal reads a file of the folder, bounded like a record; a path that
// is no regular file is read as missing.
func readLocal(p string) ([]byte, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, os.ErrNotExist
	}
	return round.ReadFile(p)
}

// objectFormat is the repository's hash: sha1 or sha256.
func objectFormat(repo string) (string, error) {
	out, err := gitx.Git(repo, "rev-parse", "--show-object-format")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// blobID is the id git gives a blob of content b.
func blobID(format string, b []byte) string {
	var h hash.Hash
	if format == "sha256" {
		h = sha256.New()
	} else {
		h = sha1.New()
	}
	fmt.Fprintf(h, "blob %d\x00", len(b))
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil))
}
