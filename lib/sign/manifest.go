package sign

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/jaekit/spar/lib/round"
)

// Schema is the first line of what a round's signature covers: a manifest
// of anything else never verifies as one.
const Schema = "spar-round-signature/v1"

// maxFiles bounds the files a round folder may hold for a signature: a
// round of 100 reviewers holds a few hundred.
const maxFiles = 10_000

// unsigned are the files of a round folder that change after it was
// recorded (triage, waivers, the summary they rewrite), the signature
// itself, the workspace link and a recording being staged: what the
// signature leaves out. Anything else, reviewer folders included, is
// signed.
var unsigned = map[string]bool{
	round.LedgerFile: true, round.WaiversFile: true, round.SummaryFile: true,
	ManifestFile: true, SignatureFile: true, round.WorkspaceDir: true, round.RecordingDir: true,
	round.ChecksDir: true,
}

// Manifest is what the signature of the round folder dir covers: the
// schema line, the series and round names (a round signed for one series
// and name is no signed round of another), then every signed file of the
// folder, one line each, "<sha256 hex>  <path with />", in path order (no
// folder is a line: a git tree, which carries the series, holds none
// empty). A file that is no regular file (a link, a FIFO),
// or more than maxFiles, is an error: a recorded round holds none.
func Manifest(dir, series, name string) ([]byte, error) {
	type line struct{ path, sum string }
	var lines []line
	// The round folder itself is a folder, not a link to one: WalkDir walks
	// nothing of a link, and a signature of nothing would verify anything.
	if fi, err := os.Lstat(dir); err != nil {
		return nil, err
	} else if !fi.IsDir() {
		return nil, errors.New("the round folder is no folder (a link?)")
	}
	buf := make([]byte, 64<<10)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == dir {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		// A staged file (NAME.tmp) is left out only as a file: a reviewer
		// may be named "r.tmp" (G20 reserves spar's own names with .tmp
		// appended, no more), and its folder is raw output.
		if !strings.Contains(rel, "/") && (unsigned[rel] || (strings.HasSuffix(rel, ".tmp") && d.Type().IsRegular())) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if len(lines) == maxFiles {
			return fmt.Errorf("more than %d files", maxFiles)
		}
		if d.IsDir() {
			// Folders are not lines: the series travels as a git tree,
			// which holds no empty folder (a reviewer that kept an
			// earlier review has an empty one), and an empty folder
			// carries nothing a gate reads.
			return nil
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s: not a regular file: a recorded round holds none", rel)
		}
		sum, err := hashFile(p, buf)
		if err != nil {
			return err
		}
		lines = append(lines, line{rel, sum})
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(lines, func(a, b int) bool { return lines[a].path < lines[b].path })
	var b strings.Builder
	// Names hold no newline (spar's do not): quoted all the same, so that
	// no name can pass for two lines.
	fmt.Fprintf(&b, "%s\nseries %q\nround %q\n", Schema, series, name)
	for _, l := range lines {
		fmt.Fprintf(&b, "%s  %q\n", l.sum, l.path)
	}
	return []byte(b.String()), nil
}

// hashFile is the sha256 (hex) of the regular file p, read through buf: a
// link is not followed (O_NOFOLLOW), and a file past a record's size
// (round.MaxRecord) is an error, as every reader of records bounds it.
// One open and the reads: a gate verifies every file of every round.
func hashFile(p string, buf []byte) (string, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.CopyBuffer(h, io.LimitReader(onlyReader{f}, round.MaxRecord+1), buf)
	if err != nil {
		return "", err
	}
	if n > round.MaxRecord {
		return "", fmt.Errorf("%s holds more than the %d MiB a record may", filepath.Base(p), round.MaxRecord>>20)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// onlyReader hides the file's other methods, so that io.CopyBuffer reads
// through buf (an *os.File would be copied with its own WriteTo).
type onlyReader struct{ io.Reader }
