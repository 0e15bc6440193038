package replay

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/jaekit/spar/lib/gitx"
)

// repo runs script in a new repository and returns it and the commits
// named by the tags listed.
func repo(t *testing.T, script string, tags ...string) (string, map[string]string) {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command("sh", "-ec", "git init -q -b main\n"+script+"\ngit rev-parse "+strings.Join(tags, " "))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	ids := strings.Fields(string(out))
	ids = ids[len(ids)-len(tags):]
	m := map[string]string{}
	for i, tag := range tags {
		m[tag] = ids[i]
	}
	return dir, m
}

// base: a.txt and b.txt; change (on a branch): a.txt's second line and
// fix.txt; onto (main moved): b.txt, and with conflict also a.txt's second
// line.
func rebased(t *testing.T, conflict bool) (string, map[string]string) {
	moved := "printf 'b2\\n' > b.txt"
	if conflict {
		moved += " && printf '1\\nmain\\n3\\n' > a.txt"
	}
	return repo(t, `printf '1\n2\n3\n' > a.txt && echo b > b.txt && git add -A && git commit -qm base && git tag base
git checkout -q -b change && printf '1\nchange\n3\n' > a.txt && git commit -qam change && echo fixed > fix.txt && git add fix.txt && git commit -qm fix && git tag fix && git tag head
git checkout -q main && `+moved+` && git commit -qam moved && git tag onto`, "base", "head", "fix", "onto")
}

func TestOnto_Clean(t *testing.T) {
	dir, c := rebased(t, false)
	r, err := Onto(dir, c["onto"], c["head"])
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Conflicts) != 0 {
		t.Fatalf("conflicts %v", r.Conflicts)
	}
	// the replay is the rebase git makes
	out, err := gitx.Git(dir, "-c", "user.name=t", "-c", "user.email=t@t", "rebase", "-q", "onto", "change")
	if err != nil {
		t.Fatalf("%v %s", err, out)
	}
	want, _ := gitx.TreeID(dir, "HEAD")
	if r.Tree != want {
		t.Fatalf("replay %s, rebase %s", r.Tree, want)
	}
}

func TestOnto_ConflictsNamedAndMarkedWithTheCommits(t *testing.T) {
	dir, c := rebased(t, true)
	r, err := Onto(dir, c["onto"], c["head"])
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.Conflicts, []string{"a.txt"}) {
		t.Fatalf("conflicts %v", r.Conflicts)
	}
	blob, err := gitx.Git(dir, "cat-file", "-p", r.Tree+":a.txt")
	if err != nil {
		t.Fatal(err)
	}
	want := "1\n<<<<<<< " + c["onto"] + "\nmain\n=======\nchange\n>>>>>>> " + c["head"] + "\n3\n"
	if string(blob) != want {
		t.Fatalf("a.txt at the replay:\n%s\nwant\n%s", blob, want)
	}
}

