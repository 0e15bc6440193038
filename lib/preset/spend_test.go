package preset

import (
	"math"
	"testing"
)

// spendOf feeds lines to m and returns the last spend a line stated.
func spendOf(m Monitor, lines ...string) *Spend {
	var last *Spend
	for _, l := range lines {
		if s := m.Line([]byte(l)).Spend; s != nil {
			last = s
		}
	}
	return last
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

// claude: each assistant message's usage is priced at the table's rates of
// the model the message names, a message restated (one event per content
// block) counts once with its largest counts, and the result event's
// total_cost_usd, the CLI's own, replaces spar's sum.
func TestBudget_ClaudeMessagesPriced(t *testing.T) {
	m := claude{}.NewMonitor()
	a1 := `{"type":"assistant","message":{"id":"msg_1","model":"claude-sonnet-4-5-20250929","usage":{"input_tokens":100000,"output_tokens":1,"cache_read_input_tokens":0,"cache_creation_input_tokens":0},"content":[{"type":"text","text":"x"}]}}`
	a1again := `{"type":"assistant","message":{"id":"msg_1","model":"claude-sonnet-4-5-20250929","usage":{"input_tokens":100000,"output_tokens":1000},"content":[{"type":"tool_use","name":"Read","input":{"file_path":"a"}}]}}`
	a2 := `{"type":"assistant","message":{"id":"msg_2","model":"claude-sonnet-4-5-20250929","usage":{"input_tokens":10,"cache_read_input_tokens":100000,"cache_creation_input_tokens":1000,"cache_creation":{"ephemeral_5m_input_tokens":1000,"ephemeral_1h_input_tokens":0}},"content":[]}}`
	s := spendOf(m, a1)
	if s == nil || !near(s.USD, 0.3+0.000015) || s.Unpriced != "" || s.End {
		t.Fatalf("first message: %+v", s)
	}
	s = spendOf(m, a1again)
	if !near(s.USD, 0.3+0.015) {
		t.Errorf("restated message: %+v", s)
	}
	s = spendOf(m, a2)
	if want := 0.315 + 10*3e-6 + 0.03 + 1000*3.75e-6; !near(s.USD, want) {
		t.Errorf("second message: %v, want %v", s.USD, want)
	}
	s = spendOf(m, `{"type":"result","subtype":"success","is_error":false,"result":"{}","total_cost_usd":0.42}`)
	if !s.End || s.USD != 0.42 {
		t.Errorf("result: %+v", s)
	}
}

// A message of a model the table does not hold is not priced: the spend
// says so (the runner then cannot enforce the budget), never a silent 0.
func TestBudget_ClaudeUnpricedModel(t *testing.T) {
	s := spendOf(claude{}.NewMonitor(),
		`{"type":"assistant","message":{"id":"m","model":"claude-sonnet-9","usage":{"input_tokens":5},"content":[]}}`)
	if s == nil || s.USD != 0 || s.Unpriced != `the model "claude-sonnet-9" is not in spar's price table` {
		t.Errorf("%+v", s)
	}
}

// codex states its tokens at turn.completed only; they are priced at the
// attempt's model (its stream names none): the cached input at the cached
// rate, the rest of input_tokens at the input rate.
func TestBudget_CodexTurnPriced(t *testing.T) {
	turn := `{"type":"turn.completed","usage":{"input_tokens":200000,"cached_input_tokens":100000,"output_tokens":10000}}`
	m := codex{}.NewMonitor()
	m.(Pricer).PriceAs(str("gpt-5"))
	if s := spendOf(m, `{"type":"item.completed","item":{"id":"1","type":"agent_message","text":"{}"}}`); s != nil {
		t.Errorf("an item states a spend: %+v", s)
	}
	s := spendOf(m, turn)
	if want := 0.125 + 0.0125 + 0.1; s == nil || !near(s.USD, want) || s.Unpriced != "" {
		t.Errorf("%+v, want %v", s, want)
	}
	m = codex{}.NewMonitor()
	m.(Pricer).PriceAs(str("gpt-6-astra"))
	if s := spendOf(m, turn); !s.End || s.Unpriced != `the model "gpt-6-astra" is not in spar's price table` {
		t.Errorf("unpriced: %+v", s)
	}
	if s := spendOf(codex{}.NewMonitor(), turn); s.Unpriced != "the output names no model to price its tokens by" {
		t.Errorf("no model: %+v", s)
	}
}

// TestTrust_StatedTotalNeverHidesSpend: claude's result event states the
// CLI's own total, which replaces spar's sum of the messages' prices. A
// program in the claude slot (a hostile reviewer) that states a total of
// $0, a negative one or one past float64 hid what its messages cost, and a
// negative total lowered the round's sum (lib/runner RoundBudget), so that
// the ceiling no longer stopped the honest reviewers of the round. The total
// is taken only when it is a finite number at least spar's own sum: the
// stated messages' price is a floor of what the attempt spent.
func TestTrust_StatedTotalNeverHidesSpend(t *testing.T) {
	msg := `{"type":"assistant","message":{"id":"msg_1","model":"claude-sonnet-4-5","usage":{"input_tokens":100000,"output_tokens":0},"content":[]}}`
	for _, total := range []string{"0", "-5", "0.1", "-1e999", "1e999"} {
		m := claude{}.NewMonitor()
		spendOf(m, msg)
		s := spendOf(m, `{"type":"result","subtype":"success","is_error":false,"result":"{}","total_cost_usd":`+total+`}`)
		if s == nil || !s.End || !near(s.USD, 0.3) {
			t.Errorf("total_cost_usd %s: %+v, want the messages' $0.30", total, s)
		}
	}
	m := claude{}.NewMonitor()
	spendOf(m, msg)
	if s := spendOf(m, `{"type":"result","subtype":"success","is_error":false,"result":"{}","total_cost_usd":0.5}`); !near(s.USD, 0.5) {
		t.Errorf("a total above the messages' sum: %+v, want the CLI's $0.50", s)
	}
}

// A total_cost_usd past float64 is not recorded as the attempt's cost: JSON
// has no infinity, and round.json could not be written.
func TestTrust_InfiniteCostNotRecorded(t *testing.T) {
	m := claude{}.NewMonitor()
	m.Line([]byte(`{"type":"result","subtype":"success","is_error":false,"result":"{}","total_cost_usd":1e999}`))
	if u := m.Finish().Usage; u != nil && u.CostUSD != nil {
		t.Errorf("cost %v recorded", *u.CostUSD)
	}
}
