package sarif

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/pipe"
	"github.com/jaekit/spar/lib/round"
	"github.com/jaekit/spar/lib/sarif/multitool"
)

// exports are the shapes of log Export writes: findings of every class and
// several angles, open and closed, with and without lines, unreadable, at
// the repository root, a claim without a final period, a reviewer with no
// findings (a run without rules or results), no rounds at all, and a round
// without a repository.
func exports() map[string]Log {
	s := sample()
	s[0].Findings = append(s[0].Findings,
		envelope.Finding{ID: "codex-F3", Reviewer: "codex", Class: "note", Angle: "premises", Claim: "The root README is stale.", Path: ""},
		envelope.Finding{ID: "codex-F4", Reviewer: "codex", Class: "defect", Angle: "requirement-counterexample", Claim: "Verify accepts an expired link", Path: "app/auth.go", LineStart: ptr(40)},
	)
	s[0].Record.Reviewers = append(s[0].Record.Reviewers, round.Reviewer{Name: "native", Preset: "native", Status: "pending"})
	bare := sample()
	bare[0].Record.Repo = ""
	return map[string]Log{
		"all.sarif":     Export(s),
		"empty.sarif":   Export(nil),
		"no-repo.sarif": Export(bare),
	}
}

// TestSARIF_MultitoolAcceptsEveryShape: GitHub's ingestion rules, as
// Microsoft's SARIF Multitool applies them (rule kinds Gh, Ghas, Sarif),
// report no error and no warning on any shape Export writes.
func TestSARIF_MultitoolAcceptsEveryShape(t *testing.T) {
	exe := multitool.Need(t)
	dir := t.TempDir()
	var files []string
	for name, log := range exports() {
		b, err := pipe.MarshalIndent(log)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	probs, err := multitool.Validate(exe, files...)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range multitool.Blocking(probs) {
		t.Errorf("%s", p)
	}
	for _, p := range probs {
		t.Logf("%s", p)
	}
}
