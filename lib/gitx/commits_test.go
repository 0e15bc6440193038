package gitx

import (
	"os/exec"
	"strings"
	"testing"
)

// Commits tells commits from objects the repository lacks and from
// objects of another kind, in the order given, with one git process.
func TestCommits_HaveAndLack(t *testing.T) {
	repo := t.TempDir()
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		cmd.Env = append(cmd.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	run("init", "-q")
	run("commit", "-q", "--allow-empty", "-m", "a")
	c := run("rev-parse", "HEAD")
	tree := run("rev-parse", "HEAD^{tree}")
	gone := strings.Repeat("d", len(c))
	have, lack, err := Commits(repo, []string{gone, c, tree})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(have, ",") != c || strings.Join(lack, ",") != gone+","+tree {
		t.Fatalf("have %v, lack %v", have, lack)
	}
	if _, _, err := Commits(repo, []string{c + "\nHEAD"}); err == nil {
		t.Fatal("an id with a newline was taken")
	}
}
