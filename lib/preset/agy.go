package preset

import (
	"fmt"

	"github.com/jaekit/spar/lib/shellcheck"
	"github.com/tidwall/gjson"
)

// agy: `agy -p <text> --output-format stream-json` (DESIGN.md §5). The
// stream is one JSON object per line keyed by "event": `init` (its object
// states the model), `step_update` (step_type "tool" with tool_name and
// tool_info for each tool call; other step types are progress), `error`,
// and the terminal `result` (status, response, and with --json-schema the
// structured output).
type agy struct{}

// agyRead is the file-reading tool; agyShell the shell tools whose lines
// pass through G11.
var (
	agyRead  = []string{"read_file"}
	agyShell = map[string]bool{"run_command": true, "run_shell_command": true}
)

func (agy) Name() string          { return "agy" }
func (agy) Isolation() string     { return "verified" }
func (agy) VersionArgs() []string { return []string{"--version"} }

func (agy) Invoke(c Call) Invocation {
	args := []string{c.Exe, "-p", c.Input.Text, "--output-format", "stream-json",
		"--json-schema", c.SchemaPath}
	if set(c.Model) {
		args = append(args, "--model", *c.Model)
	}
	return Invocation{Args: args}
}

func (agy) NewMonitor() Monitor { return &agyMonitor{} }

type agyMonitor struct {
	model   *string
	tools   tools
	errors  []string
	result  *string
	problem string
	seen    bool
}

func (m *agyMonitor) Line(line []byte) Signal { return Signal{Violation: m.line(line)} }

func (m *agyMonitor) line(line []byte) string {
	if !gjson.ValidBytes(line) {
		return ""
	}
	ev := gjson.ParseBytes(line)
	switch ev.Get("event").String() {
	case "init":
		if v := ev.Get("init.model"); m.model == nil && v.Type == gjson.String && v.String() != "" {
			m.model = str(v.String())
		}
	case "step_update":
		st := ev.Get("step_update")
		if st.Get("step_type").String() != "tool" {
			return ""
		}
		name := st.Get("tool_name").String()
		m.tools.add(name)
		switch {
		case name == agyRead[0]:
		case agyShell[name]:
			cmd := st.Get("tool_info.command_line")
			if !cmd.Exists() {
				cmd = st.Get("tool_info.command")
			}
			if ok, problem := shellcheck.Check(cmd.String()); !ok {
				return shellcheck.Reason(cmd.String(), problem)
			}
		default:
			return fmt.Sprintf("agy used the tool %q, not read_file or a shell line that passes G11 (G10)", name)
		}
	case "error":
		m.errors = append(m.errors, ev.Get("error.message").String())
	case "result":
		m.seen = true
		r := ev.Get("result")
		m.result = nil
		if st := r.Get("status").String(); st != "success" {
			msg := r.Get("error.message").String()
			if msg != "" {
				m.errors = append(m.errors, msg)
			}
			m.problem = fmt.Sprintf("the result event has status %q", st)
			if msg != "" {
				m.problem += ": " + firstLine(msg)
			}
			return ""
		}
		if so := r.Get("structured_output"); so.Exists() && so.Type != gjson.Null {
			m.result = str(so.Raw)
		} else if resp := r.Get("response"); resp.Type == gjson.String {
			m.result = str(resp.String())
		} else {
			m.problem = "the result event has neither structured_output nor a response string"
			return ""
		}
		m.problem = ""
	}
	return ""
}

func (m *agyMonitor) Finish() Outcome {
	o := Outcome{Result: m.result, ObservedModel: m.model, Tools: m.tools.names(), Errors: m.errors, Problem: m.problem}
	if !m.seen {
		o.Problem = "the output has no result event"
	}
	return o
}
