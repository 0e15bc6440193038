package preset

import (
	"fmt"
	"slices"

	"github.com/tidwall/gjson"
)

// codex: `codex exec --json … -`, input on stdin (DESIGN.md §5). The stream
// is one JSON object per line: thread.started, turn.started, item.started /
// item.updated / item.completed (item.type is the item kind), turn.completed
// or turn.failed, and error. The result is the last agent_message of a turn
// that completed. codex's stream does not state the model: observed_model
// stays null unless an event carries a "model" string.
type codex struct{}

// codexKinds are the item kinds a codex reviewer may produce (G10). Its
// command items run inside --sandbox read-only; "error" items are messages,
// not tools.
var codexKinds = []string{"agent_message", "reasoning", "command_execution", "error"}

func (codex) Name() string          { return "codex" }
func (codex) Isolation() string     { return "verified" }
func (codex) VersionArgs() []string { return []string{"--version"} }

func (codex) Invoke(c Call) Invocation {
	args := []string{c.Exe, "exec", "--json", "--output-schema", c.SchemaPath,
		"--sandbox", "read-only", "--skip-git-repo-check", "-C", c.Workspace}
	if set(c.Model) {
		args = append(args, "-m", *c.Model)
	}
	if set(c.Effort) {
		args = append(args, "-c", "model_reasoning_effort="+*c.Effort)
	}
	args = append(args, "-")
	in := c.Input.Text
	return Invocation{Args: args, Stdin: &in}
}

func (codex) NewMonitor() Monitor { return &codexMonitor{} }

type codexMonitor struct {
	model     *string
	tools     tools
	errors    []string
	last      *string
	completed bool
	failed    string
}

func (m *codexMonitor) Line(line []byte) Signal { return Signal{Violation: m.line(line)} }

func (m *codexMonitor) line(line []byte) string {
	if !gjson.ValidBytes(line) {
		return ""
	}
	ev := gjson.ParseBytes(line)
	if v := ev.Get("model"); m.model == nil && v.Type == gjson.String && v.String() != "" {
		m.model = str(v.String())
	}
	switch ev.Get("type").String() {
	case "item.started", "item.updated", "item.completed":
		kind := ev.Get("item.type").String()
		m.tools.add(kind)
		if !slices.Contains(codexKinds, kind) {
			return fmt.Sprintf("codex produced an item of kind %q, not one of %s (G10)", kind, oneOf(codexKinds))
		}
		if ev.Get("type").String() != "item.completed" {
			return ""
		}
		switch kind {
		case "agent_message":
			m.last = str(ev.Get("item.text").String())
		case "error":
			m.errors = append(m.errors, ev.Get("item.message").String())
		}
	case "turn.completed":
		m.completed = true
	case "turn.failed":
		msg := ev.Get("error.message").String()
		m.errors = append(m.errors, msg)
		m.failed = msg
	case "error":
		m.errors = append(m.errors, ev.Get("message").String())
	}
	return ""
}

func (m *codexMonitor) Finish() Outcome {
	o := Outcome{ObservedModel: m.model, Tools: m.tools.names(), Errors: m.errors}
	switch {
	case m.failed != "":
		o.Problem = "the turn failed: " + firstLine(m.failed)
	case !m.completed:
		o.Problem = "the output has no turn.completed event"
	case m.last == nil:
		o.Problem = "the turn completed without an agent_message"
	default:
		o.Result = m.last
	}
	return o
}
