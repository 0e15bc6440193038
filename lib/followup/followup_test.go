package followup

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/gate/fixture"
	"github.com/jaekit/spar/lib/packet"
	"github.com/jaekit/spar/lib/round"
)

// series writes code-1 (c0..c1: both reviewers completed), code-2
// (c0..c2: claude failed) and code-3 (c0..c3: both completed, a dry run),
// each with one finding; both reviewers are required.
func series(t *testing.T) (root string, c []string) {
	t.Helper()
	root = t.TempDir()
	repo := filepath.Join(root, "repo")
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	c = fixture.Repo(t, repo, 4)
	req := []string{"codex", "claude"}
	specs := []fixture.Spec{
		{Dir: "reviews/s/code-1", Repo: "repo", Base: c[0], Head: c[1], Number: 1, StartedAt: "2026-01-01T00:00:01Z", Required: req,
			Reviewers: []string{"codex=completed", "claude=completed"}, Findings: []fixture.Finding{{ID: "codex-F1", Class: "defect", Location: "head/src/f1.go:1"}},
			Ledger: []round.LedgerEntry{{Finding: "codex-F1", Disposition: "rejected", Evidence: "it is meant"}}},
		{Dir: "reviews/s/code-2", Repo: "repo", Base: c[0], Head: c[2], Number: 2, StartedAt: "2026-01-01T00:00:02Z", Required: req,
			Reviewers: []string{"codex=completed", "claude=failed"}, Findings: []fixture.Finding{{ID: "codex-F1", Class: "note"}}},
		{Dir: "reviews/s/dry", Repo: "repo", Base: c[0], Head: c[3], DryRun: true, StartedAt: "2026-01-01T00:00:03Z", Required: req,
			Reviewers: []string{"codex=not_run", "claude=not_run"}, NoFindings: true},
	}
	for _, s := range specs {
		if err := fixture.Write(root, s); err != nil {
			t.Fatal(err)
		}
	}
	return root, c
}

func run(root string, c []string, head string) *envelope.Run {
	return &envelope.Run{Repo: filepath.Join(root, "repo"), Stage: "code", Base: c[0], Head: head, Series: filepath.Join(root, "reviews", "s")}
}

var required = []envelope.RequiredReviewer{{Name: "codex", Preset: "codex"}, {Name: "claude", Preset: "claude"}}

