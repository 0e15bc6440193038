package workspace

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.invalid",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.invalid")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func write(t testing.TB, path, text string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), mode); err != nil {
		t.Fatal(err)
	}
}

func inode(t *testing.T, p string) uint64 {
	t.Helper()
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Ino
}

// Blobs and symbolic links only, no submodules, read-only, each distinct
// blob written once (docs/review-round.md §1, docs/review-round.md §6.2).
func TestMaterialize(t *testing.T) {
	repo := t.TempDir()
	git(t, repo, "init", "-q", "-b", "main")
	write(t, filepath.Join(repo, "a.txt"), "same\n", 0o644)
	write(t, filepath.Join(repo, "dir/sub/b.go"), "package b\n", 0o644)
	write(t, filepath.Join(repo, "run.sh"), "#!/bin/sh\n", 0o755)
	write(t, filepath.Join(repo, "dup1"), "dup\n", 0o644)
	write(t, filepath.Join(repo, "dup2"), "dup\n", 0o644)
	write(t, filepath.Join(repo, "dupx"), "dup\n", 0o755)
	write(t, filepath.Join(repo, "old.go"), "old\n", 0o644)
	if err := os.Symlink("a.txt", filepath.Join(repo, "link")); err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("0123456789abcdef", (inlineLimit/16)+100)
	write(t, filepath.Join(repo, "big.bin"), big, 0o644)
	git(t, repo, "add", "-A")
	// A submodule entry (gitlink) in the index.
	git(t, repo, "update-index", "--add", "--cacheinfo", "160000,"+strings.Repeat("1", 40)+",sub")
	git(t, repo, "commit", "-q", "-m", "base")
	base := git(t, repo, "rev-parse", "HEAD")
	write(t, filepath.Join(repo, "dir/sub/b.go"), "package b // changed\n", 0o644)
	write(t, filepath.Join(repo, "new.txt"), "new\n", 0o644)
	os.Remove(filepath.Join(repo, "old.go"))
	git(t, repo, "add", "-A")
	git(t, repo, "commit", "-q", "-m", "head")
	head := git(t, repo, "rev-parse", "HEAD")

	ws := filepath.Join(t.TempDir(), "workspace")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	defer MakeWritable(ws)
	if err := Materialize(repo, head, base, ws); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"head/a.txt": "same\n", "base/a.txt": "same\n",
		"head/dir/sub/b.go": "package b // changed\n", "base/dir/sub/b.go": "package b\n",
		"head/new.txt": "new\n", "base/old.go": "old\n",
		"head/big.bin": big, "base/big.bin": big,
		"head/dupx": "dup\n",
	}
	for p, text := range want {
		b, err := os.ReadFile(filepath.Join(ws, p))
		if err != nil || string(b) != text {
			t.Errorf("%s: %q, %v", p, b, err)
		}
	}
	for _, p := range []string{"head/old.go", "base/new.txt", "head/sub", "base/sub"} {
		if _, err := os.Lstat(filepath.Join(ws, p)); !os.IsNotExist(err) {
			t.Errorf("%s exists (err %v)", p, err)
		}
	}
	if target, err := os.Readlink(filepath.Join(ws, "head/link")); err != nil || target != "a.txt" {
		t.Errorf("head/link: %q %v", target, err)
	}
	// Each distinct (blob, mode) is one file: hard links within and across copies.
	same := [][2]string{{"head/a.txt", "base/a.txt"}, {"head/dup1", "head/dup2"}, {"head/dup1", "base/dup2"}, {"head/big.bin", "base/big.bin"}}
	for _, s := range same {
		if inode(t, filepath.Join(ws, s[0])) != inode(t, filepath.Join(ws, s[1])) {
			t.Errorf("%s and %s are not one file", s[0], s[1])
		}
	}
	if inode(t, filepath.Join(ws, "head/dup1")) == inode(t, filepath.Join(ws, "head/dupx")) {
		t.Errorf("dup1 and the executable dupx share a file (modes differ)")
	}
	modes := map[string]os.FileMode{"head/a.txt": 0o444, "head/run.sh": 0o555, "base/run.sh": 0o555, "head/dir": 0o555 | os.ModeDir, "head": 0o555 | os.ModeDir, "base/dir/sub": 0o555 | os.ModeDir}
	for p, m := range modes {
		fi, err := os.Lstat(filepath.Join(ws, p))
		if err != nil || fi.Mode() != m {
			t.Errorf("%s: mode %v, want %v (%v)", p, fi.Mode(), m, err)
		}
	}
}

