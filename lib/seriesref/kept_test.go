package seriesref

import (
	"strings"
	"testing"
)

// The keep ref only moves forward (each keep commit's first parent is the
// one before, so a remote takes it without force), keeps every commit it
// is given as a parent, makes nothing new when it already keeps them all,
// and lists a commit the repository lacks instead of failing.
func TestKeep_OnlyMovesForward(t *testing.T) {
	repo := t.TempDir()
	git(t, repo, "", "init", "-q")
	git(t, repo, "", "commit", "-q", "--allow-empty", "-m", "a")
	a := git(t, repo, "", "rev-parse", "HEAD")
	git(t, repo, "", "commit", "-q", "--allow-empty", "-m", "b")
	b := git(t, repo, "", "rev-parse", "HEAD")
	n := checkName(t, repo, "s")

	k1, err := Keep(repo, n, []string{a})
	if err != nil || !k1.Changed || k1.Parent != "" || k1.Kept != 1 {
		t.Fatalf("first keep: %+v, %v", k1, err)
	}
	if err := AdvanceKept(repo, n, k1); err != nil {
		t.Fatal(err)
	}
	if got := git(t, repo, "", "rev-parse", KeptRef("s")+"^@"); got != a {
		t.Fatalf("parents of the first keep commit: %q, want %s", got, a)
	}
	if got := git(t, repo, "", "ls-tree", KeptRef("s")); got != "" {
		t.Fatalf("a keep commit's tree holds %q, want nothing", got)
	}
	same, err := Keep(repo, n, []string{a})
	if err != nil || same.Changed || same.Commit != k1.Commit {
		t.Fatalf("keeping the same commits again: %+v, %v", same, err)
	}
	missing := strings.Repeat("e", len(a))
	k2, err := Keep(repo, n, []string{a, b, missing})
	if err != nil || !k2.Changed || k2.Parent != k1.Commit || k2.Kept != 2 {
		t.Fatalf("second keep: %+v, %v", k2, err)
	}
	if len(k2.Missing) != 1 || k2.Missing[0] != missing {
		t.Fatalf("missing: %v, want [%s]", k2.Missing, missing)
	}
	if err := AdvanceKept(repo, n, k2); err != nil {
		t.Fatal(err)
	}
	if got := git(t, repo, "", "rev-parse", KeptRef("s")+"^@"); got != k1.Commit+"\n"+a+"\n"+b {
		t.Fatalf("parents of the second keep commit: %q", got)
	}
	// A stale keep (made from an earlier value of the ref) moves nothing.
	if err := AdvanceKept(repo, n, k1); err == nil {
		t.Fatal("a keep made from an earlier value of the ref moved it")
	}
	if got := git(t, repo, "", "rev-parse", KeptRef("s")); got != k2.Commit {
		t.Fatalf("the ref is at %s, want %s", got, k2.Commit)
	}
}
