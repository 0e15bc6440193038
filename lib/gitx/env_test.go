package gitx

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// twoRepos makes the repository spar reviews (real: base, then head) and a
// decoy repository the caller's environment could point git at.
func twoRepos(t *testing.T) (real, decoy, base, head string) {
	t.Helper()
	real, decoy = t.TempDir(), t.TempDir()
	for _, d := range []string{real, decoy} {
		gitT(t, d, "", "init", "-q", "-b", "main")
	}
	write(t, real, "app.go", "package app\n", 0o644)
	gitT(t, real, "", "add", "-A")
	gitT(t, real, "", "commit", "-q", "-m", "base")
	base = gitT(t, real, "", "rev-parse", "HEAD")
	write(t, real, "app.go", "package app // head\n", 0o644)
	gitT(t, real, "", "commit", "-q", "-am", "head")
	head = gitT(t, real, "", "rev-parse", "HEAD")
	write(t, decoy, "decoy.go", "package decoy\n", 0o644)
	gitT(t, decoy, "", "add", "-A")
	gitT(t, decoy, "", "commit", "-q", "-m", "decoy")
	return real, decoy, base, head
}

// Every git call runs without the caller's GIT_* variables: each one that
// could point git at other objects, another index, work tree or config is
// set here to the decoy, and spar's calls still read the real repository
// (docs/trust.md: git cannot be bent).
func TestGitEnv_CallerVariablesCleared(t *testing.T) {
	real, decoy, _, head := twoRepos(t)
	decoyHead := gitT(t, decoy, "", "rev-parse", "HEAD")
	objects := filepath.Join(decoy, ".git", "objects")
	// A config that hides a file from the G23 "ignored" check: an agent
	// could make its weakened rule file look ignored, or a real one not.
	excludes := filepath.Join(decoy, "excludes")
	global := filepath.Join(decoy, "global")
	for p, text := range map[string]string{excludes: "app.go\n", global: "[core]\n\texcludesFile = " + excludes + "\n"} {
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name string
		env  map[string]string
	}{
		{"GIT_DIR", map[string]string{"GIT_DIR": filepath.Join(decoy, ".git")}},
		{"GIT_WORK_TREE", map[string]string{"GIT_WORK_TREE": decoy}},
		{"GIT_INDEX_FILE", map[string]string{"GIT_INDEX_FILE": filepath.Join(decoy, ".git", "index")}},
		{"GIT_OBJECT_DIRECTORY", map[string]string{"GIT_OBJECT_DIRECTORY": objects}},
		{"GIT_ALTERNATE_OBJECT_DIRECTORIES", map[string]string{"GIT_ALTERNATE_OBJECT_DIRECTORIES": objects}},
		{"GIT_CONFIG_COUNT", map[string]string{"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "core.excludesFile", "GIT_CONFIG_VALUE_0": excludes}},
		{"GIT_CONFIG_PARAMETERS", map[string]string{"GIT_CONFIG_PARAMETERS": "'core.excludesfile'='" + excludes + "'"}},
		{"GIT_CONFIG_GLOBAL", map[string]string{"GIT_CONFIG_GLOBAL": global}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			got, err := ResolveCommit(real, "HEAD")
			if err != nil || got != head {
				t.Errorf("HEAD resolved to %q, %v; want the real head %s (decoy %s)", got, err, head, decoyHead)
			}
			if got, err := ResolveCommit(real, decoyHead); err == nil {
				t.Errorf("the decoy's commit %s resolved in the real repository (%s)", decoyHead, got)
			}
			top, err := TopLevel(real)
			if want, _ := filepath.EvalSymlinks(real); err != nil || top != want {
				t.Errorf("top level %q, %v; want %s", top, err, want)
			}
			tr, err := LoadTree(real, head)
			if err != nil || !tr.Has("app.go") || tr.Has("decoy.go") {
				t.Errorf("tree of head: %v, has app.go %v", err, err == nil && tr.Has("app.go"))
			}
			files, err := Git(real, "ls-files", "-z")
			if err != nil || string(files) != "app.go\x00" {
				t.Errorf("ls-files: %q, %v; want app.go only", files, err)
			}
			if out, err := Git(real, "check-ignore", "--no-index", "--", "app.go"); err == nil {
				t.Errorf("check-ignore says app.go is ignored: %q", out)
			}
		})
	}
}

func TestGitEnv_Env(t *testing.T) {
	got := Env([]string{"PATH=/bin", "GIT_DIR=/x", "GIT_CONFIG_KEY_0=a", "HOME=/h", "GIT_NO_REPLACE_OBJECTS=0", "XGIT_KEEP=1"})
	want := []string{"PATH=/bin", "HOME=/h", "XGIT_KEEP=1", "GIT_NO_REPLACE_OBJECTS=1", "GIT_GRAFT_FILE=" + os.DevNull}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Env:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// `git replace` and grafts cannot make a commit look like another: the head
// still has its own tree, and a commit grafted in as a parent is not an
// ancestor for spar (a "fix" commit the head does not contain stays
// uncontained).
func TestGitEnv_ReplaceAndGraftsIgnored(t *testing.T) {
	real, _, base, head := twoRepos(t)
	// An unrelated commit: the "fix" an agent would claim.
	gitT(t, real, "", "checkout", "-q", "--orphan", "other")
	write(t, real, "fix.go", "package fix\n", 0o644)
	gitT(t, real, "", "add", "-A")
	gitT(t, real, "", "commit", "-q", "-m", "unrelated fix")
	fix := gitT(t, real, "", "rev-parse", "HEAD")
	gitT(t, real, "", "checkout", "-q", "main")

	gitT(t, real, "", "replace", "--graft", head, base, fix)
	if ok := gitT(t, real, "", "merge-base", "--is-ancestor", fix, head); ok != "" {
		t.Fatalf("setup: %q", ok)
	}
	if anc, err := IsAncestor(real, fix, head); err != nil || anc {
		t.Errorf("with a replace graft, IsAncestor(fix, head) = %v, %v; want false", anc, err)
	}
	gitT(t, real, "", "replace", "-d", head)

	if err := os.WriteFile(filepath.Join(real, ".git", "info", "grafts"), []byte(head+" "+base+" "+fix+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if anc, err := IsAncestor(real, fix, head); err != nil || anc {
		t.Errorf("with a grafts file, IsAncestor(fix, head) = %v, %v; want false", anc, err)
	}
	os.Remove(filepath.Join(real, ".git", "info", "grafts"))

	// git replace <head> <decoy>: the head's tree is still its own.
	gitT(t, real, "", "replace", head, fix)
	tr, err := LoadTree(real, head)
	if err != nil || !tr.Has("app.go") || tr.Has("fix.go") {
		t.Errorf("replaced head: tree %v, has app.go %v, fix.go %v", err, err == nil && tr.Has("app.go"), err == nil && tr.Has("fix.go"))
	}
}

// KeepHeap adds glibc's top_pad to the GLIBC_TUNABLES os/exec passes on
// (the last one), keeping what the caller set there.
func TestKeepHeap(t *testing.T) {
	const pad = "GLIBC_TUNABLES=glibc.malloc.top_pad=1048576"
	for _, c := range []struct {
		env  []string
		want string
	}{
		{[]string{"PATH=/bin"}, pad},
		{[]string{"GLIBC_TUNABLES="}, pad},
		{[]string{"GLIBC_TUNABLES=glibc.malloc.arena_max=2"}, "GLIBC_TUNABLES=glibc.malloc.arena_max=2:glibc.malloc.top_pad=1048576"},
		{[]string{"GLIBC_TUNABLES=a=1", "X=1", "GLIBC_TUNABLES=b=2"}, "GLIBC_TUNABLES=b=2:glibc.malloc.top_pad=1048576"},
	} {
		in := append([]string(nil), c.env...)
		got := KeepHeap(in)
		last := ""
		for _, kv := range got {
			if strings.HasPrefix(kv, "GLIBC_TUNABLES=") {
				last = kv
			}
		}
		if last != c.want {
			t.Errorf("KeepHeap(%q): GLIBC_TUNABLES is %q, want %q", c.env, last, c.want)
		}
		if strings.Join(in, "\n") != strings.Join(c.env, "\n") {
			t.Errorf("KeepHeap changed its argument: %q", in)
		}
	}
	// git runs with it (a C library that does not know a tunable ignores it).
	cmd := Command(t.TempDir(), "version")
	cmd.Env = KeepHeap(cmd.Env)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git version with KeepHeap: %v %s", err, out)
	}
}

// Shallow tells a shallow clone from a whole one, afresh at each call: the
// same folder made shallow, then fetched --unshallow, in one process.
func TestShallow_ReadAfresh(t *testing.T) {
	real, _, _, _ := twoRepos(t)
	if s, err := Shallow(real); s || err != nil {
		t.Fatalf("a whole repository: shallow %v, %v", s, err)
	}
	clone := filepath.Join(t.TempDir(), "clone")
	gitT(t, "", "", "clone", "-q", "--depth", "1", "file://"+real, clone)
	if s, err := Shallow(clone); !s || err != nil {
		t.Fatalf("a clone of depth 1: shallow %v, %v", s, err)
	}
	gitT(t, clone, "", "fetch", "-q", "--unshallow")
	if s, err := Shallow(clone); s || err != nil {
		t.Fatalf("the clone fetched --unshallow: shallow %v, %v", s, err)
	}
	os.RemoveAll(clone)
	gitT(t, "", "", "clone", "-q", "--depth", "1", "file://"+real, clone)
	if s, err := Shallow(clone); !s || err != nil {
		t.Fatalf("a shallow clone made again at the same path: shallow %v, %v", s, err)
	}
	if _, err := Shallow(t.TempDir()); err == nil {
		t.Error("no repository: no error")
	}
}

// A short commit id that is also a branch's name: git takes the branch, so
// a branch the agent named like the id a person types for --expect-head
// would stand in for the commit they meant. ResolveCommit refuses it, and
// still takes the whole id, the ref's full name, a short id no ref is
// named after, and a ref named in hex when no object starts so.
func TestTrust_ShortIdThatIsARef(t *testing.T) {
	real, _, base, head := twoRepos(t)
	short := base[:10]
	gitT(t, real, "", "branch", short, head)
	if got, err := ResolveCommit(real, short); err == nil || !strings.Contains(err.Error(), "is both the ref refs/heads/"+short) {
		t.Errorf("ResolveCommit(%s) = %s, %v; want the ambiguity refused", short, got, err)
	}
	for rev, want := range map[string]string{
		base:                  base,
		"refs/heads/" + short: head,
		head[:10]:             head,
		"main":                head,
	} {
		if got, err := ResolveCommit(real, rev); err != nil || got != want {
			t.Errorf("ResolveCommit(%s) = %s, %v; want %s", rev, got, err, want)
		}
	}
	gitT(t, real, "", "branch", "cafe0", base)
	if objs := gitT(t, real, "", "rev-parse", "--disambiguate=cafe0"); objs == "" {
		if got, err := ResolveCommit(real, "cafe0"); err != nil || got != base {
			t.Errorf("ResolveCommit(cafe0) = %s, %v; want the branch", got, err)
		}
	}
}