func TestMaterializeRefusesExisting(t *testing.T) {
	repo := t.TempDir()
	git(t, repo, "init", "-q", "-b", "main")
	write(t, filepath.Join(repo, "a"), "a\n", 0o644)
	git(t, repo, "add", "-A")
	git(t, repo, "commit", "-q", "-m", "c")
	c := git(t, repo, "rev-parse", "HEAD")
	ws := t.TempDir()
	os.Mkdir(filepath.Join(ws, "head"), 0o755)
	if err := Materialize(repo, c, c, ws); err == nil {
		t.Fatal("no error for an existing head folder")
	}
	if err := Materialize(repo, "0000000000000000000000000000000000000000", c, t.TempDir()); err == nil {
		t.Fatal("no error for a missing commit")
	}
	_ = fmt.Sprint()
}

// The workspace holds the commit's own blobs, whatever the repository or
// the caller's environment says: a replace ref (`git replace <blob>
// <other>`) swaps what git cat-file gives for a blob unless replace
// objects are off, and GIT_DIR or GIT_OBJECT_DIRECTORY in the agent's
// environment point git at other objects. The packet and the diff read the
// repository through gitx (docs/trust.md "Git, readers and bounded work");
// the workspace's blobs must come the same way, else the reviewers read
// code the packet does not describe.
func TestTrust_WorkspaceReadsTheCommitsOwnBlobs(t *testing.T) {
	const want = "func check() { return verify(token) }\n"
	setup := func(t *testing.T) (repo, head, decoy string) {
		repo = t.TempDir()
		git(t, repo, "init", "-q", "-b", "main")
		write(t, filepath.Join(repo, "auth.go"), want, 0o644)
		git(t, repo, "add", "-A")
		git(t, repo, "commit", "-q", "-m", "one")
		head = git(t, repo, "rev-parse", "HEAD")
		// What the agent would rather the reviewers read.
		decoy = filepath.Join(t.TempDir(), "decoy")
		write(t, decoy, "func check() { return true }\n", 0o644)
		return repo, head, decoy
	}
	check := func(t *testing.T, repo, head string) {
		out := t.TempDir()
		if err := Materialize(repo, head, head, out); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(out, "head", "auth.go"))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Errorf("the workspace holds %q, not the commit's blob", got)
		}
	}
	t.Run("replace ref", func(t *testing.T) {
		repo, head, decoy := setup(t)
		other := git(t, repo, "hash-object", "-w", decoy)
		git(t, repo, "replace", git(t, repo, "rev-parse", "HEAD:auth.go"), other)
		check(t, repo, head)
	})
	t.Run("environment", func(t *testing.T) {
		repo, head, decoy := setup(t)
		// Another repository that borrows the real one's objects and
		// replaces the blob, named by GIT_DIR in the agent's environment.
		elsewhere := t.TempDir()
		git(t, elsewhere, "init", "-q", "--bare")
		write(t, filepath.Join(elsewhere, "objects", "info", "alternates"), filepath.Join(repo, ".git", "objects")+"\n", 0o644)
		other := git(t, elsewhere, "hash-object", "-w", decoy)
		git(t, elsewhere, "replace", git(t, repo, "rev-parse", "HEAD:auth.go"), other)
		t.Setenv("GIT_DIR", elsewhere)
		check(t, repo, head)
	})
}
