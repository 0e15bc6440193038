package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jaekit/spar/lib/recordpath"
)

// Where the workspace lives (docs/review-round.md "The workspace"): outside every Git repository, so that a reviewer started in
// it loads none of the reviewed repository's instruction files and
// configuration, and the repository's own tools (gofmt -l ., rm -rf
// reviews) never meet the read-only copies.
//
//	<root>/workspaces/<id>/        head/ and base/ (the workspace)
//	<root>/workspaces/<id>.round   the round folder it was made for
//	<root>/blobs/<ab>/<cdef…>-<mode> the blob store (store.go)
//	<root>/.pruned                 when Prune last ran
//
// <root> is $XDG_CACHE_HOME/jaekit/spar (an absolute XDG_CACHE_HOME, as the
// XDG base directory rules say), else $HOME/.cache/jaekit/spar; when that
// is inside a Git repository (a home folder kept in Git), the fallback
// <TMPDIR>/jaekit-spar-<uid>; when that is too, Root refuses.
const (
	WorkspacesDir = "workspaces"
	BlobsDir      = "blobs"
	roundSuffix   = ".round"
	prunedFile    = ".pruned"
)

// Root returns the real path of spar's cache folder, created when missing
// (0700), and a note when it is the fallback (for the user: say why).
func Root() (root, note string, err error) {
	return rootFrom(os.Getenv("XDG_CACHE_HOME"), os.Getenv("HOME"), os.TempDir(), os.Getuid())
}

func rootFrom(xdg, home, tmp string, uid int) (string, string, error) {
	var cache string
	switch {
	case filepath.IsAbs(xdg):
		cache = filepath.Join(xdg, "jaekit", "spar")
	case filepath.IsAbs(home):
		cache = filepath.Join(home, ".cache", "jaekit", "spar")
	}
	var inside string
	if cache != "" {
		real, err := recordpath.Resolve(cache)
		if err != nil {
			return "", "", fmt.Errorf("cache folder %s: %v", cache, err)
		}
		repos := recordpath.Repositories(real)
		if len(repos) == 0 {
			r, err := makeRoot(cache, -1)
			return r, "", err
		}
		inside = fmt.Sprintf("the cache folder %s is inside the Git repository %s", cache, repos[0])
	} else {
		inside = "neither XDG_CACHE_HOME nor HOME is an absolute path"
	}
	fallback := filepath.Join(tmp, "jaekit-spar-"+strconv.Itoa(uid))
	real, err := recordpath.Resolve(fallback)
	if err != nil {
		return "", "", fmt.Errorf("%s, and the fallback %s: %v", inside, fallback, err)
	}
	if repos := recordpath.Repositories(real); len(repos) > 0 {
		return "", "", fmt.Errorf("%s, and so is the fallback %s (repository %s): set XDG_CACHE_HOME to a folder outside every Git repository", inside, fallback, repos[0])
	}
	r, err := makeRoot(fallback, uid)
	if err != nil {
		return "", "", fmt.Errorf("%s, and the fallback %s: %v", inside, fallback, err)
	}
	return r, inside + "; the workspace is in " + r, nil
}

// makeRoot creates p (0700) and returns its real path. In a shared folder
// (uid >= 0: the fallback in TMPDIR) p must be this user's own folder, not a
// link or a folder another user made there first.
func makeRoot(p string, uid int) (string, error) {
	if err := os.MkdirAll(p, 0o700); err != nil {
		return "", err
	}
	if uid >= 0 {
		fi, err := os.Lstat(p)
		if err != nil {
			return "", err
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !fi.IsDir() || !ok || int(st.Uid) != uid || fi.Mode().Perm()&0o077 != 0 {
			return "", fmt.Errorf("%s is not a folder of this user's own with mode 0700", p)
		}
	}
	return filepath.EvalSymlinks(p)
}

// Create makes a new, empty workspace folder under root for the round
// folder roundDir and returns its path: <root>/workspaces/<id>, <id> the
// UTC time and a random suffix (unique per round: os.MkdirTemp). The
// folder is 0755 under the 0700 root; <id>.round beside it names roundDir
// (what Prune and RemoveFor check).
func Create(root, roundDir string) (string, error) {
	parent := filepath.Join(root, WorkspacesDir)
	if err := os.MkdirAll(parent, 0o700); err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp(parent, time.Now().UTC().Format("20060102T150405")+"-")
	if err != nil {
		return "", err
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		os.Remove(dir)
		return "", err
	}
	if err := os.WriteFile(dir+roundSuffix, []byte(roundDir+"\n"), 0o644); err != nil {
		os.Remove(dir)
		return "", err
	}
	return dir, nil
}

// StoreOf returns the blob store of root.
func StoreOf(root string) (*Store, error) { return OpenStore(filepath.Join(root, BlobsDir)) }

// Remove deletes the workspace dir and its .round file. Only folders get
// their write bit back (to unlink their entries); files are never chmodded:
// they are hard links of the blob store, and a mode change on a link is a
// change of the store's file. A dir that does not exist is not an error.
func Remove(dir string) error {
	fi, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		os.Remove(dir + roundSuffix)
		return nil
	}
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a workspace folder", dir)
	}
	MakeWritable(dir)
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	os.Remove(dir + roundSuffix)
	return nil
}

