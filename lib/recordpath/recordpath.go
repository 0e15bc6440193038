// Package recordpath implements the record path rule of G28, shared by
// `spar run --out`, the series of `spar extend` and `spar gate --out`.
//
// G28: when the path is inside any Git repository (the repository under
// review, another repository containing the path, a nested repository inside
// an ignored folder, all alike), the innermost repository containing the path
// and the outer repositories must all ignore it, and no tracked file may be
// under it. When there is a .git above it, Git must not fail to decide.
// Outside the rule: refused, nothing written.
package recordpath

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/jaekit/spar/lib/gitx"
)

// Error is a refusal of a record path. Its message names the path with %q
// and the repository that decided.
type Error struct {
	Path string
	Msg  string
}

func (e *Error) Error() string { return e.Msg }

func refuse(p, format string, args ...any) error {
	return &Error{Path: p, Msg: fmt.Sprintf(format, args...)}
}

// Resolve returns the absolute form of p with every symbolic link in its
// existing ancestors resolved, so that the repositories seen are the ones
// the file would really be written in. The parts that do not exist yet are
// appended as written (after filepath.Clean).
func Resolve(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	rest := ""
	cur := abs
	for {
		real, err := filepath.EvalSymlinks(cur)
		if err == nil {
			return filepath.Join(real, rest), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return abs, nil
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

// Check applies G28 to p, a file (gate --out). CheckFolder is the same rule
// for a folder (a round folder, a series).
func Check(p string) error { return check(p, false) }

// CheckFolder applies G28 to the folder p. Git is asked about "p/" so that
// a pattern that matches only folders ("reviews/") also decides for a
// folder that does not exist yet.
func CheckFolder(p string) error { return check(p, true) }

// check applies G28 to p (resolved by Resolve first), which must not lie
// inside a git directory. It walks every folder
// from p up to the filesystem root; each one that holds a .git entry is a
// repository containing p, innermost first. Each must ignore p (`git
// check-ignore`, which also sees an ignored parent folder) and list no
// tracked file under it (`git ls-files`, which includes files deleted from
// the working tree but still in the index). A git failure is a refusal: Git
// could not decide.
func check(p string, folder bool) error {
	if err := trackedLinks(p); err != nil {
		return err
	}
	real, err := Resolve(p)
	if err != nil {
		return refuse(p, "%q: cannot resolve the path: %v", p, err)
	}
	// Inside a git directory (.git, a worktree's under .git/worktrees),
	// which a .gitignore of "*" ignores too: never a record path.
	for d := real; filepath.Dir(d) != d; d = filepath.Dir(d) {
		if strings.EqualFold(filepath.Base(d), ".git") {
			return refuse(p, "%q is inside the git directory %q; a record path never is", p, d)
		}
	}
	for _, root := range Repositories(real) {
		rel, err := filepath.Rel(root, real)
		if err != nil {
			return refuse(p, "%q: cannot place it in the repository %q: %v", p, root, err)
		}
		if rel == "." {
			return refuse(p, "%q is the working tree of the repository %q; a record path must be ignored by it", p, root)
		}
		rel = filepath.ToSlash(rel)
		if folder {
			rel += "/"
		}
		tracked, err := gitx.Git(root, "ls-files", "-z", "--full-name", "--", ":(literal)"+rel)
		if err != nil {
			return refuse(p, "%q: git cannot decide whether the repository %q tracks files under it: %v", p, root, err)
		}
		if len(tracked) > 0 {
			first := gitx.SplitZ(tracked)[0]
			return refuse(p, "%q holds the file %q tracked by the repository %q", p, first, root)
		}
		ignored, err := ignoredBy(root, rel)
		if err != nil {
			return refuse(p, "%q: git cannot decide whether the repository %q ignores it: %v", p, root, err)
		}
		if !ignored {
			return refuse(p, "%q is not ignored by the repository %q (add it to that repository's .gitignore)", p, root)
		}
	}
	return nil
}

// trackedLinks refuses p when one of its existing ancestors, as written, is
// a symbolic link tracked by a repository containing it: the repository's
// author, not the user, would choose where the record is written (a cloned
// repository tracking reviews -> ../elsewhere).
func trackedLinks(p string) error {
	abs, err := filepath.Abs(p)
	if err != nil {
		return refuse(p, "%q: cannot resolve the path: %v", p, err)
	}
	for cur := abs; ; cur = filepath.Dir(cur) {
		if fi, err := os.Lstat(cur); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			dir, err := filepath.EvalSymlinks(filepath.Dir(cur))
			if err != nil {
				return refuse(p, "%q: cannot resolve the path: %v", p, err)
			}
			link := filepath.Join(dir, filepath.Base(cur))
			for _, root := range Repositories(dir) {
				rel, err := filepath.Rel(root, link)
				if err != nil {
					continue
				}
				out, err := gitx.Git(root, "ls-files", "-z", "--full-name", "--", ":(literal)"+filepath.ToSlash(rel))
				if err != nil {
					return refuse(p, "%q: git cannot decide whether the repository %q tracks the symbolic link %q: %v", p, root, cur, err)
				}
				if len(out) > 0 {
					return refuse(p, "%q goes through the symbolic link %q tracked by the repository %q; a record path the repository chooses is refused", p, cur, root)
				}
			}
		}
		if filepath.Dir(cur) == cur {
			return nil
		}
	}
}

// ignoredBy asks git check-ignore: exit 0 ignored, 1 not ignored, anything
// else is git failing to decide.
func ignoredBy(root, rel string) (bool, error) {
	_, err := gitx.Git(root, "check-ignore", "-q", "--", rel)
	if err == nil {
		return true, nil
	}
	if gitx.ExitedOne(err) {
		return false, nil
	}
	return false, err
}

// Repositories returns the folders from p's parent chain (p included) that
// hold a .git entry (a folder, or a file as in worktrees and submodules),
// innermost first.
func Repositories(p string) []string {
	var roots []string
	cur := p
	for {
		if _, err := os.Lstat(filepath.Join(cur, ".git")); err == nil {
			roots = append(roots, cur)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return roots
		}
		cur = parent
	}
}

// CheckNewFolder is the rule for `spar run --out`: G28, and the folder does
// not exist yet.
func CheckNewFolder(p string) error {
	if strings.TrimSpace(p) == "" {
		return refuse(p, "%q: the round folder is empty", p)
	}
	if _, err := os.Lstat(p); err == nil {
		return refuse(p, "%q already exists; --out names a round folder that does not exist yet", p)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return refuse(p, "%q: %v", p, err)
	}
	return CheckFolder(p)
}
