package preset

import (
	"fmt"
	"slices"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/tidwall/gjson"
)

// claude: `claude -p --output-format stream-json --verbose`, input on stdin
// (DESIGN.md §5). The stream is one JSON object per line: `system` (subtype
// `init` states the model), `assistant` and `user` messages whose content
// holds `tool_use` blocks, and a final `result`. With --json-schema the
// result event carries `structured_output`.
type claude struct{}

// claudeTools are the tools a claude reviewer may use (G10): read and search.
var claudeTools = []string{"Read", "Grep", "Glob"}

func (claude) Name() string          { return "claude" }
func (claude) Isolation() string     { return "verified" }
func (claude) VersionArgs() []string { return []string{"--version"} }

func (claude) Invoke(c Call) Invocation {
	args := []string{c.Exe, "-p", "--output-format", "stream-json", "--verbose",
		"--json-schema", c.SchemaText,
		"--tools", "Read,Grep,Glob", "--allowedTools", "Read,Grep,Glob"}
	if set(c.Model) {
		args = append(args, "--model", *c.Model)
	}
	if set(c.Effort) {
		args = append(args, "--effort", *c.Effort)
	}
	in := c.Input.Text
	return Invocation{Args: args, Stdin: &in}
}

func (claude) NewMonitor() Monitor { return &claudeMonitor{} }

type claudeMonitor struct {
	model   *string
	tools   tools
	errors  []string
	result  *string
	problem string
	seen    bool // a result event was seen
	usage   *envelope.Usage
}

func (m *claudeMonitor) Line(line []byte) Signal { return Signal{Violation: m.line(line)} }

func (m *claudeMonitor) line(line []byte) string {
	if !gjson.ValidBytes(line) {
		return "" // not an event (a warning line): tolerated
	}
	ev := gjson.ParseBytes(line)
	switch ev.Get("type").String() {
	case "system":
		if ev.Get("subtype").String() == "init" {
			m.setModel(ev.Get("model"))
		}
	case "assistant":
		m.setModel(ev.Get("message.model"))
		if e := ev.Get("error"); e.Exists() {
			// An API error the CLI turns into a message (rate limit, auth).
			for _, c := range ev.Get("message.content").Array() {
				if c.Get("type").String() == "text" {
					m.errors = append(m.errors, c.Get("text").String())
				}
			}
			m.errors = append(m.errors, e.String())
		}
		for _, c := range ev.Get("message.content").Array() {
			if c.Get("type").String() != "tool_use" {
				continue
			}
			name := c.Get("name").String()
			m.tools.add(name)
			if !slices.Contains(claudeTools, name) {
				return fmt.Sprintf("claude used the tool %q, not one of %s (G10)", name, oneOf(claudeTools))
			}
		}
	case "result":
		m.seen = true
		m.result = nil
		// Usage and cost as the result event states them (DESIGN.md §5):
		// `usage` {input_tokens, output_tokens, cache_read_input_tokens,
		// cache_creation_input_tokens} and `total_cost_usd`; a key the
		// event lacks stays null, an event with none of them is nil.
		m.usage = nil
		{
			var u envelope.Usage
			stated := false
			tok := func(key string) *int64 {
				if v := ev.Get(key); v.Type == gjson.Number {
					n := v.Int()
					stated = true
					return &n
				}
				return nil
			}
			u.InputTokens = tok("usage.input_tokens")
			u.OutputTokens = tok("usage.output_tokens")
			u.CacheReadTokens = tok("usage.cache_read_input_tokens")
			u.CacheWriteTokens = tok("usage.cache_creation_input_tokens")
			if v := ev.Get("total_cost_usd"); v.Type == gjson.Number {
				c := v.Float()
				u.CostUSD, stated = &c, true
			}
			if stated {
				m.usage = &u
			}
		}
		if ev.Get("is_error").Bool() || ev.Get("subtype").String() != "success" {
			msg := ev.Get("result").String()
			for _, e := range ev.Get("errors").Array() {
				m.errors = append(m.errors, e.String())
			}
			if msg != "" {
				m.errors = append(m.errors, msg)
			}
			m.problem = fmt.Sprintf("the result event reports an error (subtype %q)", ev.Get("subtype").String())
			if msg != "" {
				m.problem += ": " + firstLine(msg)
			}
			return ""
		}
		if so := ev.Get("structured_output"); so.Exists() && so.Type != gjson.Null {
			m.result = str(so.Raw)
		} else if r := ev.Get("result"); r.Type == gjson.String {
			m.result = str(r.String())
		} else {
			m.problem = "the result event has neither structured_output nor a result string"
			return ""
		}
		m.problem = ""
	}
	return ""
}

func (m *claudeMonitor) setModel(v gjson.Result) {
	if m.model == nil && v.Type == gjson.String && v.String() != "" {
		m.model = str(v.String())
	}
}

func (m *claudeMonitor) Finish() Outcome {
	o := Outcome{Result: m.result, ObservedModel: m.model, Tools: m.tools.names(), Errors: m.errors, Problem: m.problem, Usage: m.usage}
	if !m.seen {
		o.Problem = "the output has no result event"
	}
	return o
}
