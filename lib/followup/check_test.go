package followup

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jaekit/spar/lib/round"
)

// The ledger is the agent's file: a check record whose output names a
// file outside the round's checks folder must not put that file into the
// packet the reviewers get.
func TestTrust_CheckOutputStaysInTheRound(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret.txt")
	os.WriteFile(secret, []byte("TOKEN=hunter2\n"), 0o600)
	os.MkdirAll(filepath.Join(dir, ".checks", "r-F1-1"), 0o755)
	os.WriteFile(filepath.Join(dir, ".checks", "r-F1-1", "before-1.txt"), []byte(strings.Repeat("x", 5000)+"\npanic: integer divide by zero\n"), 0o644)
	os.Symlink(secret, filepath.Join(dir, ".checks", "r-F1-1", "after-1.txt"))
	os.Symlink(dir, filepath.Join(dir, ".checks", "linked"))
	for _, rel := range []string{"secret.txt", ".checks/../secret.txt", "../secret.txt", ".checks/r-F1-1/after-1.txt", ".checks/linked/secret.txt", "/etc/passwd"} {
		if got := tailOf(dir, rel); got != "" {
			t.Errorf("tailOf(%q) = %q", rel, got)
		}
	}
	got := tailOf(dir, ".checks/r-F1-1/before-1.txt")
	if len(got) != checkTail || !strings.HasSuffix(got, "panic: integer divide by zero\n") {
		t.Fatalf("tail %d bytes: %q", len(got), got[len(got)-40:])
	}
	c := &round.FixCheck{Command: "go test ./...", Head: "zz", Fix: "--output=/tmp/x",
		Before: []round.CheckRun{{Exit: 1, Output: ".checks/r-F1-1/before-1.txt"}, {Exit: 1}},
		After:  []round.CheckRun{{Exit: 0, Output: "secret.txt"}, {Exit: 0}}}
	s := showCheck(dir, dir, c)
	if strings.Contains(s.AfterTail, "hunter2") || s.Diff != "" || s.Refusal != "" || s.BeforeExits[0] != 1 {
		t.Fatalf("%+v", s)
	}
}
