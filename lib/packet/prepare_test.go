package packet

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jaekit/spar/lib/envelope"
)

func gitRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	dir, _ = filepath.EvalSymlinks(dir)
	files := map[string]string{".gitignore": ".spar/\n", "AGENTS.md": "rule one\nrule two\n", "app/main.go": "package main\n", "checks/t.py": "print(1)\n"}
	for name, text := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(text), 0o644)
	}
	run := func(args ...string) { gitIn(t, dir, args...) }
	run("init", "-q")
	run("add", ".")
	run("commit", "-qm", "base")
	os.WriteFile(filepath.Join(dir, "checks/t.py"), []byte("print(2)\n"), 0o644)
	run("commit", "-qam", "head")
	return dir
}

// gitIn runs git in dir with no user or system configuration and a fixed
// identity, and returns its output; a failure fails the test.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@e.invalid", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@e.invalid")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestRerun_SamePacketInAnotherRoundFolder: the same arguments in a new
// round folder, as a dry run, or for a subset of reviewers give the same
// packet_sha256 (the rerun rule); another standpoint gives another one.
func TestRerun_SamePacketInAnotherRoundFolder(t *testing.T) {
	repo := gitRepo(t)
	build := func(out string, dry bool, reviewers []envelope.Reviewer, sps []envelope.Standpoint) envelope.Packet {
		t.Helper()
		cfg := goldenConfig()
		cfg.Rules = []string{"AGENTS.md"}
		cfg.CheckPaths = []string{"checks/**"}
		cfg.ConfiguredRequired = []envelope.RequiredReviewer{{Name: "claude"}, {Name: "codex"}}
		if reviewers != nil {
			cfg.Reviewers = reviewers
		}
		a := Args{Repo: repo, Stage: "code", Base: "HEAD~1", Head: "HEAD", Out: filepath.Join(repo, ".spar", "s", out), DryRun: dry, Standpoints: sps}
		r, _, err := Prepare(a, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Changes) != 1 || !r.Changes[0].CheckPath {
			t.Fatalf("changes: %+v", r.Changes)
		}
		return Build(r, cfg)
	}
	sp := []envelope.Standpoint{{Reviewer: "claude", Text: "auth"}, {Reviewer: "codex", Text: "replay"}}
	first := build("code-1", false, nil, sp)
	if got := build("code-2", false, nil, sp); got.SHA256 != first.SHA256 || got.Markdown != first.Markdown {
		t.Error("a new round folder changed the packet")
	}
	if got := build("code-2", true, nil, sp); got.SHA256 != first.SHA256 {
		t.Error("--dry-run changed the packet")
	}
	// Rerunning only codex, with the full earlier list of standpoints.
	subset := build("code-2", false, []envelope.Reviewer{{Name: "codex", Preset: "codex"}}, sp)
	if subset.SHA256 != first.SHA256 || len(subset.Inputs) != 1 {
		t.Error("a subset of reviewers changed the packet")
	}
	if got := build("code-2", false, nil, sp[:1]); got.SHA256 == first.SHA256 {
		t.Error("another list of standpoints must change the packet")
	}
	if got := build("code-2", false, nil, nil); got.SHA256 == first.SHA256 || got.Schema != Schema {
		t.Error("no standpoints: another packet, the plain schema")
	}
}
