package gitx

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// gitT runs git in dir for a test, with a fixed identity and no user config.
func gitT(t *testing.T, dir string, stdin string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.invalid",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.invalid")
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func write(t *testing.T, dir, name, text string, mode os.FileMode) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), mode); err != nil {
		t.Fatal(err)
	}
}

// docs/review-round.md §6.2: the files and folders of a copy are the commit tree's blob
// entries (regular, executable, symbolic link) and the folders above them;
// a submodule (gitlink) is not in the copy.
func TestTree_Copy(t *testing.T) {
	dir := t.TempDir()
	gitT(t, dir, "", "init", "-q")
	write(t, dir, "app/main.go", "package main\n", 0o644)
	write(t, dir, "checks/my test.py", "a\nb", 0o644)
	write(t, dir, "tools/run.sh", "#!/bin/sh\n", 0o755)
	write(t, dir, "한글/파일.md", "x\n", 0o644)
	if err := os.Symlink("app/main.go", filepath.Join(dir, "link.go")); err != nil {
		t.Fatal(err)
	}
	gitT(t, dir, "", "add", "-A")
	// A submodule entry, alone in its folder and beside a file.
	commitID := strings.Repeat("1", 40)
	gitT(t, dir, "", "update-index", "--add", "--cacheinfo", "160000,"+commitID+",vendor/only/sub")
	gitT(t, dir, "", "update-index", "--add", "--cacheinfo", "160000,"+commitID+",app/sub")
	gitT(t, dir, "", "commit", "-q", "-m", "c")
	head := gitT(t, dir, "", "rev-parse", "HEAD")

	tr, err := LoadTree(dir, head)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Len() != 5 {
		t.Errorf("Len = %d, want 5", tr.Len())
	}
	for p, m := range map[string]Mode{"app/main.go": Regular, "checks/my test.py": Regular,
		"tools/run.sh": Executable, "link.go": Symlink, "한글/파일.md": Regular} {
		b, ok := tr.Blob(p)
		if !ok || b.Mode != m || len(b.ID) < 40 {
			t.Errorf("Blob(%q) = %+v, %v; want mode %v", p, b, ok, m)
		}
	}
	if b, _ := tr.Blob("link.go"); b.IsRegular() {
		t.Errorf("a symbolic link is not a regular file")
	}
	if b, _ := tr.Blob("tools/run.sh"); !b.IsRegular() {
		t.Errorf("an executable file is a regular file of the commit")
	}
	for _, p := range []string{"", "app", "checks", "tools", "한글"} {
		if !tr.IsDir(p) || !tr.Has(p) {
			t.Errorf("folder %q missing", p)
		}
	}
	for _, p := range []string{"app/sub", "vendor", "vendor/only", "vendor/only/sub", "app/main.go/", "checks/my", "missing"} {
		if tr.Has(p) {
			t.Errorf("Has(%q) = true; submodules and what is not tracked are not in the copy", p)
		}
	}
	if !tr.IsSubmodule("app/sub") || !tr.IsSubmodule("vendor/only/sub") || tr.IsSubmodule("app/main.go") {
		t.Errorf("IsSubmodule does not name the gitlinks")
	}
	if tr.IsDir("app/main.go") {
		t.Errorf("a file is not a folder")
	}

	// Blob contents: one cat-file call, each blob once.
	mb, _ := tr.Blob("app/main.go")
	tb, _ := tr.Blob("checks/my test.py")
	got, err := ReadBlobs(dir, []string{mb.ID, tb.ID, mb.ID})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || string(got[mb.ID]) != "package main\n" || string(got[tb.ID]) != "a\nb" {
		t.Errorf("ReadBlobs = %q", got)
	}
	if _, err := ReadBlobs(dir, []string{strings.Repeat("0", 40)}); err == nil {
		t.Errorf("ReadBlobs of a missing object succeeded")
	}
	if _, err := LoadTree(dir, "--output=x"); err == nil {
		t.Errorf("LoadTree read a revision as an option")
	}
}

