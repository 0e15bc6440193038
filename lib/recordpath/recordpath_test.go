package recordpath

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@e.invalid", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@e.invalid")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func write(t *testing.T, p, text string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// newRepo makes a repository at <top>/repo whose .gitignore is ignore.
func newRepo(t *testing.T, ignore string) (top, repo string) {
	t.Helper()
	top = t.TempDir()
	repo = filepath.Join(top, "repo")
	os.MkdirAll(repo, 0o755)
	git(t, repo, "init", "-q")
	write(t, filepath.Join(repo, ".gitignore"), ignore)
	return top, repo
}

// TestG28_RecordPaths covers the accepted forms and every refusal of G28.
func TestG28_RecordPaths(t *testing.T) {
	top, repo := newRepo(t, "reviews/\nvendor/\n")
	write(t, filepath.Join(repo, "app/main.go"), "package main\n")
	write(t, filepath.Join(repo, "reviews/keep/tracked.md"), "x\n")
	write(t, filepath.Join(repo, "gone/file"), "x\n")
	git(t, repo, "add", ".gitignore", "app/main.go", "gone/file")
	git(t, repo, "add", "-f", "reviews/keep/tracked.md")
	git(t, repo, "commit", "-qm", "i")
	os.RemoveAll(filepath.Join(repo, "gone"))
	// A nested repository inside an ignored folder, which ignores nothing.
	nested := filepath.Join(repo, "vendor", "lib")
	os.MkdirAll(nested, 0o755)
	git(t, nested, "init", "-q")
	// A symbolic link from outside into the repository.
	os.Symlink(filepath.Join(repo, "app"), filepath.Join(top, "link"))
	// A broken repository: .git is a file pointing nowhere.
	broken := filepath.Join(top, "broken")
	write(t, filepath.Join(broken, ".git"), "gitdir: /nonexistent/x\n")

	cases := []struct {
		path string
		want string // "" accepted, else a part of the refusal
	}{
		{filepath.Join(top, "outside", "code-1"), ""},
		{filepath.Join(repo, "reviews", "x", "code-1"), ""},
		{filepath.Join(repo, "reviews", "keep"), "tracked by the repository"},
		{filepath.Join(repo, "gone"), "tracked by the repository"},
		{filepath.Join(repo, "app", "reviews"), ""},
		{filepath.Join(repo, "app", "reports"), "not ignored"},
		{filepath.Join(repo, "newdir", "r"), "not ignored"},
		{repo, "is the working tree"},
		{filepath.Join(top, "link", "r1"), "not ignored"},
		{filepath.Join(nested, "r1"), "not ignored by the repository \"" + nested},
		{filepath.Join(broken, "r1"), "git cannot decide"},
	}
	for _, c := range cases {
		err := CheckFolder(c.path)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: refused: %v", c.path, err)
		case c.want != "" && err == nil:
			t.Errorf("%s: accepted, want %q", c.path, c.want)
		case c.want != "" && !strings.Contains(err.Error(), c.want):
			t.Errorf("%s: %v, want %q", c.path, err, c.want)
		}
		if err != nil && !strings.Contains(err.Error(), `"`+c.path+`"`) {
			t.Errorf("%s: message does not name the path: %v", c.path, err)
		}
	}
	// The nested repository ignores its own folder: both decide, accepted.
	write(t, filepath.Join(nested, ".gitignore"), "out/\n")
	if err := CheckFolder(filepath.Join(nested, "out", "r1")); err != nil {
		t.Errorf("nested ignored by both: %v", err)
	}
	// A pattern that matches only folders decides for a folder that does
	// not exist yet, not for a file of that name.
	write(t, filepath.Join(repo, ".gitignore"), "reviews/\nvendor/\nround-only/\n")
	if err := CheckFolder(filepath.Join(repo, "sub", "round-only")); err != nil {
		t.Errorf("folder pattern: %v", err)
	}
	if err := Check(filepath.Join(repo, "sub", "round-only")); err == nil {
		t.Errorf("a file is not matched by a folder pattern")
	}
	if err := Check(filepath.Join(repo, "reviews", "gate.json")); err != nil {
		t.Errorf("file in an ignored folder: %v", err)
	}
}

func TestG28_RunOutMustNotExist(t *testing.T) {
	top := t.TempDir()
	if err := CheckNewFolder(filepath.Join(top, "new")); err != nil {
		t.Fatal(err)
	}
	if err := CheckNewFolder(top); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("existing folder: %v", err)
	}
	f := filepath.Join(top, "file")
	write(t, f, "")
	if err := CheckNewFolder(filepath.Join(f, "sub")); err == nil {
		t.Fatal("a path under a file was accepted")
	}
}

// A record path inside a git directory is refused even where the
// repository ignores everything (a .gitignore of "*", which git check-ignore
// applies to .git/… too): spar fetch would otherwise write a hostile ref's
// files among the repository's own (its refs, its worktrees' records), and
// spar run a round there. Through a symbolic link to .git as well.
func TestTrust_RecordPathInsideGitDir(t *testing.T) {
	_, repo := newRepo(t, "*\n")
	os.Symlink(".git", filepath.Join(repo, "gl"))
	for _, p := range []string{
		filepath.Join(repo, ".git", "w"),
		filepath.Join(repo, ".git", "refs", "heads", "w"),
		filepath.Join(repo, "gl", "w"),
		filepath.Join(repo, "reviews", "..", ".git", "w"),
	} {
		err := CheckFolder(p)
		if err == nil || !strings.Contains(err.Error(), "inside the git directory") {
			t.Errorf("%s: %v, want a refusal inside the git directory", p, err)
		}
	}
	if err := CheckFolder(filepath.Join(repo, "reviews", "w")); err != nil {
		t.Errorf("an ignored folder: %v", err)
	}
}
