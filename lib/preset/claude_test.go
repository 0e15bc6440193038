package preset

import (
	"reflect"
	"strings"
	"testing"

	"github.com/jaekit/spar/lib/envelope"
)

func TestG10_ClaudeTools(t *testing.T) {
	for _, tool := range []string{"Read", "Grep", "Glob", "StructuredOutput"} {
		v, o := feed(t, claude{}.NewMonitor(),
			`{"type":"assistant","message":{"content":[{"type":"tool_use","name":"`+tool+`","input":{}}]}}`,
			`{"type":"result","subtype":"success","is_error":false,"result":"{}"}`)
		if v != "" || o.Result == nil || !reflect.DeepEqual(o.Tools, []string{tool}) {
			t.Errorf("%s: violation %q, outcome %+v", tool, v, o)
		}
	}
	for _, tool := range []string{"Bash", "Edit", "Write", "WebFetch", "Task", "Agent", "read", "structuredoutput"} {
		v, _ := feed(t, claude{}.NewMonitor(),
			`{"type":"assistant","message":{"content":[{"type":"text","text":"x"},{"type":"tool_use","name":"`+tool+`","input":{}}]}}`)
		if want := `claude used the tool "` + tool + `", not one of Read, Grep, Glob or StructuredOutput (G10)`; v != want {
			t.Errorf("%s: %q, want %q", tool, v, want)
		}
	}
}

// Tolerant of events it does not know and of lines that are not JSON;
// strict about the result.
func TestClaudeResult(t *testing.T) {
	cases := []struct {
		name    string
		lines   []string
		result  *string
		model   *string
		problem string
		errors  []string
		invalid bool
	}{
		{"structured output", []string{
			`not json at all`,
			`{"type":"system","subtype":"init","model":"opus-x","tools":["Bash"]}`,
			`{"type":"future","x":1}`,
			`{"type":"result","subtype":"success","is_error":false,"result":"text","structured_output":{"a":1}}`,
		}, str(`{"a":1}`), nil, "", nil, false}, // G12: init's model is no model response
		{"result string", []string{
			`{"type":"assistant","message":{"model":"from-message","content":[]}}`,
			`{"type":"result","subtype":"success","is_error":false,"result":"{\"a\":2}"}`,
		}, str(`{"a":2}`), str("from-message"), "", nil, false},
		// G12: the model that answered, not the one init names (the CLI's
		// own fallback answers with another), and the last one that did.
		{"answered model", []string{
			`{"type":"system","subtype":"init","model":"claude-opus-5-5"}`,
			`{"type":"assistant","message":{"model":"claude-opus-5-5-20261101","content":[]}}`,
			`{"type":"assistant","message":{"model":"claude-sonnet-5-5-20261101","content":[]}}`,
			`{"type":"result","subtype":"success","is_error":false,"result":"{}"}`,
		}, str(`{}`), str("claude-sonnet-5-5-20261101"), "", nil, false},
		// An error message the CLI writes itself names the model
		// <synthetic>: nobody answered, so no model is observed (init's
		// model is what the CLI asked for, not a response).
		{"synthetic model", []string{
			`{"type":"system","subtype":"init","model":"nosuch"}`,
			`{"type":"assistant","message":{"model":"<synthetic>","content":[{"type":"text","text":"There's an issue with the selected model (nosuch)."}]}}`,
			`{"type":"result","subtype":"success","is_error":true,"api_error_status":404,"result":"There's an issue with the selected model (nosuch)."}`,
		}, nil, nil, `the result event reports an error (subtype "success"): There's an issue with the selected model (nosuch).`,
			[]string{"There's an issue with the selected model (nosuch)."}, false},
		{"no result event", []string{`{"type":"system","subtype":"init"}`}, nil, nil, "the output has no result event", nil, false},
		{"error result", []string{
			`{"type":"result","subtype":"error_during_execution","is_error":true,"result":"boom\nmore"}`,
		}, nil, nil, `the result event reports an error (subtype "error_during_execution"): boom`, []string{"boom\nmore"}, false},
		{"is_error success", []string{
			`{"type":"result","subtype":"success","is_error":true,"result":"You've hit your limit"}`,
		}, nil, nil, `the result event reports an error (subtype "success"): You've hit your limit`, []string{"You've hit your limit"}, false},
		{"result without text", []string{
			`{"type":"result","subtype":"success","is_error":false,"structured_output":null}`,
		}, nil, nil, "the result event has neither structured_output nor a result string", nil, false},
		{"assistant error", []string{
			`{"type":"assistant","message":{"content":[{"type":"text","text":"Invalid API key"}]},"error":"authentication_failed"}`,
			`{"type":"result","subtype":"success","is_error":false,"result":"{}"}`,
		}, str(`{}`), nil, "", []string{"Invalid API key", "authentication_failed"}, false},
		// docs/review-round.md "Presets": the CLI validated the answer against the schema and
		// gave up: invalid_output, the CLI's errors as the reason.
		{"structured output retries", []string{
			`{"type":"result","subtype":"error_max_structured_output_retries","is_error":true,"errors":["Failed to provide valid structured output after 5 attempts"]}`,
		}, nil, nil, "the CLI gave up on the answer's format (error_max_structured_output_retries): Failed to provide valid structured output after 5 attempts",
			[]string{"Failed to provide valid structured output after 5 attempts"}, true},
	}
	for _, c := range cases {
		_, o := feed(t, claude{}.NewMonitor(), c.lines...)
		if !reflect.DeepEqual(o.Result, c.result) || !reflect.DeepEqual(o.ObservedModel, c.model) || o.Problem != c.problem ||
			!reflect.DeepEqual(o.Errors, c.errors) || o.Invalid != c.invalid {
			t.Errorf("%s: %+v (result %v, model %v)", c.name, o, deref(o.Result), deref(o.ObservedModel))
		}
	}
}

