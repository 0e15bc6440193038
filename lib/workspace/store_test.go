package workspace

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func nlink(t *testing.T, p string) uint64 {
	t.Helper()
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	return uint64(fi.Sys().(*syscall.Stat_t).Nlink)
}

// storeRepo is a repository with a base commit of n files and a head
// commit that changes the first changed of them.
func storeRepo(t *testing.T, n, changed int) (repo, base, head string) {
	t.Helper()
	repo = t.TempDir()
	git(t, repo, "init", "-q", "-b", "main")
	for i := 0; i < n; i++ {
		write(t, filepath.Join(repo, fmt.Sprintf("d%d/f%d.txt", i%3, i)), fmt.Sprintf("file %d\n", i), 0o644)
	}
	write(t, filepath.Join(repo, "run.sh"), "#!/bin/sh\n", 0o755)
	os.Symlink("run.sh", filepath.Join(repo, "link"))
	git(t, repo, "add", "-A")
	git(t, repo, "commit", "-q", "-m", "base")
	base = git(t, repo, "rev-parse", "HEAD")
	if changed == 0 {
		return repo, base, base
	}
	for i := 0; i < changed; i++ {
		write(t, filepath.Join(repo, fmt.Sprintf("d%d/f%d.txt", i%3, i)), fmt.Sprintf("changed %d\n", i), 0o644)
	}
	git(t, repo, "add", "-A")
	git(t, repo, "commit", "-q", "-m", "head")
	head = git(t, repo, "rev-parse", "HEAD")
	return repo, base, head
}

