package growth

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jaekit/spar/lib/glob"
)

// repo makes a repository with three commits and returns their IDs.
func repo(t *testing.T) (string, []string) {
	t.Helper()
	dir := t.TempDir()
	run := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.invalid", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.invalid")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	write := func(name, body string) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run("init", "-q")
	write("app/main.go", "a\nb\n")
	write("old name.go", "x\n")
	run("add", ".")
	run("commit", "-qm", "c0")
	c0 := run("rev-parse", "HEAD")
	write("app/main.go", "a\nB\nc\n")        // +2 -1
	write("checks/t.sh", "1\n2\n3\n")        // +3, check path
	write("checks/blob.bin", "\x00\x01\x02") // binary, check path
	run("mv", "old name.go", "new name.go")  // no renames: -1 and +1
	run("add", ".")
	run("commit", "-qm", "c1")
	c1 := run("rev-parse", "HEAD")
	write("checks/t.sh", "1\n") // -2
	run("commit", "-qam", "c2")
	c2 := run("rev-parse", "HEAD")
	return dir, []string{c0, c1, c2}
}

func TestG24_GrowthSplitByCheckPaths(t *testing.T) {
	dir, c := repo(t)
	set, err := glob.CompileAll([]string{"checks/**"})
	if err != nil {
		t.Fatal(err)
	}
	got := Measure(dir, []Pair{
		{From: c[0], To: c[1], CheckPaths: set},
		{From: c[1], To: c[2], CheckPaths: set},
		{From: c[2], To: c[2], CheckPaths: set}, // the same head: no growth
		{From: c[0], To: c[1]},                  // no check paths: all other
	})
	want := []Result{
		{CheckPaths: Side{Files: 2, Added: 3}, Other: Side{Files: 3, Added: 3, Deleted: 2}},
		{CheckPaths: Side{Files: 1, Deleted: 2}},
		{},
		{Other: Side{Files: 5, Added: 6, Deleted: 2}},
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("pair %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
}

// A pair git cannot diff carries its error; the others are still measured
// (the one-process diff falls back to one diff per pair).
func TestG24_GrowthUnknownCommit(t *testing.T) {
	dir, c := repo(t)
	missing := strings.Repeat("0", 40)
	got := Measure(dir, []Pair{{From: c[1], To: c[2]}, {From: missing, To: c[2]}})
	if got[0].Err != nil || got[0].Other != (Side{Files: 1, Deleted: 2}) {
		t.Errorf("pair 0: %+v", got[0])
	}
	if got[1].Err == nil {
		t.Errorf("pair 1: no error for a missing commit: %+v", got[1])
	}
	if len(Measure(dir, nil)) != 0 {
		t.Error("no pairs: want no results")
	}
}
