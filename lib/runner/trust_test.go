package runner

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/sandbox"
)

// Route 7 (docs/sandbox.md "Routes a hostile reviewer tried"): the user's
// API keys, tokens and agent socket reached a command reviewer, which has
// the network. A reviewer's process gets an allowlisted environment: the
// base set, its CLI's own variables, and what its entry's env names; the
// run records the names, never the values.
func TestTrust_Route7_Environment(t *testing.T) {
	secrets := map[string]string{
		"ANTHROPIC_API_KEY": "sk-ant-route7", "OPENAI_API_KEY": "sk-openai-route7",
		"GITHUB_TOKEN": "ghp_route7", "AWS_SECRET_ACCESS_KEY": "aws-route7", "SSH_AUTH_SOCK": "/tmp/route7-agent.sock",
	}
	for k, v := range secrets {
		t.Setenv(k, v)
	}
	t.Setenv("SPAR_ROUTE7_NAMED", "named-value")
	t.Setenv("SPAR_ROUTE7_PREFIX_A", "prefixed-value")
	t.Setenv("LANG", "C.UTF-8")
	run := func(t *testing.T, cfg envelope.Reviewer) (string, envelope.ReviewerRun) {
		t.Helper()
		round := t.TempDir()
		dir := filepath.Join(round, cfg.Name)
		os.MkdirAll(dir, 0o755)
		cfg.TimeoutSeconds = 20
		r := Reviewer{Config: cfg, Dir: dir, Workspace: t.TempDir(), PathEnv: os.Getenv("PATH")}
		rec := Run(r, nil)
		out, _ := os.ReadFile(filepath.Join(dir, "stdout"))
		return string(out), rec
	}
	script := `env; echo '{"result": 1}'`
	for _, mode := range []string{"", "nopidns"} {
		t.Run("mode="+mode, func(t *testing.T) {
			t.Setenv(sandbox.EnvVar, mode)
			out, rec := run(t, envelope.Reviewer{Name: "cmd", Preset: "command",
				Argv: []string{"/bin/sh", "-c", script}, Env: []string{"SPAR_ROUTE7_NAMED", "SPAR_ROUTE7_PREFIX_*"}})
			for k, v := range secrets {
				if strings.Contains(out, v) || slices.Contains(rec.Env, k) {
					t.Errorf("%s reached the reviewer (env %v)", k, rec.Env)
				}
			}
			for _, want := range []string{"SPAR_ROUTE7_NAMED=named-value", "SPAR_ROUTE7_PREFIX_A=prefixed-value", "LANG=C.UTF-8", "HOME=", "PATH="} {
				if !strings.Contains(out, want) {
					t.Errorf("missing %s in:\n%s", want, out)
				}
			}
			for _, want := range []string{"HOME", "LANG", "PATH", "SPAR_ROUTE7_NAMED", "SPAR_ROUTE7_PREFIX_A", "TMPDIR"} {
				if !slices.Contains(rec.Env, want) {
					t.Errorf("record %v lacks %s", rec.Env, want)
				}
			}
			if !slices.IsSorted(rec.Env) || strings.Contains(strings.Join(rec.Env, " "), "=") {
				t.Errorf("record %v: sorted names only", rec.Env)
			}
		})
	}
	// A CLI's own variables reach its preset, not the others'.
	env, names := sandbox.Environment("claude", nil, os.Environ())
	if !slices.Contains(names, "ANTHROPIC_API_KEY") || slices.Contains(names, "OPENAI_API_KEY") || slices.Contains(names, "GITHUB_TOKEN") || slices.Contains(names, "AWS_SECRET_ACCESS_KEY") {
		t.Errorf("claude gets %v", names)
	}
	if len(env) != len(names) {
		t.Errorf("%d values, %d names", len(env), len(names))
	}
	_, names = sandbox.Environment("codex", nil, os.Environ())
	if !slices.Contains(names, "OPENAI_API_KEY") || slices.Contains(names, "ANTHROPIC_API_KEY") || slices.Contains(names, "SSH_AUTH_SOCK") {
		t.Errorf("codex gets %v", names)
	}
	// claude on Bedrock gets the AWS variables.
	_, names = sandbox.Environment("claude", nil, append(os.Environ(), "CLAUDE_CODE_USE_BEDROCK=1"))
	if !slices.Contains(names, "AWS_SECRET_ACCESS_KEY") {
		t.Errorf("claude on Bedrock gets %v", names)
	}
	// SPAR_SANDBOX=off: the whole environment, and no record of names.
	t.Setenv(sandbox.EnvVar, "off")
	out, rec := run(t, envelope.Reviewer{Name: "cmd", Preset: "command", Argv: []string{"/bin/sh", "-c", script}})
	if !strings.Contains(out, "GITHUB_TOKEN=ghp_route7") || rec.Env != nil {
		t.Errorf("off: env %v, out %s", rec.Env, out)
	}
}

// A scratch folder left behind: the reviewer took the write right off its
// scratch folder and a folder in it (chmod 500), which it owns; os.RemoveAll
// could then not empty them, and what the reviewer wrote there stayed in the
// temporary folder after the attempt (for a user other than root). The
// runner gives its folders the write right back before it removes them.
func TestTrust_ScratchRemoved(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	for _, mode := range []string{"", "nopidns"} {
		t.Run("mode="+mode, func(t *testing.T) {
			t.Setenv(sandbox.EnvVar, mode)
			round := t.TempDir()
			dir := filepath.Join(round, "cmd")
			os.MkdirAll(dir, 0o755)
			script := `mkdir -p "$TMPDIR/d/e" && echo x > "$TMPDIR/d/e/f" && ln -s / "$TMPDIR/root" && chmod 0 "$TMPDIR/d/e" && chmod 500 "$TMPDIR/d" "$TMPDIR" && echo '{"result": 1}'`
			r := Reviewer{Config: envelope.Reviewer{Name: "cmd", Preset: "command", Argv: []string{"/bin/sh", "-c", script}, TimeoutSeconds: 20},
				Dir: dir, Workspace: t.TempDir(), PathEnv: os.Getenv("PATH")}
			Run(r, nil)
			out, _ := os.ReadFile(filepath.Join(dir, "stdout"))
			if !strings.Contains(string(out), "result") {
				t.Fatalf("the reviewer did not run: %s", out)
			}
			left, _ := filepath.Glob(filepath.Join(tmp, "spar-reviewer-*"))
			if len(left) > 0 {
				t.Errorf("left behind: %v", left)
			}
		})
	}
	if fi, err := os.Stat("/"); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("/ changed: %v %v", fi.Mode(), err)
	}
}

// TestTrust_RepositoryProtected: the reviewed repository is one of the
// folders a reviewer executable's install folder may neither hold nor lie
// in (lib/sandbox TestTrust_ExecutableInsideTheRepository).
func TestTrust_RepositoryProtected(t *testing.T) {
	repo := t.TempDir()
	sr := sandboxFor(Reviewer{Repo: repo, Dir: filepath.Join(t.TempDir(), "s", "code-1", "codex")}, "command", filepath.Join(repo, "tools", "review.sh"))
	found := false
	for _, p := range sr.Protect {
		found = found || p == repo
	}
	if !found {
		t.Errorf("the repository is not protected: %v", sr.Protect)
	}
}
