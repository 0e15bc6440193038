package round

import "testing"

// docs/review-round.md "The workspace": the workspace is needed while a native reviewer is
// pending; its path is the recorded one, else <round>/workspace.
func TestNeedsWorkspaceAndPath(t *testing.T) {
	rec := &Record{Reviewers: []Reviewer{
		{Name: "c", Preset: "claude", Status: "pending"},
		{Name: "n", Preset: "native", Status: "completed"},
	}}
	if rec.NeedsWorkspace() {
		t.Error("needed with no native reviewer pending")
	}
	rec.Reviewers = append(rec.Reviewers, Reviewer{Name: "m", Preset: "native", Status: "pending"})
	if !rec.NeedsWorkspace() {
		t.Error("not needed with a native reviewer pending")
	}
	rec.Reviewers[2].Status = "invalid_output"
	if rec.NeedsWorkspace() {
		t.Error("needed once the native reviewer was recorded")
	}
	if got := rec.WorkspacePath("/r/code-1"); got != "/r/code-1/workspace" {
		t.Errorf("older round: %q", got)
	}
	rec.Workspace = "/c/jaekit/spar/workspaces/x"
	if got := rec.WorkspacePath("/r/code-1"); got != rec.Workspace {
		t.Errorf("recorded: %q", got)
	}
}
