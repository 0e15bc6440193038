package disposition

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/pipe"
	"github.com/jaekit/spar/lib/round"
)

// gitRepo makes a repository with one commit and returns its root and head.
func gitRepo(t *testing.T) (string, string) {
	t.Helper()
	dir := t.TempDir()
	run := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.invalid",
			"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.invalid")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	run("init", "-q")
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run("add", "a.txt")
	run("commit", "-q", "-m", "one")
	return dir, run("rev-parse", "HEAD")
}

type roundFixture struct {
	name, stage, repo, started string
	dry, unfinished            bool
	findings                   []envelope.Finding
	required                   []envelope.RequiredReviewer
}

// finding is a classified finding with the fields the rules read.
func finding(id, class string) envelope.Finding {
	return envelope.Finding{ID: id, Reviewer: strings.SplitN(id, "-F", 2)[0], Class: class, ProposedClass: class}
}

// writeRound writes a round folder into series the way spar-record
// publishes one: findings.json, then round.json with finished_at and the
// sha256 of findings.json (unless unfinished).
func writeRound(t *testing.T, series string, f roundFixture) string {
	t.Helper()
	dir := filepath.Join(series, f.name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if f.findings == nil {
		f.findings = []envelope.Finding{}
	}
	if f.started == "" {
		f.started = "2026-01-01T00:00:00Z"
	}
	rec := round.Record{Schema: round.Schema, Name: f.name, Series: series, Repo: f.repo, Stage: f.stage,
		DryRun: f.dry, StartedAt: f.started}
	rec.Config.ConfiguredRequired = f.required
	fb, err := pipe.MarshalIndent(round.Findings{Schema: round.Schema, Round: f.name, Findings: f.findings})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, round.FindingsFile), fb, 0o644); err != nil {
		t.Fatal(err)
	}
	if !f.unfinished {
		sum, at := round.SHA256(fb), f.started
		rec.FinishedAt, rec.FindingsSHA256 = &at, &sum
	}
	if err := round.WriteJSON(filepath.Join(dir, round.RoundFile), rec); err != nil {
		t.Fatal(err)
	}
	return dir
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(b)
}
