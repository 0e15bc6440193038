package preset

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/spend"
	"github.com/tidwall/gjson"
)

// claude: `claude -p --output-format stream-json --verbose`, input on stdin
// (docs/review-round.md §4, "Presets"). The stream is one JSON object per
// line: `system` events (subtype `init` states the model the CLI asked for,
// `api_retry` a refused request it will send again), `assistant` and `user`
// messages whose content holds `tool_use` blocks, and a final `result`. With
// --json-schema the model answers by calling the CLI's own StructuredOutput
// tool, and the result event carries `structured_output`.
type claude struct{}

// claudeTools are the tools a claude reviewer may use (G10): read and
// search, and StructuredOutput, the channel --json-schema answers through
// (every real run calls it).
var claudeTools = []string{"Read", "Grep", "Glob", "StructuredOutput"}

// claudeIsolation are the flags that keep the reviewer inside its
// workspace and away from the reviewed repository's and the user's
// instruction files, settings, hooks, MCP servers and memory, each verified
// against Claude Code 2.1.328 with the mock of e2e/realcli (docs/review-round.md
// "The claude flags" tabulates what each one did). Never --allowedTools: it lets Read and
// Grep reach any path on disk.
var claudeIsolation = []string{
	// File tools confined to the working directory; user, project and
	// local settings files ignored.
	"--restricted",
	// No CLAUDE.md (the repository's, its parents', the user's, nested
	// ones), auto memory, skills, plugins, hooks or MCP servers.
	"--safe-mode",
	// No user, project or local settings: their permission rules (an
	// allow of Read(//**) would open every file), hooks and env.
	"--setting-sources", "",
	// No MCP server but --mcp-config's (none).
	"--strict-mcp-config",
	// What is not allowed is denied, never asked for.
	"--permission-mode", "dontAsk",
	// No session transcript under ~/.claude/projects.
	"--no-session-persistence",
}

func (claude) Name() string          { return envelope.PresetClaude }
func (claude) Isolation() string     { return "verified" }
func (claude) VersionArgs() []string { return []string{"--version"} }

func (claude) Invoke(c Call) Invocation {
	args := []string{c.Exe, "-p", "--output-format", "stream-json", "--verbose",
		"--json-schema", c.SchemaText, "--tools", "Read,Grep,Glob"}
	args = append(args, claudeIsolation...)
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
	answered *string // the last assistant message's model: who answered
	tools    tools
	errors   []string
	result   *string
	problem  string
	invalid  bool
	usage    *envelope.Usage
	seen     bool // a result event was seen
	meter    meter
}

// synthetic is the model the CLI names on messages it writes itself (an
// API error turned into an assistant message): nobody answered.
const synthetic = "<synthetic>"

func (m *claudeMonitor) Line(line []byte) Signal {
	if !gjson.ValidBytes(line) {
		return Signal{} // not an event (a warning line): tolerated
	}
	ev := gjson.ParseBytes(line)
	switch ev.Get("type").String() {
	case "system":
		switch ev.Get("subtype").String() {
		case "api_retry":
			// The CLI will send a refused request again (ten times, with
			// backoff: minutes). A refusal phrase here (docs/review-round.md
			// "Refusal phrases") ends the
			// attempt at once; the runner decides with lib/refusal.
			return Signal{Retry: retryMessage(ev)}
		}
	case "assistant":
		if v := ev.Get("message.model"); v.Type == gjson.String && v.String() != "" && v.String() != synthetic {
			m.answered = str(v.String())
		}
		if e := ev.Get("error"); e.Exists() {
			// An API error the CLI turns into a message (rate limit, auth).
			for _, c := range ev.Get("message.content").Array() {
				if c.Get("type").String() == "text" {
					m.errors = append(m.errors, c.Get("text").String())
				}
			}
			m.errors = append(m.errors, e.String())
		}
		var act Signal
		if u := ev.Get("message.usage"); u.IsObject() {
			act.Spend = m.meter.message(ev.Get("message.id").String(), ev.Get("message.model").String(), claudeTokens(u))
		}
		for _, c := range ev.Get("message.content").Array() {
			if c.Get("type").String() != "tool_use" {
				continue
			}
			name := c.Get("name").String()
			m.tools.add(name)
			if !slices.Contains(claudeTools, name) {
				return Signal{Violation: fmt.Sprintf("claude used the tool %q, not one of %s (G10)", name, oneOf(claudeTools))}
			}
			act.Calls++
			act.Last = callLine(name, claudeArg(c.Get("input")))
		}
		return act
	case "result":
		m.resultEvent(ev)
		if v := ev.Get("total_cost_usd"); v.Type == gjson.Number {
			// The CLI's own total: what the attempt spent, whatever
			// spar's table made of the messages. But the messages it
			// stated cost at least what spar priced them at: a total
			// below that (0, negative, or no finite number) is not
			// believed, so that a program in the claude slot cannot hide
			// its spend, or lower the round's sum and so the ceiling of
			// the other reviewers (docs/trust.md "Spend").
			floor := m.meter.total()
			if usd := v.Float(); !math.IsNaN(usd) && !math.IsInf(usd, 0) && usd >= floor.USD {
				return Signal{Spend: &Spend{USD: usd, End: true}}
			}
			floor.End = true
			return Signal{Spend: floor}
		}
	}
	return Signal{}
}