func newWS(t *testing.T, root string) string {
	t.Helper()
	ws, err := Create(root, filepath.Join(t.TempDir(), "round"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { Remove(ws) })
	return ws
}

// docs/review-round.md "The workspace": a follow-up round of the same repository writes only the
// blobs no earlier round wrote; every other file is the store's file.
func TestStore_FollowUpWritesOnlyWhatChanged(t *testing.T) {
	repo, base, _ := storeRepo(t, 30, 0)
	root := t.TempDir()
	st, err := StoreOf(root)
	if err != nil {
		t.Fatal(err)
	}
	ws1 := newWS(t, root)
	s1, err := Build(repo, base, base, ws1, st)
	if err != nil {
		t.Fatal(err)
	}
	// 30 distinct texts and run.sh; the symbolic link is never stored.
	if s1.Written != 31 || s1.Stored != 0 {
		t.Fatalf("first round: %+v, want 31 written, 0 stored", s1)
	}
	if err := Remove(ws1); err != nil {
		t.Fatal(err)
	}
	// The store keeps every blob, read-only, linked by nothing now.
	stored := filepath.Join(st.Dir(), "*", "*")
	files, _ := filepath.Glob(stored)
	if len(files) != 31 {
		t.Fatalf("store holds %d files, want 31: %v", len(files), files)
	}
	for _, f := range files {
		fi, _ := os.Lstat(f)
		want := os.FileMode(0o444)
		if strings.HasSuffix(f, "-100755") {
			want = 0o555
		}
		if fi.Mode() != want || nlink(t, f) != 1 {
			t.Errorf("%s: mode %v links %d after the workspace was removed, want %v and 1", f, fi.Mode(), nlink(t, f), want)
		}
	}

	// The follow-up round: 5 files changed.
	for i := 0; i < 5; i++ {
		write(t, filepath.Join(repo, fmt.Sprintf("d%d/f%d.txt", i%3, i)), fmt.Sprintf("next %d\n", i), 0o644)
	}
	git(t, repo, "add", "-A")
	git(t, repo, "commit", "-q", "-m", "next")
	next := git(t, repo, "rev-parse", "HEAD")
	ws2 := newWS(t, root)
	s2, err := Build(repo, next, base, ws2, st)
	if err != nil {
		t.Fatal(err)
	}
	if s2.Written != 5 || s2.Stored != 31 {
		t.Fatalf("follow-up round: %+v, want 5 written, 31 stored", s2)
	}
	for _, c := range []struct{ p, text string }{
		{"head/d0/f0.txt", "next 0\n"}, {"base/d0/f0.txt", "file 0\n"}, {"head/d2/f29.txt", "file 29\n"}, {"head/run.sh", "#!/bin/sh\n"},
	} {
		if b, err := os.ReadFile(filepath.Join(ws2, c.p)); err != nil || string(b) != c.text {
			t.Errorf("%s: %q %v", c.p, b, err)
		}
	}
	if inode(t, filepath.Join(ws2, "head/d2/f29.txt")) != inode(t, st.path(key{git(t, repo, "rev-parse", base+":d2/f29.txt"), "100644"})) {
		t.Error("an unchanged file is not the store's file")
	}
	if target, err := os.Readlink(filepath.Join(ws2, "head/link")); err != nil || target != "run.sh" {
		t.Errorf("head/link: %q %v", target, err)
	}
	// The changed blobs joined the store.
	if files, _ := filepath.Glob(stored); len(files) != 36 {
		t.Errorf("store holds %d files after the follow-up, want 36", len(files))
	}
}

// A stored file that is no longer what the store put there (made writable,
// or its size changed) is never linked: the blob is written from git.
func TestStore_TamperedFileIsNotLinked(t *testing.T) {
	repo, base, _ := storeRepo(t, 3, 0)
	root := t.TempDir()
	st, _ := StoreOf(root)
	ws1 := newWS(t, root)
	if _, err := Build(repo, base, base, ws1, st); err != nil {
		t.Fatal(err)
	}
	Remove(ws1)
	oid := git(t, repo, "rev-parse", base+":d0/f0.txt")
	p := st.path(key{oid, "100644"})
	if err := os.Chmod(p, 0o644); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(p, []byte("tampered\n"), 0o644)
	oid1 := git(t, repo, "rev-parse", base+":d1/f1.txt")
	p1 := st.path(key{oid1, "100644"})
	os.Chmod(p1, 0o644)
	os.WriteFile(p1, []byte("file 1\nmore\n"), 0o644)
	os.Chmod(p1, 0o444) // read-only again, but not the blob's size

	ws2 := newWS(t, root)
	s, err := Build(repo, base, base, ws2, st)
	if err != nil {
		t.Fatal(err)
	}
	if s.Written != 2 || s.Stored != 2 {
		t.Fatalf("%+v: want the 2 tampered blobs written, 2 stored", s)
	}
	for f, text := range map[string]string{"head/d0/f0.txt": "file 0\n", "base/d1/f1.txt": "file 1\n"} {
		if b, _ := os.ReadFile(filepath.Join(ws2, f)); string(b) != text {
			t.Errorf("%s: %q, want %q", f, b, text)
		}
		if fi, _ := os.Lstat(filepath.Join(ws2, f)); fi.Mode() != 0o444 {
			t.Errorf("%s: mode %v", f, fi.Mode())
		}
	}
}

// Remove gives folders their write bit back and never chmods a file: the
// store's inodes keep 0444 / 0555 (a chmod through a hard link would make
// the store writable).
func TestRemove_LeavesStoreReadOnly(t *testing.T) {
	repo, base, head := storeRepo(t, 4, 1)
	root := t.TempDir()
	st, _ := StoreOf(root)
	ws := newWS(t, root)
	if _, err := Build(repo, head, base, ws, st); err != nil {
		t.Fatal(err)
	}
	before := map[string]os.FileMode{}
	files, _ := filepath.Glob(filepath.Join(st.Dir(), "*", "*"))
	for _, f := range files {
		fi, _ := os.Lstat(f)
		before[f] = fi.Mode()
		if nlink(t, f) < 2 {
			t.Errorf("%s: %d links while the workspace exists", f, nlink(t, f))
		}
	}
	if err := Remove(ws); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(ws); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("workspace still there: %v", err)
	}
	if _, err := os.Lstat(ws + roundSuffix); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s.round still there", ws)
	}
	for f, m := range before {
		fi, _ := os.Lstat(f)
		if fi.Mode() != m || m.Perm()&0o222 != 0 {
			t.Errorf("%s: mode %v after Remove, was %v", f, fi.Mode(), m)
		}
	}
	if err := Remove(ws); err != nil {
		t.Errorf("removing a removed workspace: %v", err)
	}
}

