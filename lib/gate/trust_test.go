package gate

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jaekit/spar/lib/gate/fixture"
	"github.com/jaekit/spar/lib/pipe"
	"github.com/jaekit/spar/lib/round"
)

// editEarlierRound turns finding id of the round folder dir from defect
// into note, the way a hand edit that knows the records would: findings.json
// rewritten as spar writes it, round.json's findings_sha256 and counts
// recomputed, nothing else touched.
func editEarlierRound(t *testing.T, dir, id string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, round.FindingsFile))
	if err != nil {
		t.Fatal(err)
	}
	var f round.Findings
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	edited := false
	for i := range f.Findings {
		if f.Findings[i].ID == id && f.Findings[i].Class == "defect" {
			f.Findings[i].Class, edited = "note", true
		}
	}
	if !edited {
		t.Fatalf("%s has no defect %s", dir, id)
	}
	nb, err := pipe.MarshalIndent(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, round.FindingsFile), nb, 0o644); err != nil {
		t.Fatal(err)
	}
	rb, err := os.ReadFile(filepath.Join(dir, round.RoundFile))
	if err != nil {
		t.Fatal(err)
	}
	var rec map[string]any
	if err := json.Unmarshal(rb, &rec); err != nil {
		t.Fatal(err)
	}
	rec["findings_sha256"] = round.SHA256(nb)
	counts := rec["counts"].(map[string]any)
	counts["defect"] = counts["defect"].(float64) - 1
	counts["note"] = counts["note"].(float64) + 1
	out, err := pipe.MarshalIndent(rec)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, round.RoundFile), out, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestTrust_EarlierRoundRederived: the gate re-derives every round of the
// series, not only the latest input (docs/trust.md "The gate"). A hand edit
// of an earlier round's findings.json (a defect made a note, findings_sha256
// and counts recomputed, so the round reads as published) blocks, and the
// reason names the round and the finding; the latest round is untouched.
func TestTrust_EarlierRoundRederived(t *testing.T) {
	dirs := fixture.Series(t, t.TempDir(), 3)
	env := benchEnv(t)
	if rec := Decide(Options{Rounds: dirs, Getenv: env}); rec.State != Passed {
		t.Fatalf("the series blocks before the edit: %q", rec.Reasons)
	}
	editEarlierRound(t, dirs[0], "codex-F2")
	if r := readRound(dirs[0], nil); r.state != published {
		t.Fatalf("the edited round does not read as published: %v", r.err)
	}
	rec := Decide(Options{Rounds: dirs, Getenv: env})
	if rec.State != Blocked {
		t.Fatalf("a hand edit of round code-1 passes the gate: %+v", rec)
	}
	want := "round code-1: findings.json does not follow from the reviewers' results: codex-F2 is defect there, note here"
	found := false
	for _, r := range rec.Reasons {
		found = found || strings.Contains(r, want)
		if strings.Contains(r, "round code-2") || strings.Contains(r, "round code-3") {
			t.Errorf("a reason about a round that was not edited: %s", r)
		}
	}
	if !found {
		t.Errorf("no reason names the edited round and finding (%q): %q", want, rec.Reasons)
	}
}

// TestRequired_UnreadableConfigurationOneReason: a configuration the gate
// cannot read blocks, with one reason per series however many checks ask
// for the required reviewers.
func TestRequired_UnreadableConfigurationOneReason(t *testing.T) {
	dirs := benchSeries(t, 2)
	bad := filepath.Join(t.TempDir(), "spar.toml")
	if err := os.WriteFile(bad, []byte("[[reviewers\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rec := Decide(Options{Rounds: dirs, Getenv: func(k string) string {
		if k == "SPAR_CONFIG" {
			return bad
		}
		return ""
	}})
	n := 0
	for _, r := range rec.Reasons {
		if strings.Contains(r, "so the gate does not know which reviewers it requires") {
			n++
		}
	}
	if rec.State != Blocked || n != 1 {
		t.Fatalf("state %s, %d reasons about the configuration, want blocked and 1:\n%s", rec.State, n, strings.Join(rec.Reasons, "\n"))
	}
}
