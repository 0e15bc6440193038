package gate

import (
	"fmt"
	"math/rand"
	"os/exec"
	"strings"
	"testing"
)

// containsEach gives, for every head and commit, the answer Contains (git
// merge-base --is-ancestor) gives, on a history of branches and merges,
// with commits inside the range from the bases, before it, and one that is
// no commit.
func TestContainsEach_AgreesWithGit(t *testing.T) {
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
	run("init", "-q", "-b", "main")
	var commits []string
	commit := func(msg string) string {
		run("commit", "-q", "--allow-empty", "-m", msg)
		c := run("rev-parse", "HEAD")
		commits = append(commits, c)
		return c
	}
	rng := rand.New(rand.NewSource(7))
	base := commit("base")
	for b := 0; b < 6; b++ {
		run("checkout", "-q", "-b", fmt.Sprintf("b%d", b), commits[rng.Intn(len(commits))])
		for i := 0; i < 5; i++ {
			commit(fmt.Sprintf("b%d-%d", b, i))
		}
		if b > 0 {
			run("merge", "-q", "--no-ff", "-m", "merge", fmt.Sprintf("b%d", rng.Intn(b)))
			commits = append(commits, run("rev-parse", "HEAD"))
		}
	}
	later := commits[len(commits)/2]
	byHead := map[string][]string{}
	for len(byHead) < ManyCommits+10 {
		h := commits[rng.Intn(len(commits))]
		for i := 0; i < 4; i++ {
			byHead[h] = append(byHead[h], commits[rng.Intn(len(commits))])
		}
		byHead[h] = append(byHead[h], base, strings.Repeat("0", 40))
	}
	// Bases are round.json's, which the agent writes: a descendant of every
	// head, a branch's tip, revision expressions, a commit of another
	// history, something that is no commit. The range changes; the
	// answers must not.
	run("checkout", "-q", "--orphan", "other")
	orphan := commit("another history")
	last := commits[len(commits)-2]
	for _, bases := range [][]string{{base}, {later}, nil, {last}, {"b3"}, {"HEAD^@"}, {last + "^!"}, {orphan, later}, {"0123456"}, {base + "..." + later}, {"--all"}} {
		got := containsEach(repo, bases, byHead)
		for h, cs := range byHead {
			want := Contains(repo, h, cs)
			for _, c := range cs {
				if (got[h][c] == nil) != (want[c] == nil) {
					t.Errorf("bases %v: does %s contain %s: containsEach %v, git %v", bases, h[:7], c[:7], got[h][c], want[c])
				}
			}
		}
	}
}