// emlinkAt makes link fail with EMLINK once the source has max links, the
// way ext4 does at 65,000.
func emlinkAt(t *testing.T, max uint64) {
	t.Helper()
	old := link
	link = func(src, dst string) error {
		fi, err := os.Lstat(src)
		if err == nil && uint64(fi.Sys().(*syscall.Stat_t).Nlink) >= max {
			return &os.LinkError{Op: "link", Old: src, New: dst, Err: syscall.EMLINK}
		}
		return old(src, dst)
	}
	t.Cleanup(func() { link = old })
}

// A blob shared by more paths than a file may have links gets another copy
// (simulated EMLINK at 4 links), from git and from the store.
func TestEMLINK_AnotherCopy(t *testing.T) {
	repo := t.TempDir()
	git(t, repo, "init", "-q", "-b", "main")
	for i := 0; i < 10; i++ {
		write(t, filepath.Join(repo, fmt.Sprintf("f%02d", i)), "same\n", 0o644)
	}
	git(t, repo, "add", "-A")
	git(t, repo, "commit", "-q", "-m", "c")
	c := git(t, repo, "rev-parse", "HEAD")
	emlinkAt(t, 4)
	root := t.TempDir()
	st, _ := StoreOf(root)
	for round := 0; round < 2; round++ {
		ws := newWS(t, root)
		s, err := Build(repo, c, c, ws, st)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		// 20 paths (and the store's name in the first round) at 4 links
		// a file: 5 or 6 files, so 4 or 5 extra copies.
		if s.Copies < 4 {
			t.Errorf("round %d: %+v, want at least 4 copies", round, s)
		}
		for _, cp := range []string{Head, Base} {
			for i := 0; i < 10; i++ {
				p := filepath.Join(ws, cp, fmt.Sprintf("f%02d", i))
				b, err := os.ReadFile(p)
				if err != nil || string(b) != "same\n" {
					t.Errorf("round %d %s: %q %v", round, p, b, err)
				}
				fi, _ := os.Lstat(p)
				if fi.Mode() != 0o444 || nlink(t, p) > 4 {
					t.Errorf("round %d %s: mode %v, %d links", round, p, fi.Mode(), nlink(t, p))
				}
			}
		}
		if round == 1 && s.Stored != 1 {
			t.Errorf("second round: %+v, want the blob from the store", s)
		}
	}
}

// The real limit: 65,001 identical files in one tree (ext4 allows 65,000
// links per file) at head, an empty tree at base. Before, spar run exited
// 74 "too many links".
func TestEMLINK_Real65001(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	const n = 65001
	repo := t.TempDir()
	git(t, repo, "init", "-q", "-b", "main")
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir = repo
	in, _ := cmd.StdinPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(in)
	fmt.Fprintf(w, "blob\nmark :1\ndata 5\nsame\n\ncommit refs/heads/main\nmark :2\ncommitter t <t@example.invalid> 1700000000 +0000\ndata 5\nempty\n\n")
	fmt.Fprintf(w, "commit refs/heads/main\ncommitter t <t@example.invalid> 1700000001 +0000\ndata 2\nc\nfrom :2\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(w, "M 100644 :1 d%02d/f%05d\n", i%100, i)
	}
	w.WriteString("\ndone\n")
	w.Flush()
	in.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	c, empty := git(t, repo, "rev-parse", "main"), git(t, repo, "rev-parse", "main~1")
	root := t.TempDir()
	st, _ := StoreOf(root)
	start := time.Now()
	ws := newWS(t, root)
	s, err := Build(repo, c, empty, ws, st)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d paths in %v: %+v", s.Paths, time.Since(start), s)
	if s.Paths != n || s.Copies != 1 {
		t.Errorf("%+v: want %d paths and one extra copy", s, n)
	}
	for _, p := range []string{"head/d00/f00000", "head/d00/f65000", "head/d99/f64999"} {
		if b, err := os.ReadFile(filepath.Join(ws, p)); err != nil || string(b) != "same\n" {
			t.Errorf("%s: %q %v", p, b, err)
		}
	}
	if err := Remove(ws); err != nil {
		t.Fatal(err)
	}
}

