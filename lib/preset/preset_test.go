package preset

import (
	"reflect"
	"strings"
	"testing"

	"github.com/jaekit/spar/lib/envelope"
)

func feed(t *testing.T, m Monitor, lines ...string) (string, Outcome) {
	t.Helper()
	for _, l := range lines {
		if v := m.Line([]byte(l)).Violation; v != "" {
			return v, m.Finish()
		}
	}
	return "", m.Finish()
}

func TestG10_ClaudeTools(t *testing.T) {
	for _, tool := range []string{"Read", "Grep", "Glob"} {
		v, o := feed(t, claude{}.NewMonitor(),
			`{"type":"assistant","message":{"content":[{"type":"tool_use","name":"`+tool+`","input":{}}]}}`,
			`{"type":"result","subtype":"success","is_error":false,"result":"{}"}`)
		if v != "" || o.Result == nil || !reflect.DeepEqual(o.Tools, []string{tool}) {
			t.Errorf("%s: violation %q, outcome %+v", tool, v, o)
		}
	}
	for _, tool := range []string{"Bash", "Edit", "Write", "WebFetch", "Task", "read"} {
		v, _ := feed(t, claude{}.NewMonitor(),
			`{"type":"assistant","message":{"content":[{"type":"text","text":"x"},{"type":"tool_use","name":"`+tool+`","input":{}}]}}`)
		if want := `claude used the tool "` + tool + `", not one of Read, Grep or Glob (G10)`; v != want {
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
	}{
		{"structured output", []string{
			`not json at all`,
			`{"type":"system","subtype":"init","model":"opus-x","tools":["Bash"]}`,
			`{"type":"future","x":1}`,
			`{"type":"result","subtype":"success","is_error":false,"result":"text","structured_output":{"a":1}}`,
		}, str(`{"a":1}`), str("opus-x"), "", nil},
		{"result string", []string{
			`{"type":"assistant","message":{"model":"from-message","content":[]}}`,
			`{"type":"result","subtype":"success","is_error":false,"result":"{\"a\":2}"}`,
		}, str(`{"a":2}`), str("from-message"), "", nil},
		{"no result event", []string{`{"type":"system","subtype":"init"}`}, nil, nil, "the output has no result event", nil},
		{"error result", []string{
			`{"type":"result","subtype":"error_during_execution","is_error":true,"result":"boom\nmore"}`,
		}, nil, nil, `the result event reports an error (subtype "error_during_execution"): boom`, []string{"boom\nmore"}},
		{"is_error success", []string{
			`{"type":"result","subtype":"success","is_error":true,"result":"You've hit your limit"}`,
		}, nil, nil, `the result event reports an error (subtype "success"): You've hit your limit`, []string{"You've hit your limit"}},
		{"result without text", []string{
			`{"type":"result","subtype":"success","is_error":false,"structured_output":null}`,
		}, nil, nil, "the result event has neither structured_output nor a result string", nil},
		{"assistant error", []string{
			`{"type":"assistant","message":{"content":[{"type":"text","text":"Invalid API key"}]},"error":"authentication_failed"}`,
			`{"type":"result","subtype":"success","is_error":false,"result":"{}"}`,
		}, str(`{}`), nil, "", []string{"Invalid API key", "authentication_failed"}},
	}
	for _, c := range cases {
		_, o := feed(t, claude{}.NewMonitor(), c.lines...)
		if !reflect.DeepEqual(o.Result, c.result) || !reflect.DeepEqual(o.ObservedModel, c.model) || o.Problem != c.problem || !reflect.DeepEqual(o.Errors, c.errors) {
			t.Errorf("%s: %+v (result %v, model %v)", c.name, o, deref(o.Result), deref(o.ObservedModel))
		}
	}
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

// G21: {prompt}, {workspace} and {schema} anywhere inside an argument; any
// other {…} left as is; text a path brings in is not replaced again.
func TestG21_CommandPlaceholders(t *testing.T) {
	got := Substitute([]string{"x{prompt}y", "--ws={workspace}", "{schema}{schema}", "{other}", "{prompt", "{{prompt}}", "plain"},
		"/r/{schema}/in.md", "/r/ws", "/r/schema.json")
	want := []string{"x/r/{schema}/in.mdy", "--ws=/r/ws", "/r/schema.json/r/schema.json", "{other}", "{prompt", "{/r/{schema}/in.md}", "plain"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	inv := command{}.Invoke(Call{Exe: "/bin/tool", Argv: []string{"tool", "{prompt}"}, Prompt: "/p"})
	if !reflect.DeepEqual(inv.Args, []string{"/bin/tool", "/p"}) || inv.Stdin != nil {
		t.Errorf("%+v", inv)
	}
	m := command{}.NewMonitor()
	m.Line([]byte("ignored"))
	m.(WholeStdout).Stdout([]byte("{\"a\":1}\n"))
	if o := m.Finish(); deref(o.Result) != "{\"a\":1}\n" {
		t.Errorf("%+v", o)
	}
}

func TestInvocations(t *testing.T) {
	m, e, empty := "mod", "high", ""
	c := Call{Exe: "/x", Model: &m, Effort: &e, Input: envelope.Input{Text: "IN"}, Workspace: "/r/workspace", SchemaPath: "/r/schema.json", SchemaText: "{}"}
	cl := claude{}.Invoke(c)
	if strings.Join(cl.Args, " ") != "/x -p --output-format stream-json --verbose --json-schema {} --tools Read,Grep,Glob --allowedTools Read,Grep,Glob --model mod --effort high" || *cl.Stdin != "IN" {
		t.Errorf("claude: %q", cl.Args)
	}
	co := codex{}.Invoke(c)
	if strings.Join(co.Args, " ") != "/x exec --json --output-schema /r/schema.json --sandbox read-only --skip-git-repo-check -C /r/workspace "+strings.Join(codexFlags, " ")+" -m mod -c model_reasoning_effort=high -" || *co.Stdin != "IN" {
		t.Errorf("codex: %q", co.Args)
	}
	// Under spar's Landlock sandbox codex applies none of its own
	// (docs/sandbox.md, codex), and the launcher must apply the ruleset.
	c.Confined = true
	co = codex{}.Invoke(c)
	if strings.Join(co.Args, " ") != "/x exec --json --output-schema /r/schema.json --sandbox danger-full-access --skip-git-repo-check -C /r/workspace "+strings.Join(codexFlags, " ")+" -m mod -c model_reasoning_effort=high -" || !co.Confined {
		t.Errorf("codex confined: %q %v", co.Args, co.Confined)
	}
	if (claude{}).Invoke(c).Confined {
		t.Error("claude's invocation does not rely on the sandbox")
	}
	c.Confined = false
	// G21: an empty effort is not passed.
	c.Effort = &empty
	if a := strings.Join(claude{}.Invoke(c).Args, " "); strings.Contains(a, "--effort") {
		t.Errorf("empty effort passed: %s", a)
	}
	if a := strings.Join(codex{}.Invoke(c).Args, " "); strings.Contains(a, "model_reasoning_effort") {
		t.Errorf("empty effort passed: %s", a)
	}
	for _, n := range []string{"claude", "codex", "agy", "native", "command"} {
		p, err := Get(n)
		if err != nil || p.Name() != n {
			t.Errorf("Get(%q): %v", n, err)
		}
	}
	if _, err := Get("gemini"); err == nil {
		t.Error("Get(gemini): no error")
	}
}