// Owner returns the round folder the workspace dir was made for (its .round
// file), or "" when it names none.
func Owner(dir string) string {
	b, err := os.ReadFile(dir + roundSuffix)
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(string(b), "\n")
}

// Linked reports whether <roundDir>/workspace is a symbolic link to dir.
func Linked(roundDir, dir string) bool {
	t, err := os.Readlink(filepath.Join(roundDir, "workspace"))
	return err == nil && t == dir
}

// RemoveFor removes the workspace of the round folder roundDir when it is
// spar's: <roundDir>/workspace links to want (the path round.json records),
// want's parent is a workspaces folder and want's .round file names
// roundDir. It reports whether it removed anything. A dangling link or no
// link is nothing to do. Anything else is left alone (a hand-edited
// round.json never makes spar delete another folder).
func RemoveFor(roundDir, want string) (bool, error) {
	if want == "" || !filepath.IsAbs(want) || filepath.Base(filepath.Dir(want)) != WorkspacesDir {
		return false, nil
	}
	if !Linked(roundDir, want) || Owner(want) != roundDir {
		return false, nil
	}
	if _, err := os.Lstat(want); errors.Is(err, fs.ErrNotExist) {
		os.Remove(want + roundSuffix)
		return false, nil
	}
	if err := Remove(want); err != nil {
		return false, err
	}
	return true, nil
}

// Pruning (docs/review-round.md "The blob store"): at the start of a round,
// at most once per PruneEvery, spar removes
//   - each workspace older than WorkspaceMaxAge that keep says no round
//     needs (its round folder is gone or links elsewhere, the round is
//     recorded with no native reviewer pending, or it never got recorded),
//   - each stored blob no workspace links whose links last changed more
//     than BlobMaxAge ago.
const (
	PruneEvery      = 24 * time.Hour
	WorkspaceMaxAge = 24 * time.Hour
)

// Pruned counts what one Prune removed.
type Pruned struct {
	Ran        bool
	Workspaces int
	Blobs      int
}

// Prune removes what no round can still need (see above). keep(roundDir,
// ws) reports whether the round folder roundDir still needs the workspace
// ws. now is the clock.
func Prune(root string, keep func(roundDir, ws string) bool, now time.Time) Pruned {
	var p Pruned
	stamp := filepath.Join(root, prunedFile)
	if fi, err := os.Stat(stamp); err == nil && now.Sub(fi.ModTime()) < PruneEvery {
		return p
	}
	if f, err := os.OpenFile(stamp, os.O_WRONLY|os.O_CREATE, 0o600); err == nil {
		f.Close()
		os.Chtimes(stamp, now, now)
	}
	p.Ran = true
	parent := filepath.Join(root, WorkspacesDir)
	entries, _ := os.ReadDir(parent)
	for _, e := range entries {
		ws := filepath.Join(parent, e.Name())
		if !e.IsDir() {
			// A .round file whose workspace is gone.
			if strings.HasSuffix(e.Name(), roundSuffix) {
				if _, err := os.Lstat(strings.TrimSuffix(ws, roundSuffix)); errors.Is(err, fs.ErrNotExist) {
					os.Remove(ws)
				}
			}
			continue
		}
		fi, err := os.Lstat(ws + roundSuffix)
		if err != nil {
			fi, err = os.Lstat(ws)
		}
		if err != nil || now.Sub(fi.ModTime()) <= WorkspaceMaxAge {
			continue
		}
		if owner := Owner(ws); owner != "" && keep(owner, ws) {
			continue
		}
		if Remove(ws) == nil {
			p.Workspaces++
		}
	}
	st := &Store{dir: filepath.Join(root, BlobsDir)}
	p.Blobs = st.prune(now, BlobMaxAge)
	return p
}