// Create: a new folder per round under workspaces/, 0755, with the .round
// file naming the round; RemoveFor removes only a workspace that is spar's
// for that round.
func TestCreateAndRemoveFor(t *testing.T) {
	root := t.TempDir()
	rd := filepath.Join(t.TempDir(), "code-1")
	os.Mkdir(rd, 0o755)
	a, err := Create(root, rd)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Create(root, rd)
	if err != nil {
		t.Fatal(err)
	}
	if a == b || filepath.Dir(a) != filepath.Join(root, WorkspacesDir) {
		t.Fatalf("ids %s %s", a, b)
	}
	if fi, _ := os.Lstat(a); fi.Mode() != os.ModeDir|0o755 {
		t.Errorf("mode %v", fi.Mode())
	}
	if Owner(a) != rd {
		t.Errorf("owner %q", Owner(a))
	}
	// No link: nothing removed.
	if ok, err := RemoveFor(rd, a); ok || err != nil {
		t.Errorf("without a link: %v %v", ok, err)
	}
	os.Symlink(b, filepath.Join(rd, "workspace"))
	// round.json naming another folder than the link: left alone.
	if ok, _ := RemoveFor(rd, a); ok {
		t.Error("removed a workspace the link does not name")
	}
	other := filepath.Join(t.TempDir(), "workspaces", "x")
	os.MkdirAll(other, 0o755)
	if ok, _ := RemoveFor(rd, other); ok {
		t.Error("removed a folder spar did not make")
	}
	os.Mkdir(filepath.Join(b, "head"), 0o755)
	os.WriteFile(filepath.Join(b, "head", "f"), []byte("x"), 0o444)
	os.Chmod(filepath.Join(b, "head"), 0o555)
	if ok, err := RemoveFor(rd, b); !ok || err != nil {
		t.Fatalf("RemoveFor: %v %v", ok, err)
	}
	if _, err := os.Lstat(b); !errors.Is(err, os.ErrNotExist) {
		t.Error("workspace still there")
	}
	// The link dangles; doing it again is nothing.
	if ok, err := RemoveFor(rd, b); ok || err != nil {
		t.Errorf("again: %v %v", ok, err)
	}
}

// Root: $XDG_CACHE_HOME/jaekit/spar, else ~/.cache/jaekit/spar; inside a Git
// repository, the fallback in TMPDIR; when that is inside one too, refused.
func TestRoot_OutsideEveryRepository(t *testing.T) {
	top := t.TempDir()
	xdg := filepath.Join(top, "xdg")
	home := filepath.Join(top, "home")
	tmp := filepath.Join(top, "tmp")
	os.MkdirAll(tmp, 0o755)
	uid := os.Getuid()
	r, note, err := rootFrom(xdg, home, tmp, uid)
	if err != nil || r != filepath.Join(xdg, "jaekit", "spar") || note != "" {
		t.Fatalf("xdg: %q %q %v", r, note, err)
	}
	if fi, _ := os.Lstat(r); fi.Mode().Perm() != 0o700 {
		t.Errorf("root mode %v", fi.Mode())
	}
	r, _, err = rootFrom("relative/xdg", home, tmp, uid)
	if err != nil || r != filepath.Join(home, ".cache", "jaekit", "spar") {
		t.Fatalf("home: %q %v", r, err)
	}
	// A home folder kept in Git.
	git(t, home, "init", "-q")
	r, note, err = rootFrom("", home, tmp, uid)
	if err != nil || r != filepath.Join(tmp, fmt.Sprintf("jaekit-spar-%d", uid)) || !strings.Contains(note, "inside the Git repository "+home) {
		t.Fatalf("fallback: %q %q %v", r, note, err)
	}
	git(t, top, "init", "-q")
	if _, _, err = rootFrom("", home, tmp, uid); err == nil || !strings.Contains(err.Error(), "set XDG_CACHE_HOME") {
		t.Fatalf("everything in a repository: %v", err)
	}
	// A fallback folder that is not this user's own: refused.
	os.RemoveAll(filepath.Join(top, ".git"))
	os.RemoveAll(filepath.Join(tmp, fmt.Sprintf("jaekit-spar-%d", uid)))
	os.Symlink(t.TempDir(), filepath.Join(tmp, fmt.Sprintf("jaekit-spar-%d", uid)))
	if _, _, err = rootFrom("", home, tmp, uid); err == nil {
		t.Fatal("a planted link as the fallback folder was accepted")
	}
}

