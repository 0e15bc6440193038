package script

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitIn returns a function that runs git in repo with a fixed identity and
// no system or global configuration, failing the test on an error, and
// returns its trimmed output.
func gitIn(t testing.TB, repo string) func(args ...string) string {
	return func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", repo}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.invalid", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.invalid")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
}

// greetRepo makes repo a repository of two commits, base (app/main.go a bare
// package, reviews/ ignored) and head (greet added), for the tests that run
// spar run itself and interrupt or kill it; it returns both commit ids.
func greetRepo(tb testing.TB, repo string) (base, head string) {
	tb.Helper()
	git := gitIn(tb, repo)
	os.MkdirAll(filepath.Join(repo, "app"), 0o755)
	git("init", "-q")
	os.WriteFile(filepath.Join(repo, ".gitignore"), []byte("reviews/\n"), 0o644)
	os.WriteFile(filepath.Join(repo, "app", "main.go"), []byte("package app\n"), 0o644)
	git("add", "-A")
	git("commit", "-q", "-m", "base")
	base = git("rev-parse", "HEAD")
	os.WriteFile(filepath.Join(repo, "app", "main.go"), []byte("package app\n\nfunc greet(n string) string { return \"hello\" }\n"), 0o644)
	git("commit", "-q", "-am", "head")
	return base, git("rev-parse", "HEAD")
}