// docs/review-round.md "Presets": each system/api_retry event is a Retry signal whose text holds
// the status and the CLI's error name, so lib/refusal finds a 429 or 401.
func TestG13_ClaudeRetrySignal(t *testing.T) {
	m := claude{}.NewMonitor()
	cases := map[string]string{
		`{"type":"system","subtype":"api_retry","attempt":1,"max_retries":10,"retry_delay_ms":587,"error_status":429,"error":"rate_limit"}`:             "API error (status 429): rate_limit; the CLI retries (attempt 1 of 10)",
		`{"type":"system","subtype":"api_retry","attempt":2,"max_retries":10,"retry_delay_ms":1191,"error_status":401,"error":"authentication_failed"}`: "API error (status 401): authentication_failed; the CLI retries (attempt 2 of 10)",
		`{"type":"system","subtype":"api_retry","attempt":1,"max_retries":10,"retry_delay_ms":510,"error_status":null,"error":"unknown"}`:               "API error (no status): unknown; the CLI retries (attempt 1 of 10)",
		`{"type":"system","subtype":"init","model":"m"}`: "",
	}
	for line, want := range cases {
		if got := m.Line([]byte(line)); got.Retry != want || got.Violation != "" {
			t.Errorf("%s: %+v, want Retry %q", line, got, want)
		}
	}
}

// docs/review-round.md §7.4: usage and cost come from the result event.
func TestClaudeUsage(t *testing.T) {
	_, o := feed(t, claude{}.NewMonitor(),
		`{"type":"result","subtype":"success","is_error":false,"result":"{}","total_cost_usd":0.01876,"usage":{"input_tokens":2400,"cache_creation_input_tokens":600,"cache_read_input_tokens":800,"output_tokens":300}}`)
	i, out, cr, cw, cost := int64(2400), int64(300), int64(800), int64(600), 0.01876
	want := &envelope.Usage{InputTokens: &i, OutputTokens: &out, CacheReadTokens: &cr, CacheWriteTokens: &cw, CostUSD: &cost}
	if !reflect.DeepEqual(o.Usage, want) {
		t.Errorf("usage %+v", o.Usage)
	}
	_, o = feed(t, claude{}.NewMonitor(), `{"type":"result","subtype":"success","is_error":false,"result":"{}"}`)
	if o.Usage != nil {
		t.Errorf("no usage stated: %+v", o.Usage)
	}
	_, o = feed(t, claude{}.NewMonitor(), `{"type":"result","subtype":"success","is_error":false,"result":"{}","total_cost_usd":0}`)
	if o.Usage == nil || o.Usage.CostUSD == nil || *o.Usage.CostUSD != 0 || o.Usage.InputTokens != nil {
		t.Errorf("cost only: %+v", o.Usage)
	}
}

func TestClaudeInvocation(t *testing.T) {
	m, e, empty := "mod", "high", ""
	c := Call{Exe: "/x", Model: &m, Effort: &e, Input: envelope.Input{Text: "IN"}, Workspace: "/r/workspace", SchemaPath: "/r/schema.json", SchemaText: "{}"}
	cl := claude{}.Invoke(c)
	want := []string{"/x", "-p", "--output-format", "stream-json", "--verbose", "--json-schema", "{}", "--tools", "Read,Grep,Glob",
		"--restricted", "--safe-mode", "--setting-sources", "", "--strict-mcp-config", "--permission-mode", "dontAsk",
		"--no-session-persistence", "--model", "mod", "--effort", "high"}
	if !reflect.DeepEqual(cl.Args, want) || *cl.Stdin != "IN" {
		t.Errorf("claude: %q", cl.Args)
	}
	for _, a := range cl.Args {
		if strings.HasPrefix(strings.ToLower(a), "--allowed") {
			t.Errorf("%s lets Read and Grep reach any path", a)
		}
	}
	// G21: an empty effort is not passed.
	c.Effort = &empty
	if a := strings.Join(claude{}.Invoke(c).Args, " "); strings.Contains(a, "--effort") {
		t.Errorf("empty effort passed: %s", a)
	}
}
