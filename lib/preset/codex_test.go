package preset

import (
	"reflect"
	"testing"

	"github.com/jaekit/spar/lib/envelope"
)

// The flags of the codex row of docs/review-round.md "Presets", each verified against codex-cli
// 0.169.0 by e2e/realcli/testdata/codex (what each one did is in
// docs/review-round.md, "codex").
func TestCodexInvocation(t *testing.T) {
	m, e := "gpt-x", "high"
	inv := codex{}.Invoke(Call{Exe: "/bin/codex", Model: &m, Effort: &e, Input: envelope.Input{Text: "IN"},
		Workspace: "/w", SchemaPath: "/r/schema.json"})
	want := []string{"/bin/codex", "exec", "--json", "--output-schema", "/r/schema.json", "--sandbox", "read-only",
		"--skip-git-repo-check", "-C", "/w",
		"--ephemeral", "-c", "project_root_markers=[]", "-c", `web_search="disabled"`,
		"--disable", "multi_agent", "--disable", "goals", "--disable", "unbounded_connection_retries",
		"-m", "gpt-x", "-c", "model_reasoning_effort=high", "-"}
	if !reflect.DeepEqual(inv.Args, want) || inv.Stdin == nil || *inv.Stdin != "IN" {
		t.Errorf("got %q\nwant %q", inv.Args, want)
	}
}

// G10: the item kinds a codex reviewer may produce; "error" items are the
// CLI's warnings (a warning of kind cli_warning, never a tool); anything
// else (a web search, a sub-agent's collab_tool_call, a file change, an MCP
// call) stops the reviewer.
func TestG10_CodexKinds(t *testing.T) {
	ok := []string{
		`{"type":"thread.started","thread_id":"t"}`,
		`{"type":"item.completed","item":{"id":"item_0","type":"error","message":"Model metadata for ` + "`gpt-x`" + ` not found. Defaulting to fallback metadata; this can degrade performance and cause issues."}}`,
		`{"type":"turn.started"}`,
		`{"type":"item.started","item":{"type":"command_execution","command":"ls"}}`,
		`{"type":"item.completed","item":{"type":"reasoning","text":"r"}}`,
		`{"type":"item.started","item":{"type":"todo_list","items":[]}}`,
		`{"type":"item.completed","item":{"type":"agent_message","text":"first"}}`,
		`{"type":"token_count"}`,
		`{"type":"item.completed","item":{"type":"agent_message","text":"{\"last\":true}"}}`,
		`{"type":"turn.completed","usage":{}}`,
	}
	v, o := feed(t, codex{}.NewMonitor(), ok...)
	if v != "" || deref(o.Result) != `{"last":true}` || o.ObservedModel != nil ||
		!reflect.DeepEqual(o.Tools, []string{"command_execution", "reasoning", "todo_list", "agent_message"}) ||
		!reflect.DeepEqual(o.Warnings, []envelope.Warning{{Kind: "cli_warning", Tool: "error"}}) ||
		!reflect.DeepEqual(o.Errors, []string{"Model metadata for `gpt-x` not found. Defaulting to fallback metadata; this can degrade performance and cause issues."}) {
		t.Errorf("%q %+v", v, o)
	}
	for _, kind := range []string{"file_change", "mcp_tool_call", "web_search", "collab_tool_call"} {
		v, _ := feed(t, codex{}.NewMonitor(), `{"type":"item.started","item":{"type":"`+kind+`"}}`)
		if want := `codex produced an item of kind "` + kind + `", not one of agent_message, reasoning, command_execution, todo_list or error (G10)`; v != want {
			t.Errorf("%s: %q", kind, v)
		}
	}
}

// The result, the failure the stream states (docs/review-round.md §4: turn.failed,
// the last error event; never stderr) and what is missing.
func TestCodexResult(t *testing.T) {
	cases := []struct {
		name             string
		lines            []string
		problem, failure string
	}{
		{"no turn.completed", []string{`{"type":"item.completed","item":{"type":"agent_message","text":"x"}}`},
			"the output has no turn.completed event", ""},
		{"no agent_message", []string{`{"type":"turn.completed"}`}, "the turn completed without an agent_message", ""},
		{"turn failed", []string{
			`{"type":"error","message":"Reconnecting... 1/5 (stream disconnected before completion: error sending request)"}`,
			`{"type":"error","message":"stream disconnected before completion: error sending request"}`,
			`{"type":"turn.failed","error":{"message":"stream disconnected before completion: error sending request"}}`},
			"the turn failed: stream disconnected before completion: error sending request",
			"stream disconnected before completion: error sending request"},
		{"stopped while retrying", []string{
			`{"type":"turn.started"}`,
			`{"type":"error","message":"Reconnecting... waiting for network (Connection failed: error sending request)"}`},
			"the output has no turn.completed event",
			"Reconnecting... waiting for network (Connection failed: error sending request)"},
	}
	for _, c := range cases {
		_, o := feed(t, codex{}.NewMonitor(), c.lines...)
		if o.Result != nil || o.Problem != c.problem || o.Failure != c.failure {
			t.Errorf("%s: %+v", c.name, o)
		}
	}
}

// "Reconnecting... N/5 (…)" error events are retries (the runner ends the
// attempt when one is a refusal, docs/review-round.md "Refusal phrases"); other error events are not.
func TestCodexRetrySignal(t *testing.T) {
	m := codex{}.NewMonitor()
	for line, want := range map[string]string{
		`{"type":"error","message":"Reconnecting... 1/5 (exceeded retry limit, last status: 429 Too Many Requests)"}`: "Reconnecting... 1/5 (exceeded retry limit, last status: 429 Too Many Requests)",
		`{"type":"error","message":"Reconnecting... waiting for network (Connection failed: error sending request)"}`: "Reconnecting... waiting for network (Connection failed: error sending request)",
		`{"type":"error","message":"exceeded retry limit, last status: 429 Too Many Requests"}`:                       "",
		`{"type":"item.completed","item":{"type":"error","message":"Reconnecting... 1/5 (x)"}}`:                       "",
	} {
		if s := m.Line([]byte(line)); s.Retry != want || s.Violation != "" {
			t.Errorf("%s: %+v", line, s)
		}
	}
}

// turn.completed's usage: input without the cached part, cache reads and
// writes, output; nil without usage.
func TestCodexUsage(t *testing.T) {
	_, o := feed(t, codex{}.NewMonitor(),
		`{"type":"item.completed","item":{"type":"agent_message","text":"{}"}}`,
		`{"type":"turn.completed","usage":{"input_tokens":2400,"cached_input_tokens":400,"cache_write_input_tokens":0,"output_tokens":600,"reasoning_output_tokens":80}}`)
	i := func(n int64) *int64 { return &n }
	want := &envelope.Usage{InputTokens: i(2000), CacheReadTokens: i(400), CacheWriteTokens: i(0), OutputTokens: i(600)}
	if !reflect.DeepEqual(o.Usage, want) {
		t.Errorf("%+v", o.Usage)
	}
	for _, l := range []string{`{"type":"turn.completed"}`, `{"type":"turn.completed","usage":{}}`} {
		if _, o := feed(t, codex{}.NewMonitor(), l); o.Usage != nil {
			t.Errorf("%s: %+v", l, o.Usage)
		}
	}
	_, o = feed(t, codex{}.NewMonitor(), `{"type":"turn.completed","usage":{"input_tokens":10,"output_tokens":2}}`)
	if want := (&envelope.Usage{InputTokens: i(10), OutputTokens: i(2)}); !reflect.DeepEqual(o.Usage, want) {
		t.Errorf("%+v", o.Usage)
	}
}
