// Package gitx calls the git program the way every spar stage does
// (docs/trust.md "Git, readers and bounded work"): --no-pager, core.quotepath off, -z output where git has it,
// and --end-of-options before any revision a user gave, so that a revision
// is never read as an option (G27).
package gitx

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// Command is the one way spar starts git: in dir, with --no-pager and
// core.quotepath off before args, and the environment of Env. Every git
// call of every stage goes through it (docs/trust.md: git cannot be bent).
// advice.graftFileDeprecated is off: Env's GIT_GRAFT_FILE makes git 2.39
// open every error with eight hint: lines about grafts, hiding its cause.
func Command(dir string, args ...string) *exec.Cmd {
	full := append([]string{"--no-pager", "--no-replace-objects", "-c", "core.quotepath=off", "-c", "advice.graftFileDeprecated=false"}, args...)
	cmd := exec.Command("git", full...)
	cmd.Dir = dir
	cmd.Env = Env(os.Environ())
	return cmd
}

// Env is environ less every GIT_* variable, plus the variables that make
// git read the repository's real objects: the agent under review runs spar
// as the same user and could otherwise point git elsewhere (GIT_DIR,
// GIT_WORK_TREE, GIT_INDEX_FILE, GIT_OBJECT_DIRECTORY,
// GIT_ALTERNATE_OBJECT_DIRECTORIES, GIT_CONFIG_* adding a config), make a
// commit look like another (`git replace`, undone by
// GIT_NO_REPLACE_OBJECTS) or give it other parents (a grafts file, undone
// by GIT_GRAFT_FILE naming a file that holds none).
func Env(environ []string) []string {
	out := make([]string, 0, len(environ)+2)
	for _, kv := range environ {
		if strings.HasPrefix(kv, "GIT_") {
			continue
		}
		out = append(out, kv)
	}
	return append(out, "GIT_NO_REPLACE_OBJECTS=1", "GIT_GRAFT_FILE="+os.DevNull)
}

// KeepHeap is env with glibc's allocator told to keep 1 MiB spare at the
// top of the heap (glibc.malloc.top_pad, added to any GLIBC_TUNABLES env
// already holds), for a git that allocates and frees a buffer per object
// many times over: git fast-import of a series (700 blobs of about 20 KB)
// otherwise spends two thirds of its time growing and trimming the heap
// (4,000 brk calls; 0.45 s, 0.12 s with it, on 2 cores). A C library other
// than glibc ignores the variable.
func KeepHeap(env []string) []string {
	const pad = "glibc.malloc.top_pad=1048576"
	out := append([]string(nil), env...)
	// The last GLIBC_TUNABLES is the one os/exec passes on.
	for i := len(out) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(out[i], "GLIBC_TUNABLES="); ok {
			if v != "" {
				v += ":"
			}
			out[i] = "GLIBC_TUNABLES=" + v + pad
			return out
		}
	}
	return append(out, "GLIBC_TUNABLES="+pad)
}

// Git runs git in dir and returns its stdout. A failure returns an error
// holding git's stderr.
func Git(dir string, args ...string) ([]byte, error) {
	cmd := Command(dir, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return stdout.Bytes(), &Error{Args: args, Msg: msg, Err: err}
	}
	return stdout.Bytes(), nil
}

// Error is a failed git call.
type Error struct {
	Args []string
	Msg  string
	Err  error
}

func (e *Error) Error() string { return fmt.Sprintf("git %s: %s", strings.Join(e.Args, " "), e.Msg) }
func (e *Error) Unwrap() error { return e.Err }

// ResolveCommit resolves rev to a full commit ID (G27). rev is never read as
// an option: it goes after --end-of-options, and "^{commit}" makes a tag or
// tree that is not a commit fail.
func ResolveCommit(dir, rev string) (string, error) {
	if rev == "" {
		return "", fmt.Errorf("empty revision")
	}
	out, err := Git(dir, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err != nil {
		return "", fmt.Errorf("%q does not resolve to a commit", rev)
	}
	if err := ambiguousHex(dir, rev); err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// shortHex is a revision that reads as the start of an object id.
var shortHex = regexp.MustCompile(`^[0-9a-fA-F]{4,39}$`)

// ambiguousHex refuses a short hexadecimal revision that is also a ref's
// name while some object's id starts with it: git takes the ref, so a
// branch named like the short id someone types (made by whoever can make
// refs in the repository) would stand in for the commit they meant
// (docs/trust.md "The gate"). A whole id is always the object (git takes
// 40 hex digits as an id whatever refs say); a ref named so, with no
// object of that prefix, is the ref.
func ambiguousHex(dir, rev string) error {
	if !shortHex.MatchString(rev) {
		return nil
	}
	// rev is hexadecimal: no option can hide in it.
	sym, _ := Git(dir, "rev-parse", "--symbolic-full-name", rev)
	ref := strings.TrimSpace(string(sym))
	if !strings.HasPrefix(ref, "refs/") {
		return nil
	}
	objs, _ := Git(dir, "rev-parse", "--disambiguate="+rev)
	if strings.TrimSpace(string(objs)) == "" {
		return nil
	}
	return &AmbiguousError{Rev: rev, Ref: ref}
}

// AmbiguousError is a short hexadecimal revision that is both the name of
// the ref Ref and the start of an object id (ResolveCommit).
type AmbiguousError struct{ Rev, Ref string }

func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("%q is both the ref %s and the start of an object id: give the whole commit id, or the ref's full name", e.Rev, e.Ref)
}

// TreeID returns the tree ID of a full commit ID.
func TreeID(dir, commit string) (string, error) {
	out, err := Git(dir, "rev-parse", "--verify", "--quiet", "--end-of-options", commit+"^{tree}")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// TopLevel returns the working tree root containing dir.
func TopLevel(dir string) (string, error) {
	out, err := Git(dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// SplitZ splits NUL-terminated git output.
func SplitZ(b []byte) []string {
	s := strings.TrimSuffix(string(b), "\x00")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\x00")
}

// IsAncestor reports whether commit a is an ancestor of commit b, or b
// itself (git merge-base --is-ancestor). Both are full commit IDs.
func IsAncestor(dir, a, b string) (bool, error) {
	_, err := Git(dir, "merge-base", "--is-ancestor", "--end-of-options", a, b)
	if err == nil {
		return true, nil
	}
	if ExitedOne(err) {
		return false, nil
	}
	return false, err
}

// ExitedOne reports whether err is git having run and exited 1: the "no"
// of a git question (merge-base --is-ancestor, check-ignore, config
// --get-regexp with nothing matching), not a failure.
func ExitedOne(err error) bool {
	var ee *exec.ExitError
	return errors.As(err, &ee) && ee.ExitCode() == 1
}

// Shallow reports whether the repository of dir is a shallow clone: its
// history stops at commits whose parents it lacks, so that a walk of it
// can miss an ancestor it holds. It is what git rev-parse
// --is-shallow-repository tells (a shallow file in the repository's common
// git folder, found once per dir), read afresh at each call: a clone
// fetched --unshallow meanwhile is one no longer.
func Shallow(dir string) (bool, error) {
	common, ok := commonDirs.Load(dir)
	if !ok {
		out, err := Git(dir, "rev-parse", "--path-format=absolute", "--git-common-dir")
		if err != nil {
			return false, err
		}
		common, _ = commonDirs.LoadOrStore(dir, strings.TrimSpace(string(out)))
	}
	_, err := os.Lstat(filepath.Join(common.(string), "shallow"))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// commonDirs: a repository folder's common git folder (Shallow).
var commonDirs sync.Map
