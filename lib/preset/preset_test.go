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
