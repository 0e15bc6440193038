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

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

func TestG10_CodexKinds(t *testing.T) {
	ok := []string{
		`{"type":"thread.started","thread_id":"t"}`,
		`{"type":"turn.started"}`,
		`{"type":"item.started","item":{"type":"command_execution","command":"ls"}}`,
		`{"type":"item.completed","item":{"type":"reasoning","text":"r"}}`,
		`{"type":"item.completed","item":{"type":"error","message":"warning: x"}}`,
		`{"type":"item.completed","item":{"type":"agent_message","text":"first"}}`,
		`{"type":"token_count"}`,
		`{"type":"item.completed","item":{"type":"agent_message","text":"{\"last\":true}"}}`,
		`{"type":"turn.completed","usage":{}}`,
	}
	v, o := feed(t, codex{}.NewMonitor(), ok...)
	if v != "" || deref(o.Result) != `{"last":true}` || o.ObservedModel != nil ||
		!reflect.DeepEqual(o.Tools, []string{"command_execution", "reasoning", "error", "agent_message"}) ||
		!reflect.DeepEqual(o.Errors, []string{"warning: x"}) {
		t.Errorf("%q %+v", v, o)
	}
	for _, kind := range []string{"file_change", "mcp_tool_call", "web_search", "todo_list"} {
		v, _ := feed(t, codex{}.NewMonitor(), `{"type":"item.started","item":{"type":"`+kind+`"}}`)
		if !strings.HasPrefix(v, `codex produced an item of kind "`+kind+`"`) {
			t.Errorf("%s: %q", kind, v)
		}
	}
	cases := map[string][]string{
		"the output has no turn.completed event":      {`{"type":"item.completed","item":{"type":"agent_message","text":"x"}}`},
		"the turn completed without an agent_message": {`{"type":"turn.completed"}`},
		"the turn failed: usage limit":                {`{"type":"error","message":"usage limit"}`, `{"type":"turn.failed","error":{"message":"usage limit"}}`},
	}
	for want, lines := range cases {
		if _, o := feed(t, codex{}.NewMonitor(), lines...); o.Problem != want || o.Result != nil {
			t.Errorf("%v: %+v", lines, o)
		}
	}
}

func TestG11_AgyShellLines(t *testing.T) {
	line := func(cmd string) string {
		return `{"event":"step_update","step_update":{"step_type":"tool","tool_name":"run_command","tool_info":{"command_line":` + quote(cmd) + `}}}`
	}
	for _, ok := range []string{"ls -la && ls -la head base", `grep -n "a && b; c" head/a.go`, "sed -n '1,20p' head/a.go", "cat head/app/main.go 2>&1"} {
		if v, _ := feed(t, agy{}.NewMonitor(), line(ok)); v != "" {
			t.Errorf("%q: %q", ok, v)
		}
	}
	bad := map[string]string{
		"cd head && go test ./...": "cd",
		"ls; touch x":              "touch",
		"echo $(id)":               "$(",
		"ls\nrm -rf head":          "\n",
	}
	for l, problem := range bad {
		v, _ := feed(t, agy{}.NewMonitor(), line(l))
		if want := `agy shell line ` + quote(l) + ` breaks G11: first problem ` + quote(problem); v != want {
			t.Errorf("%q: %q, want %q", l, v, want)
		}
	}
	v, _ := feed(t, agy{}.NewMonitor(), `{"event":"step_update","step_update":{"step_type":"tool","tool_name":"write_file","tool_info":{}}}`)
	if v != `agy used the tool "write_file", not read_file or a shell line that passes G11 (G10)` {
		t.Errorf("write_file: %q", v)
	}
}

func quote(s string) string {
	b := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s)
	return `"` + b + `"`
}

func TestAgyResult(t *testing.T) {
	_, o := feed(t, agy{}.NewMonitor(),
		`{"event":"init","init":{"model":"gem-x"}}`,
		`{"event":"step_update","step_update":{"step_type":"thinking"}}`,
		`{"event":"something_new"}`,
		`{"event":"result","result":{"status":"success","response":"{\"a\":1}"}}`)
	if deref(o.Result) != `{"a":1}` || deref(o.ObservedModel) != "gem-x" || o.Problem != "" {
		t.Errorf("%+v", o)
	}
	_, o = feed(t, agy{}.NewMonitor(), `{"event":"result","result":{"status":"success","structured_output":{"b":2}}}`)
	if deref(o.Result) != `{"b":2}` || o.ObservedModel != nil {
		t.Errorf("%+v", o)
	}
	_, o = feed(t, agy{}.NewMonitor(), `{"event":"error","error":{"message":"RESOURCE_EXHAUSTED"}}`, `{"event":"result","result":{"status":"error","error":{"message":"quota"}}}`)
	if o.Result != nil || o.Problem != `the result event has status "error": quota` || !reflect.DeepEqual(o.Errors, []string{"RESOURCE_EXHAUSTED", "quota"}) {
		t.Errorf("%+v", o)
	}
	_, o = feed(t, agy{}.NewMonitor(), `{"event":"init","init":{}}`)
	if o.Problem != "the output has no result event" {
		t.Errorf("%+v", o)
	}
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
	co := codex{}.Invoke(c)
	if strings.Join(co.Args, " ") != "/x exec --json --output-schema /r/schema.json --sandbox read-only --skip-git-repo-check -C /r/workspace -m mod -c model_reasoning_effort=high -" || *co.Stdin != "IN" {
		t.Errorf("codex: %q", co.Args)
	}
	ag := agy{}.Invoke(c)
	if strings.Join(ag.Args, " ") != "/x -p IN --output-format stream-json --json-schema /r/schema.json --model mod" || ag.Stdin != nil {
		t.Errorf("agy: %q", ag.Args)
	}
	// G21: an empty effort is not passed.
	c.Effort = &empty
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
