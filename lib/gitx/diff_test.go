package gitx

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"
)

// testGit runs git in dir with no user or system configuration and a
// fixed identity; a failure fails the test.
func testGit(t *testing.T, dir string) func(args ...string) {
	return func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@e.invalid", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@e.invalid")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

func TestDiff_RenamesBinaryAndSpaces(t *testing.T) {
	dir := t.TempDir()
	run := testGit(t, dir)
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run("init", "-q")
	write("a.txt", "one\ntwo\nthree\nfour\nfive\nsix\n")
	write("gone.txt", "x\n")
	write("bin.dat", "a\x00b")
	run("add", ".")
	run("commit", "-qm", "base")
	base, err := ResolveCommit(dir, "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(dir, "dir"), 0o755)
	run("mv", "a.txt", "dir/b c.txt")
	write("dir/b c.txt", "one\ntwo\nthree\nfour\nfive\nsix\nseven\n")
	run("rm", "-q", "gone.txt")
	write("bin.dat", "a\x00c")
	write("new.txt", "n\n")
	run("add", "-A")
	run("commit", "-qm", "head")
	head, _ := ResolveCommit(dir, "HEAD")
	got, err := Diff(dir, base, head)
	if err != nil {
		t.Fatal(err)
	}
	want := []FileChange{
		{Path: "bin.dat", Status: "M", Added: -1, Deleted: -1},
		{Path: "dir/b c.txt", OldPath: "a.txt", Status: "R", Added: 1, Deleted: 0},
		{Path: "gone.txt", Status: "D", Added: 0, Deleted: 1},
		{Path: "new.txt", Status: "A", Added: 1, Deleted: 0},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %+v\nwant %+v", got, want)
	}
	none, err := Diff(dir, head, head)
	if err != nil || len(none) != 0 {
		t.Fatalf("same commit: %v %v", none, err)
	}
}

// One git diff gives the raw entries and then the line counts: a path is
// read by its place, so names that look like a raw entry (a colon first)
// or a count ("1\t2") change nothing.
func TestDiff_PathsThatLookLikeEntries(t *testing.T) {
	dir := t.TempDir()
	run := testGit(t, dir)
	run("init", "-q")
	os.WriteFile(filepath.Join(dir, "keep"), []byte("k\n"), 0o644)
	run("add", ".")
	run("commit", "-qm", "base")
	base, _ := ResolveCommit(dir, "HEAD")
	for name, text := range map[string]string{":100644 100644 a b M": "x\ny\n", "1\t2\tz": "z\n", "-\t-\t": "b\x00in"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Skipf("a file name with a tab: %v", err)
		}
	}
	run("add", ".")
	run("commit", "-qm", "head")
	head, _ := ResolveCommit(dir, "HEAD")
	got, err := Diff(dir, base, head)
	if err != nil {
		t.Fatal(err)
	}
	want := []FileChange{
		{Path: "-\t-\t", Status: "A", Added: -1, Deleted: -1},
		{Path: "1\t2\tz", Status: "A", Added: 1, Deleted: 0},
		{Path: ":100644 100644 a b M", Status: "A", Added: 2, Deleted: 0},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
}
