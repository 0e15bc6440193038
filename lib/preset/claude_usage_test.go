package preset

import (
	"encoding/json"
	"testing"
)

// docs/review-round.md §7.4: the claude result event's `usage`
// (input_tokens, output_tokens, cache_read_input_tokens,
// cache_creation_input_tokens, as Claude Code 2.x prints them) and
// `total_cost_usd` become the attempt's usage; a key the event lacks stays
// null, an event with none is no usage at all, and only the last result
// event counts.
func TestClaudeUsage_Cases(t *testing.T) {
	cases := []struct {
		name  string
		lines []string
		want  string
	}{
		{"all stated", []string{
			`{"type":"result","subtype":"success","is_error":false,"result":"{}","total_cost_usd":0.0421875,"usage":{"input_tokens":12,"cache_creation_input_tokens":3400,"cache_read_input_tokens":12000,"output_tokens":250,"server_tool_use":{"web_search_requests":0},"service_tier":"standard"}}`,
		}, `{"input_tokens":12,"output_tokens":250,"cache_read_tokens":12000,"cache_write_tokens":3400,"cost_usd":0.0421875}`},
		{"tokens and cost, no cache", []string{
			`{"type":"result","subtype":"success","is_error":false,"result":"{}","total_cost_usd":0.12,"usage":{"input_tokens":1200,"output_tokens":300}}`,
		}, `{"input_tokens":1200,"output_tokens":300,"cache_read_tokens":null,"cache_write_tokens":null,"cost_usd":0.12}`},
		{"an error result states its cost", []string{
			`{"type":"result","subtype":"success","is_error":true,"result":"You've hit your limit","total_cost_usd":0}`,
		}, `{"input_tokens":null,"output_tokens":null,"cache_read_tokens":null,"cache_write_tokens":null,"cost_usd":0}`},
		{"nothing stated", []string{
			`{"type":"result","subtype":"success","is_error":false,"result":"{}","usage":{"input_tokens":"many"}}`,
		}, `null`},
		{"no result event", []string{`{"type":"assistant","message":{"usage":{"input_tokens":5},"content":[]}}`}, `null`},
		{"the last result decides", []string{
			`{"type":"result","subtype":"success","is_error":false,"result":"{}","total_cost_usd":1}`,
			`{"type":"result","subtype":"success","is_error":false,"result":"{}"}`,
		}, `null`},
	}
	for _, c := range cases {
		_, o := feed(t, claude{}.NewMonitor(), c.lines...)
		b, _ := json.Marshal(o.Usage)
		if string(b) != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, b, c.want)
		}
	}
}
