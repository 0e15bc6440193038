package runner

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jaekit/spar/lib/envelope"
)

// fakeClaude is a claude executable that prints lines (after sleeping
// before seconds) and then sleeps rest seconds, or exits 0 when rest is 0.
func fakeClaude(t *testing.T, before float64, lines []string, rest int) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("#!/bin/sh\nif [ \"$1\" = --version ]; then echo '2.1.328 (Claude Code)'; exit 0; fi\ncat >/dev/null\n")
	if before > 0 {
		fmt.Fprintf(&b, "sleep %v\n", before)
	}
	for _, l := range lines {
		fmt.Fprintf(&b, "cat <<'EOF'\n%s\nEOF\n", l)
	}
	if rest > 0 {
		fmt.Fprintf(&b, "exec sleep %d\n", rest)
	}
	exe := filepath.Join(t.TempDir(), "claude")
	if err := os.WriteFile(exe, []byte(b.String()), 0o755); err != nil {
		t.Fatal(err)
	}
	return exe
}

// assistant is a claude assistant event whose message states usage.
func assistant(id, model string, input int) string {
	return fmt.Sprintf(`{"type":"assistant","message":{"id":%q,"model":%q,"usage":{"input_tokens":%d,"output_tokens":1},"content":[{"type":"tool_use","name":"Read","input":{"file_path":"a"}}]}}`, id, model, input)
}

func budgetReviewer(t *testing.T, name, exe string, own *float64, round *RoundBudget) Reviewer {
	rd := filepath.Join(t.TempDir(), name)
	os.Mkdir(rd, 0o755)
	m := "claude-sonnet-4-5"
	cfg := envelopeReviewer("claude", exe, &m, 60)
	cfg.Name, cfg.BudgetUSD = name, own
	return Reviewer{Config: cfg, Dir: rd, Workspace: t.TempDir(), Input: envelope.Input{Text: "review"}, PathEnv: os.Getenv("PATH"), Budget: round}
}

func usd(f float64) *float64 { return &f }

// A reviewer whose spend passes its own budget while it streams is stopped
// at once and recorded failed, "budget: spent $X of $Y"; the attempt keeps
// what spar counted against what budget.
func TestBudget_StopsTheAttemptPastItsBudget(t *testing.T) {
	exe := fakeClaude(t, 0, []string{assistant("msg_1", "claude-sonnet-4-5-20250929", 100000)}, 100)
	start := time.Now()
	run := Run(budgetReviewer(t, "claude", exe, usd(0.25), nil), nil)
	if run.Status != Failed || run.Reason != "budget: spent $0.30 of $0.25" {
		t.Fatalf("%s: %s", run.Status, run.Reason)
	}
	t.Logf("stopped after %v", time.Since(start)) // logged, never judged
	sp := run.Attempts[0].Spend
	if sp == nil || sp.USD != 0.300015 || sp.BudgetUSD == nil || *sp.BudgetUSD != 0.25 || sp.Unpriced != "" {
		t.Errorf("spend %+v", sp)
	}
}

// The round's budget is the sum of its reviewers' spends: the spend that
// passes it stops every reviewer still running, each with the round's
// figure and its own.
func TestBudget_RoundStopsEveryReviewer(t *testing.T) {
	round := NewRoundBudget(usd(0.35))
	a := fakeClaude(t, 0, []string{assistant("a1", "claude-sonnet-4-5", 100000)}, 100)
	b := fakeClaude(t, 1, []string{assistant("b1", "claude-sonnet-4-5", 33000)}, 100)
	runs := RunAll([]Reviewer{budgetReviewer(t, "a", a, nil, round), budgetReviewer(t, "b", b, nil, round)}, nil)
	if runs[0].Status != Failed || runs[0].Reason != "budget: spent $0.399 of $0.35 for the round (this reviewer $0.30)" {
		t.Errorf("a: %s: %s", runs[0].Status, runs[0].Reason)
	}
	if runs[1].Status != Failed || runs[1].Reason != "budget: spent $0.399 of $0.35 for the round (this reviewer $0.099)" {
		t.Errorf("b: %s: %s", runs[1].Status, runs[1].Reason)
	}
	if sp := runs[0].Attempts[0].Spend; sp == nil || sp.BudgetUSD != nil {
		t.Errorf("a's spend %+v", sp)
	}
	// A later attempt of the round does not start.
	later := Run(budgetReviewer(t, "c", a, nil, round), nil)
	if later.Status != Failed || !strings.HasPrefix(later.Reason, "budget: spent $0.399 of $0.35 for the round before this attempt started") {
		t.Errorf("c: %s: %s", later.Status, later.Reason)
	}
}

// The result event's own total passing the budget stops nothing: the turn
// is over; the run completes and its spend shows past the budget.
func TestBudget_TheEndStopsNothing(t *testing.T) {
	exe := fakeClaude(t, 0, []string{
		`{"type":"result","subtype":"success","is_error":false,"structured_output":{"a":1},"total_cost_usd":0.5}`}, 0)
	run := Run(budgetReviewer(t, "claude", exe, usd(0.25), nil), nil)
	if run.Status != Completed {
		t.Fatalf("%s: %s", run.Status, run.Reason)
	}
	if sp := run.Attempts[0].Spend; sp == nil || sp.USD != 0.5 {
		t.Errorf("spend %+v", sp)
	}
}

// A model the table does not price: the budget cannot be enforced, which
// spar says on stderr (even with --quiet) and in the attempt's spend; the
// reviewer goes on.
func TestBudget_UnpricedModelSaysSo(t *testing.T) {
	exe := fakeClaude(t, 0, []string{assistant("m", "claude-sonnet-9", 100000000),
		`{"type":"result","subtype":"success","is_error":false,"structured_output":{"a":1}}`}, 0)
	var errs bytes.Buffer
	run := Run(budgetReviewer(t, "claude", exe, usd(0.01), nil), NewProgress(&errs, true))
	if run.Status != Completed {
		t.Fatalf("%s: %s", run.Status, run.Reason)
	}
	want := `spar: warning: claude: its budget cannot be enforced: the model "claude-sonnet-9" is not in spar's price table; its tokens are recorded, not priced`
	if !strings.Contains(errs.String(), want) {
		t.Errorf("stderr %q", errs.String())
	}
	if sp := run.Attempts[0].Spend; sp == nil || sp.Unpriced == "" {
		t.Errorf("spend %+v", sp)
	}
}

// Without budget_usd nothing of spend is recorded.
func TestBudget_NoneNoSpend(t *testing.T) {
	exe := fakeClaude(t, 0, []string{assistant("msg_1", "claude-sonnet-4-5", 100000),
		`{"type":"result","subtype":"success","is_error":false,"structured_output":{"a":1},"total_cost_usd":0.5}`}, 0)
	run := Run(budgetReviewer(t, "claude", exe, nil, nil), nil)
	if run.Status != Completed || run.Attempts[0].Spend != nil {
		t.Errorf("%s: %s, spend %+v", run.Status, run.Reason, run.Attempts[0].Spend)
	}
}
