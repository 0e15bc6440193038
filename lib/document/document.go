// Package document reads the round documents of G26: the project's rule
// documents (config.rules, G23) and the --rules, --criteria and --subject
// arguments.
//
// G26: a readable file, possibly outside the repository. Its name is the
// repository-relative path inside the repository and the file name outside
// it; links and locations may use that name, the real absolute path or the
// file name (G8's rule for shared file names). Unreadable: refused.
package document

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/gitx"
)

// Roles and origins of a document in run.documents.
const (
	RoleRule     = "rule"
	RoleCriteria = "criteria"
	RoleSubject  = "subject"

	OriginConfig   = "config"   // config.rules, read from the working tree (G16, G23)
	OriginArgument = "argument" // --rules, --criteria, --subject
)

// Read reads the document at path (relative paths are relative to the
// current folder, as a shell user means them). repoRoot is the real absolute
// working tree root. The error says what is wrong; the caller names the
// option and the value.
func Read(repoRoot, path, role, origin string) (envelope.Document, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return envelope.Document{}, err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return envelope.Document{}, unreadable(err)
	}
	if link, ok := trackedLinkOut(repoRoot, abs, real); ok {
		return envelope.Document{}, fmt.Errorf("goes through the symbolic link %q tracked by the repository, which leads outside it (to %s): the repository cannot choose what the reviewers read", link, real)
	}
	data, err := ReadBytes(real)
	if err != nil {
		return envelope.Document{}, err
	}
	// The packet and the records carry the text as JSON strings; text that
	// is not UTF-8 could not be kept byte for byte, so it is not readable
	// as a document.
	if !utf8.Valid(data) {
		return envelope.Document{}, errors.New("is not UTF-8 text")
	}
	return FromText(repoRoot, real, string(data), role, origin), nil
}

// ReadRule reads a project rule document named by its repository path
// (config.rules): its name stays the path the configuration wrote.
func ReadRule(repoRoot, rel string) (envelope.Document, error) {
	d, err := Read(repoRoot, filepath.Join(repoRoot, filepath.FromSlash(rel)), RoleRule, OriginConfig)
	if err != nil {
		return d, err
	}
	d.Name = filepath.ToSlash(filepath.Clean(filepath.FromSlash(rel)))
	return d, nil
}

// trackedLinkOut reports the first symbolic link among abs and its
// ancestors, as written, that the repository at repoRoot tracks, when the
// document's real path real is outside repoRoot (G23's rule for project
// rules, for documents a cloned repository would choose through a link).
func trackedLinkOut(repoRoot, abs, real string) (string, bool) {
	if repoRoot == "" || within(repoRoot, real) {
		return "", false
	}
	for cur := abs; ; cur = filepath.Dir(cur) {
		if fi, err := os.Lstat(cur); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			if dir, err := filepath.EvalSymlinks(filepath.Dir(cur)); err == nil && within(repoRoot, dir) {
				rel, err := filepath.Rel(repoRoot, filepath.Join(dir, filepath.Base(cur)))
				if err == nil {
					out, err := gitx.Git(repoRoot, "ls-files", "-z", "--full-name", "--", ":(literal)"+filepath.ToSlash(rel))
					if err != nil || len(out) > 0 {
						return cur, true
					}
				}
			}
		}
		if filepath.Dir(cur) == cur {
			return "", false
		}
	}
}

func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

func unreadable(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("cannot be read: %v", err)
}

// FromText builds the document record of text read from the real absolute
// path real.
func FromText(repoRoot, real, text, role, origin string) envelope.Document {
	b := []byte(text)
	sum := sha256.Sum256(b)
	return envelope.Document{
		Role:      role,
		Origin:    origin,
		Name:      Name(repoRoot, real),
		Path:      real,
		FileName:  filepath.Base(real),
		SHA256:    hex.EncodeToString(sum[:]),
		LineCount: gitx.CountLines(b), // G8's line count
		Lines:     gitx.Lines(b),
	}
}

// Name is G26's document name: the repository-relative path (with /) when
// the real path is inside the working tree, the file name otherwise.
func Name(repoRoot, real string) string {
	if repoRoot != "" {
		if rel, err := filepath.Rel(repoRoot, real); err == nil && rel != "." && rel != ".." &&
			!strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.Base(real)
}

// Text joins the lines back into the exact bytes read.
func Text(d envelope.Document) string { return strings.Join(d.Lines, "\n") }

// MaxDocument is the most a round document may hold: its text travels in the
// packet, in the envelope and in round.json, a line at a time.
const MaxDocument = 16 << 20

// ReadBytes is how every reader of a round document reads it (spar run
// when it reads the document, the gate and spar status when they read it
// again to see whether it changed): opened without blocking (a FIFO), a
// regular file only, at most MaxDocument bytes. A FIFO, a device such as
// /dev/zero behind a link, or a huge file is an error at once, never a
// hang or a read until memory runs out.
func ReadBytes(real string) ([]byte, error) {
	f, err := os.OpenFile(real, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, unreadable(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, unreadable(err)
	}
	switch {
	case fi.IsDir():
		return nil, errors.New("is a folder, not a readable file")
	case !fi.Mode().IsRegular():
		return nil, errors.New("is not a regular file")
	case fi.Size() > MaxDocument:
		return nil, fmt.Errorf("holds %d bytes, more than the %d MiB a round document may hold", fi.Size(), MaxDocument>>20)
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxDocument+1))
	if err != nil {
		return nil, unreadable(err)
	}
	if len(b) > MaxDocument {
		return nil, fmt.Errorf("grew past the %d MiB a round document may hold", MaxDocument>>20)
	}
	return b, nil
}