// The user's configuration does not change the replay: a conflict style
// of diff3 or no rename detection in the repository's config gives the
// same tree, so the laptop and CI compute the same replay commit.
func TestTrust_ReplayIgnoresTheUsersMergeConfig(t *testing.T) {
	dir, c := rebased(t, true)
	plain, err := Onto(dir, c["onto"], c["head"])
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range [][2]string{{"merge.conflictStyle", "diff3"}, {"merge.renames", "false"}, {"merge.directoryRenames", "true"}} {
		if _, err := gitx.Git(dir, "config", kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Onto(dir, c["onto"], c["head"])
	if err != nil {
		t.Fatal(err)
	}
	if got.Tree != plain.Tree {
		t.Fatalf("the repository's merge config changed the replay: %s, was %s", got.Tree, plain.Tree)
	}
	// unpinned, git follows the repository's config: another tree
	raw, _ := gitx.Git(dir, "merge-tree", "--write-tree", "--no-messages", c["onto"], c["head"])
	if tree := strings.TrimSpace(string(raw)); tree == "" || tree == plain.Tree {
		t.Fatalf("git's own merge-tree with diff3 gave %q, the pinned replay %s", tree, plain.Tree)
	}
}

func TestCommit_SameAtEveryGateAndVerified(t *testing.T) {
	dir, c := rebased(t, true)
	r, err := Onto(dir, c["onto"], c["head"])
	if err != nil {
		t.Fatal(err)
	}
	r1, err := Commit(dir, c["onto"], c["head"], r.Tree)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := Commit(dir, c["onto"], c["head"], r.Tree)
	if err != nil || r1 != r2 {
		t.Fatalf("%s %s %v", r1, r2, err)
	}
	onto, head, got, ok, err := Of(dir, r1)
	if err != nil || !ok || onto != c["onto"] || head != c["head"] || !slices.Equal(got.Conflicts, []string{"a.txt"}) {
		t.Fatalf("Of: %s %s %v %v %v", onto, head, got, ok, err)
	}
	// a commit with the same parents and another tree is no replay
	headTree, _ := gitx.TreeID(dir, c["head"])
	forged, err := Commit(dir, c["onto"], c["head"], headTree)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, _, ok, err := Of(dir, forged); ok || err != nil {
		t.Fatalf("a forged replay was believed (%v)", err)
	}
	// nor is an ordinary commit
	if _, _, _, ok, err := Of(dir, c["head"]); ok || err != nil {
		t.Fatalf("a commit of one parent was believed (%v)", err)
	}
}

func TestUnresolved(t *testing.T) {
	dir, c := rebased(t, true)
	r, err := Onto(dir, c["onto"], c["head"])
	if err != nil {
		t.Fatal(err)
	}
	// the replay itself, committed: its markers are left
	left, err := Unresolved(dir, r, c["onto"], c["head"], r.Tree)
	if err != nil || !slices.Equal(left, []string{"a.txt"}) {
		t.Fatalf("markers left: %v %v", left, err)
	}
	// resolved by hand
	if _, err := gitx.Git(dir, "checkout", "-q", "-b", "resolved", "onto"); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(dir+"/a.txt", []byte("1\nmain change\n3\n"), 0o644)
	os.WriteFile(dir+"/fix.txt", []byte("fixed\n"), 0o644)
	gitx.Git(dir, "add", "-A")
	if out, err := gitx.Git(dir, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "resolved"); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	tree, _ := gitx.TreeID(dir, "HEAD")
	left, err = Unresolved(dir, r, c["onto"], c["head"], tree)
	if err != nil || len(left) != 0 {
		t.Fatalf("resolved: %v %v", left, err)
	}
	files, err := Differ(dir, r.Tree, tree)
	if err != nil || !slices.Equal(files, []string{"a.txt"}) {
		t.Fatalf("residual %v %v", files, err)
	}
}

// A conflict git records without markers (one side deleted the file, the
// other changed it) is resolved by keeping git's version: not unresolved.
func TestUnresolved_ModifyDeleteKept(t *testing.T) {
	dir, c := repo(t, `echo a > a.txt && echo b > b.txt && git add -A && git commit -qm base
git checkout -q -b change && echo changed > a.txt && git commit -qam change && git tag head
git checkout -q main && git rm -q a.txt && git commit -qm gone && git tag onto`, "head", "onto")
	r, err := Onto(dir, c["onto"], c["head"])
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.Conflicts, []string{"a.txt"}) {
		t.Fatalf("conflicts %v", r.Conflicts)
	}
	left, err := Unresolved(dir, r, c["onto"], c["head"], r.Tree)
	if err != nil || len(left) != 0 {
		t.Fatalf("%v %v", left, err)
	}
}

func TestTouchedAndPatchIDs(t *testing.T) {
	dir, c := rebased(t, false)
	files, err := Touched(dir, c["fix"])
	if err != nil || !slices.Equal(files, []string{"fix.txt"}) {
		t.Fatalf("%v %v", files, err)
	}
	if out, err := gitx.Git(dir, "-c", "user.name=t", "-c", "user.email=t@t", "rebase", "-q", "onto", "change"); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	ids, err := PatchIDs(dir, "--no-walk", "--end-of-options", c["fix"], "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	rebasedFix, _ := gitx.ResolveCommit(dir, "HEAD")
	if ids[c["fix"]] == "" || ids[c["fix"]] != ids[rebasedFix] || c["fix"] == rebasedFix {
		t.Fatalf("patch ids %v", ids)
	}
}
