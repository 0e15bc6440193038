package gitx

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestLineMap: lines of one commit read at a later one: shifted by lines
// inserted or deleted before them, gone when changed or deleted, followed
// through a rename; an unchanged file keeps its lines; a deleted file is gone.
func TestLineMap(t *testing.T) {
	dir := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
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
	write := func(name string, lines ...string) {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		os.WriteFile(filepath.Join(dir, name), []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	}
	git("init", "-q")
	write("a.go", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10")
	write("same.go", "x")
	write("gone.go", "x")
	write("old.go", "l1", "l2", "l3", "l4", "l5", "l6", "l7", "l8", "l9", "l10", "l11", "l12")
	git("add", "-A")
	git("commit", "-qm", "one")
	from := git("rev-parse", "HEAD")
	// a.go: a line inserted before 2, line 5 changed, line 8 deleted
	write("a.go", "1", "new", "2", "3", "4", "FIVE", "6", "7", "9", "10")
	os.Remove(filepath.Join(dir, "gone.go"))
	git("mv", "old.go", "renamed.go")
	write("renamed.go", "l0", "l1", "l2", "l3", "l4", "l5", "l6", "l7", "l8", "l9", "l10", "l11", "l12")
	git("add", "-A")
	git("commit", "-qm", "two")
	to := git("rev-parse", "HEAD")

	m, err := NewLineMap(dir, from, to)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path       string
		start, end int
		want       string
		s, e       int
		ok         bool
	}{
		{"a.go", 1, 1, "a.go", 1, 1, true},
		{"a.go", 2, 4, "a.go", 3, 5, true},
		{"a.go", 5, 5, "", 0, 0, false},
		{"a.go", 4, 6, "", 0, 0, false},
		{"a.go", 7, 7, "a.go", 8, 8, true},
		{"a.go", 8, 8, "", 0, 0, false},
		{"a.go", 9, 10, "a.go", 9, 10, true},
		{"same.go", 1, 1, "same.go", 1, 1, true},
		{"gone.go", 1, 1, "", 0, 0, false},
		{"old.go", 3, 4, "renamed.go", 4, 5, true},
	} {
		p, s, e, ok := m.Map(c.path, c.start, c.end)
		if ok != c.ok || (ok && (p != c.want || s != c.s || e != c.e)) {
			t.Errorf("%s:%d-%d -> %s:%d-%d %v, want %s:%d-%d %v", c.path, c.start, c.end, p, s, e, ok, c.want, c.s, c.e, c.ok)
		}
	}
}
