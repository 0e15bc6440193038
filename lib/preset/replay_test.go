package preset

import (
	"strings"
	"testing"
)

// TestTrust_ReplayRunStops: the gate reads a reviewer's stream as the
// runner read it, including the lines on which the runner stops the
// attempt and reads no further (docs/trust.md "The gate"): a forbidden
// tool, a retried request refused, a spend stated before the turn ends
// past the attempt's own budget or on its own past the round's. A result
// after such a line was never the runner's. A spend stated as the turn ends
// stops nothing, and a stream without a stopping line has no stop.
func TestTrust_ReplayRunStops(t *testing.T) {
	msg := `{"type":"assistant","message":{"id":"m1","model":"claude-sonnet-4-5","usage":{"input_tokens":100000},"content":[]}}`
	tool := `{"type":"assistant","message":{"id":"m2","model":"claude-sonnet-4-5","content":[{"type":"tool_use","name":"Bash","input":{"command":"true"}}]}}`
	retry := `{"type":"system","subtype":"api_retry","attempt":1,"max_retries":10,"error_status":429,"error":"You've hit your limit · resets 3pm (UTC)"}`
	result := `{"type":"result","subtype":"success","is_error":false,"result":"{}","total_cost_usd":0.31}`
	half, one := 0.5, 0.2
	for _, c := range []struct {
		name   string
		lines  []string
		b      Budgets
		stop   string // a part of the stop reason; "" for none
		result bool
	}{
		{"no budget", []string{msg, result}, Budgets{}, "", true},
		{"under the budgets", []string{msg, result}, Budgets{Own: &half, Round: &half}, "", true},
		{"past its own budget", []string{msg, result}, Budgets{Own: &one}, "budget: spent $0.30 of $0.20", true},
		{"alone past the round's", []string{msg, result}, Budgets{Round: &one}, "budget: spent $0.30 of $0.20 for the round", true},
		{"past a budget as the turn ends", []string{result}, Budgets{Own: &one, Round: &one}, "", true},
		{"a forbidden tool", []string{tool, result}, Budgets{}, `claude used the tool "Bash"`, true},
		{"a refusal retried", []string{retry, result}, Budgets{}, "limit", true},
	} {
		oc, stop := ReplayRun(claude{}, []byte(strings.Join(c.lines, "\n")+"\n"), nil, c.b)
		if (oc.Result != nil) != c.result {
			t.Errorf("%s: result %v", c.name, oc.Result)
		}
		if c.stop == "" && stop != "" || c.stop != "" && !strings.Contains(stop, c.stop) {
			t.Errorf("%s: stop %q, want %q", c.name, stop, c.stop)
		}
	}
	// agy and command states no spend spar prices: no budget stops them.
	if _, stop := ReplayRun(command{}, []byte("{}\n"), nil, Budgets{Own: &one, Round: &one}); stop != "" {
		t.Errorf("command: stop %q", stop)
	}
}