// claudeTokens are an assistant message's usage as the Messages API states
// it: input, output, cache read, and cache writes split by duration when
// cache_creation says which (else of unstated duration).
func claudeTokens(u gjson.Result) spend.Tokens {
	t := spend.Tokens{Input: u.Get("input_tokens").Int(), Output: u.Get("output_tokens").Int(),
		CacheRead: u.Get("cache_read_input_tokens").Int()}
	cw := u.Get("cache_creation_input_tokens").Int()
	if cc := u.Get("cache_creation"); cc.IsObject() {
		t.CacheWrite5m = cc.Get("ephemeral_5m_input_tokens").Int()
		t.CacheWrite1h = cc.Get("ephemeral_1h_input_tokens").Int()
		cw -= t.CacheWrite5m + t.CacheWrite1h
	}
	if cw > 0 {
		t.CacheWrite = cw
	}
	return t
}

// claudeArg is a tool_use input's main argument for the progress line: the
// file Read reads, the pattern Grep and Glob search for (and where).
func claudeArg(in gjson.Result) string {
	arg := in.Get("file_path").String()
	if p := in.Get("pattern").String(); p != "" {
		arg = p
		if dir := in.Get("path").String(); dir != "" {
			arg += " in " + dir
		}
	} else if arg == "" {
		arg = in.Get("path").String()
	}
	return arg
}

// retryMessage is an api_retry event as one line the refusal phrases of
// docs/review-round.md "Refusal phrases" can be found in: "API error (status 429): rate_limit; the CLI
// retries (attempt 1 of 10)".
func retryMessage(ev gjson.Result) string {
	status := "no status"
	if s := ev.Get("error_status"); s.Type == gjson.Number {
		status = "status " + s.String()
	}
	msg := ev.Get("error").String()
	if msg == "" {
		msg = "unknown"
	}
	return fmt.Sprintf("API error (%s): %s; the CLI retries (attempt %d of %d)",
		status, msg, ev.Get("attempt").Int(), ev.Get("max_retries").Int())
}

func (m *claudeMonitor) resultEvent(ev gjson.Result) {
	m.seen = true
	m.result = nil
	m.invalid = false
	m.usage = claudeUsage(ev)
	sub := ev.Get("subtype").String()
	if ev.Get("is_error").Bool() || sub != "success" {
		msg := ev.Get("result").String()
		var errs []string
		for _, e := range ev.Get("errors").Array() {
			errs = append(errs, e.String())
		}
		m.errors = append(m.errors, errs...)
		if msg != "" {
			m.errors = append(m.errors, msg)
		}
		if sub == "error_max_structured_output_retries" {
			// The CLI validated the answers against the schema and gave
			// up: the reviewer answered outside the format (docs/review-round.md
			// "Presets", error_max_structured_output_retries).
			m.invalid = true
			m.problem = "the CLI gave up on the answer's format (error_max_structured_output_retries)"
			if len(errs) > 0 {
				m.problem += ": " + firstLine(strings.Join(errs, "; "))
			}
			return
		}
		m.problem = fmt.Sprintf("the result event reports an error (subtype %q)", sub)
		if msg != "" {
			m.problem += ": " + firstLine(msg)
		} else if len(errs) > 0 {
			m.problem += ": " + firstLine(errs[len(errs)-1])
		}
		return
	}
	if so := ev.Get("structured_output"); so.Exists() && so.Type != gjson.Null {
		m.result = str(so.Raw)
	} else if r := ev.Get("result"); r.Type == gjson.String {
		m.result = str(r.String())
	} else {
		m.problem = "the result event has neither structured_output nor a result string"
		return
	}
	m.problem = ""
}

// claudeUsage is what the result event states of tokens and cost: `usage`
// (input, output, cache read, cache creation tokens) and `total_cost_usd`.
// nil when it states none of them.
func claudeUsage(ev gjson.Result) *envelope.Usage {
	u := &envelope.Usage{}
	stated := false
	num := func(path string) *int64 {
		v := ev.Get(path)
		if v.Type != gjson.Number {
			return nil
		}
		stated = true
		n := v.Int()
		return &n
	}
	u.InputTokens = num("usage.input_tokens")
	u.OutputTokens = num("usage.output_tokens")
	u.CacheReadTokens = num("usage.cache_read_input_tokens")
	u.CacheWriteTokens = num("usage.cache_creation_input_tokens")
	// A cost past float64 (1e999) is no figure JSON can record.
	if v := ev.Get("total_cost_usd"); v.Type == gjson.Number && !math.IsInf(v.Float(), 0) {
		stated = true
		f := v.Float()
		u.CostUSD = &f
	}
	if !stated {
		return nil
	}
	return u
}

func (m *claudeMonitor) Finish() Outcome {
	// G12: the model a model response stated (the last assistant message
	// that names one). The init event's model is what the CLI asked for,
	// not a response: a claude that never reached a model (not logged in,
	// refused) observed none.
	o := Outcome{Result: m.result, ObservedModel: m.answered, Tools: m.tools.names(), Errors: m.errors,
		Problem: m.problem, Usage: m.usage, Invalid: m.invalid}
	if !m.seen {
		o.Problem = "the output has no result event"
	}
	return o
}