// G8: the line count is the number of newlines, plus one when the last line
// does not end with a newline.
func TestG8_CountLines(t *testing.T) {
	cases := map[string]int{"": 0, "a": 1, "a\n": 1, "a\nb": 2, "a\nb\n": 2, "\n": 1, "\n\n": 2, "a\r\nb\r\n": 2}
	for in, want := range cases {
		if got := CountLines([]byte(in)); got != want {
			t.Errorf("CountLines(%q) = %d, want %d", in, got, want)
		}
		if ls := Lines([]byte(in)); strings.Join(ls, "\n") != in {
			t.Errorf("Lines(%q) does not join back", in)
		}
	}
}

// sameTree reports whether two trees hold the same commit, files, folders
// and gitlinks.
func sameTree(a, b *Tree) bool {
	return a.Commit == b.Commit && reflect.DeepEqual(a.blobs, b.blobs) && reflect.DeepEqual(a.dirs, b.dirs) && reflect.DeepEqual(a.gitlinks, b.gitlinks)
}

// Trees gives the Tree LoadTree gives, for many commits through one
// cat-file process (the gate re-derives every round, docs/trust.md "The
// gate"), and LoadTree's error for a commit the batch cannot read.
func TestTrees_SameAsLoadTree(t *testing.T) {
	dir := t.TempDir()
	gitT(t, dir, "", "init", "-q")
	write(t, dir, "app/main.go", "package main\n", 0o644)
	write(t, dir, "app/deep/er/x.go", "x\n", 0o644)
	write(t, dir, "tools/run.sh", "#!/bin/sh\n", 0o755)
	write(t, dir, "한글/파일.md", "x\n", 0o644)
	if err := os.Symlink("app/main.go", filepath.Join(dir, "link.go")); err != nil {
		t.Fatal(err)
	}
	gitT(t, dir, "", "add", "-A")
	gitT(t, dir, "", "update-index", "--add", "--cacheinfo", "160000,"+strings.Repeat("1", 40)+",vendor/only/sub")
	gitT(t, dir, "", "commit", "-q", "-m", "one")
	one := gitT(t, dir, "", "rev-parse", "HEAD")
	write(t, dir, "app/deep/er/y.go", "y\n", 0o644)
	os.Remove(filepath.Join(dir, "tools/run.sh"))
	gitT(t, dir, "", "add", "-A")
	gitT(t, dir, "", "commit", "-q", "-m", "two")
	two := gitT(t, dir, "", "rev-parse", "HEAD")

	trees := NewTrees(dir)
	defer trees.Close()
	for _, c := range []string{one, two, one} {
		want, err := LoadTree(dir, c)
		if err != nil {
			t.Fatal(err)
		}
		got, err := trees.Load(c)
		if err != nil {
			t.Fatal(err)
		}
		if !sameTree(got, want) {
			t.Errorf("%s: Trees gives %+v, LoadTree %+v", c, got, want)
		}
	}
	for _, bad := range []string{strings.Repeat("0", 40), "--output=x", one + "\n" + two} {
		_, want := LoadTree(dir, bad)
		_, got := trees.Load(bad)
		if want == nil || got == nil || got.Error() != want.Error() {
			t.Errorf("Load(%q): %v, want LoadTree's %v", bad, got, want)
		}
	}
	if err := trees.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}

	// Prefetched, a level of the trees at a time: the same trees, the same
	// errors, and no round trip of its own for a prefetched commit.
	pre := NewTrees(dir)
	defer pre.Close()
	pre.Prefetch([]string{one, two, one, strings.Repeat("0", 40), "--output=x"})
	if pre.trips != 5 || pre.broken {
		// One round trip for the commits, then one for each level of
		// their trees: the roots, {app, tools, 한글, vendor}, {deep,
		// only}, {er}.
		t.Errorf("prefetch: %d round trips (broken %t), want 5", pre.trips, pre.broken)
	}
	for _, c := range []string{one, two} {
		want, _ := LoadTree(dir, c)
		got, err := pre.Load(c)
		if err != nil || !sameTree(got, want) {
			t.Errorf("%s prefetched: %+v (%v), LoadTree %+v", c, got, err, want)
		}
	}
	if pre.trips != 5 {
		t.Errorf("loading prefetched commits made %d round trips", pre.trips-5)
	}
	for _, bad := range []string{strings.Repeat("0", 40), "--output=x"} {
		_, want := LoadTree(dir, bad)
		_, got := pre.Load(bad)
		if want == nil || got == nil || got.Error() != want.Error() {
			t.Errorf("prefetched Load(%q): %v, want LoadTree's %v", bad, got, want)
		}
	}
}