// Prune: once per PruneEvery; old workspaces no round needs, and stored
// blobs no workspace links whose links changed more than BlobMaxAge ago.
func TestPrune(t *testing.T) {
	repo, base, head := storeRepo(t, 3, 1)
	root := t.TempDir()
	st, _ := StoreOf(root)
	needed, _ := Create(root, "/rounds/needed")
	unneeded, _ := Create(root, "/rounds/gone")
	if _, err := Build(repo, head, base, needed, st); err != nil {
		t.Fatal(err)
	}
	if _, err := Build(repo, head, base, unneeded, st); err != nil {
		t.Fatal(err)
	}
	defer Remove(needed)
	keep := func(rd, ws string) bool { return rd == "/rounds/needed" }
	// Young workspaces stay.
	if p := Prune(root, keep, time.Now()); !p.Ran || p.Workspaces != 0 || p.Blobs != 0 {
		t.Fatalf("now: %+v", p)
	}
	// Not again within a day.
	if p := Prune(root, keep, time.Now().Add(time.Hour)); p.Ran {
		t.Fatalf("ran twice within a day: %+v", p)
	}
	later := time.Now().Add(2 * 24 * time.Hour)
	if p := Prune(root, keep, later); !p.Ran || p.Workspaces != 1 || p.Blobs != 0 {
		t.Fatalf("two days later: %+v", p)
	}
	if _, err := os.Lstat(unneeded); !errors.Is(err, os.ErrNotExist) {
		t.Error("the unneeded workspace is still there")
	}
	if _, err := os.Lstat(needed); err != nil {
		t.Error("the needed workspace is gone")
	}
	// Blobs the needed workspace links stay however old; once it is gone
	// and BlobMaxAge has passed, they go.
	if p := Prune(root, keep, later.Add(8*24*time.Hour)); p.Blobs != 0 {
		t.Fatalf("linked blobs pruned: %+v", p)
	}
	Remove(needed)
	if p := Prune(root, keep, later.Add(16*24*time.Hour)); p.Blobs != 5 {
		t.Fatalf("unlinked old blobs: %+v, want 5 removed", p)
	}
	if files, _ := filepath.Glob(filepath.Join(st.Dir(), "*", "*")); len(files) != 0 {
		t.Errorf("left in the store: %v", files)
	}
}

// TestTrust_Route1_BlobStorePoisoning: a stored file replaced by a decoy of
// the blob's size and the store's read-only mode passes every check of
// mode and size; its git blob id does not match, so the workspace gets the
// blob from git and the decoy leaves the store.
func TestTrust_Route1_BlobStorePoisoning(t *testing.T) {
	repo, base, _ := storeRepo(t, 3, 0)
	root := t.TempDir()
	st, _ := StoreOf(root)
	ws1 := newWS(t, root)
	if _, err := Build(repo, base, base, ws1, st); err != nil {
		t.Fatal(err)
	}
	Remove(ws1)
	oid := git(t, repo, "rev-parse", base+":d0/f0.txt")
	p := st.path(key{oid, "100644"})
	real, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	decoy := []byte(strings.Repeat("X", len(real)))
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, decoy, 0o444); err != nil {
		t.Fatal(err)
	}
	if !st.usable(key{oid, "100644"}, int64(len(real))) {
		t.Fatal("the decoy should pass the mode and size checks")
	}

	ws2 := newWS(t, root)
	s, err := Build(repo, base, base, ws2, st)
	if err != nil {
		t.Fatal(err)
	}
	if s.Written != 1 {
		t.Errorf("%+v: want the poisoned blob written from git", s)
	}
	for _, f := range []string{"head/d0/f0.txt", "base/d0/f0.txt"} {
		if b, _ := os.ReadFile(filepath.Join(ws2, f)); string(b) != string(real) {
			t.Errorf("%s: %q, want the blob %q", f, b, real)
		}
	}
	if b, _ := os.ReadFile(p); string(b) == string(decoy) {
		t.Error("the decoy is still in the store")
	}
}