// The last reviewed head is that of the latest round in which every
// required reviewer completed: code-2's claude failed, so code-1's. Every
// earlier finding is listed; dry runs are not earlier rounds.
func TestPrepare_SinceTheRoundEveryRequiredReviewerCompleted(t *testing.T) {
	root, c := series(t)
	r := run(root, c, c[3])
	if err := Prepare(r, required, nil, false); err != nil {
		t.Fatal(err)
	}
	fu := r.FollowUp
	if fu == nil || fu.Since != c[1] || fu.SinceRound != "code-1" || fu.Full {
		t.Fatalf("follow-up %+v", fu)
	}
	if want := []string{"code-1/codex-F1", "code-2/codex-F1"}; !reflect.DeepEqual(fu.Earlier, want) {
		t.Errorf("earlier %v, want %v", fu.Earlier, want)
	}
	if len(fu.Delta) == 0 || r.DeltaDiff == "" {
		t.Errorf("no delta: %+v %q", fu.Delta, r.DeltaDiff)
	}
	if len(r.EarlierFindings) != 2 || r.EarlierFindings[0].Disposition == nil || r.EarlierFindings[0].Disposition.Evidence != "it is meant" {
		t.Errorf("earlier findings %+v", r.EarlierFindings)
	}
	// Without a required reviewer, any completed review makes a head
	// reviewed: code-2's.
	r = run(root, c, c[3])
	if err := Prepare(r, nil, nil, false); err != nil {
		t.Fatal(err)
	}
	if r.FollowUp.SinceRound != "code-2" {
		t.Errorf("no required reviewer: since %q", r.FollowUp.SinceRound)
	}
	// A waiver of claude in code-2 makes code-2 reviewed.
	if err := os.WriteFile(filepath.Join(root, "reviews/s/code-2", round.WaiversFile), []byte(`{"reviewer":"claude","preset":"claude","user_quote":"skip it","at":"2026-01-02T00:00:00Z"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = run(root, c, c[3])
	if err := Prepare(r, required, nil, false); err != nil {
		t.Fatal(err)
	}
	if r.FollowUp.SinceRound != "code-2" {
		t.Errorf("waived: since %q", r.FollowUp.SinceRound)
	}
}

// The rounds of the run's own base and head are its input, not earlier
// rounds (a rerun gets the same packet); --full and plan rounds get no
// follow-up packet; Check refuses a follow-up the series does not give.
func TestPrepare_OwnInputFullAndCheck(t *testing.T) {
	root, c := series(t)
	r := run(root, c, c[2])
	if err := Prepare(r, required, nil, false); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r.FollowUp.Earlier, []string{"code-1/codex-F1"}) || r.FollowUp.SinceRound != "code-1" {
		t.Errorf("own input listed: %+v", r.FollowUp)
	}
	if err := Check(r, required, nil); err != nil {
		t.Errorf("check of an unchanged series: %v", err)
	}
	edited := *r
	fu := *r.FollowUp
	fu.Earlier = nil
	edited.FollowUp = &fu
	if err := Check(&edited, required, nil); err == nil {
		t.Error("an edited follow-up passed the check")
	}
	noFU := *r
	noFU.FollowUp = nil
	if err := Check(&noFU, required, nil); err == nil {
		t.Error("a follow-up removed from the envelope passed the check")
	}

	full := run(root, c, c[3])
	if err := Prepare(full, required, nil, true); err != nil {
		t.Fatal(err)
	}
	if full.FollowUp == nil || !full.FollowUp.Full || len(full.FollowUp.Earlier) != 0 || full.EarlierFindings != nil {
		t.Errorf("--full: %+v", full.FollowUp)
	}
	if err := Check(full, required, nil); err != nil {
		t.Errorf("check of --full: %v", err)
	}
	plan := run(root, c, c[3])
	plan.Stage = "plan"
	if err := Prepare(plan, required, nil, false); err != nil || plan.FollowUp != nil {
		t.Errorf("plan round: %+v %v", plan.FollowUp, err)
	}
	fresh := run(t.TempDir(), c, c[3])
	fresh.Repo = filepath.Join(root, "repo")
	if err := Prepare(fresh, required, nil, false); err != nil || fresh.FollowUp != nil {
		t.Errorf("new series: %+v %v", fresh.FollowUp, err)
	}
}

// TestTrust_PacketTextRebuilt_FollowUpTextsFromTheSeries (docs/trust.md
// "Follow-up rounds and repeats"): the earlier findings with their
// decisions and the diff since the last reviewed head are in packet.md
// only, never in the envelope. Check, under the lock, fills them in again
// from the series, so that the packet built from the envelope's run is the
// one spar-packet built; a decision recorded after the packet was built
// makes it another packet, which packet.Verify refuses.
func TestTrust_PacketTextRebuilt_FollowUpTextsFromTheSeries(t *testing.T) {
	root, c := series(t)
	r := run(root, c, c[3])
	if err := Prepare(r, required, nil, false); err != nil {
		t.Fatal(err)
	}
	cfg := &envelope.Config{Angles: []string{"design"}, Reviewers: []envelope.Reviewer{{Name: "codex", Preset: "codex"}}}
	pkt := packet.Build(r, cfg)
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var travelled envelope.Run
	if err := json.Unmarshal(b, &travelled); err != nil {
		t.Fatal(err)
	}
	if travelled.EarlierFindings != nil || travelled.DeltaDiff != "" {
		t.Fatal("the follow-up's texts travelled in the envelope")
	}
	if err := Check(&travelled, required, nil); err != nil {
		t.Fatal(err)
	}
	if err := packet.Verify(&pkt, &travelled, cfg); err != nil {
		t.Fatalf("the unedited follow-up packet is not rebuilt: %v", err)
	}
	// code-2's finding triaged after the packet was built.
	line, _ := json.Marshal(round.LedgerEntry{Finding: "codex-F1", Disposition: "rejected", Evidence: "not a problem", At: "2026-01-02T00:00:00Z"})
	f, err := os.OpenFile(filepath.Join(root, "reviews/s/code-2", round.LedgerFile), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := Check(&travelled, required, nil); err != nil {
		t.Fatalf("the follow-up's IDs are the same: %v", err)
	}
	err = packet.Verify(&pkt, &travelled, cfg)
	if err == nil || !strings.Contains(err.Error(), `the rebuilt text has "- Decision: rejected"`) {
		t.Errorf("a decision recorded after the packet: %v", err)
	}
}
