package preset

import (
	"fmt"
	"slices"
	"strings"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/spend"
	"github.com/tidwall/gjson"
)

// codex: `codex exec --json … -`, input on stdin (docs/review-round.md §4). The stream
// is one JSON object per line: thread.started, turn.started, item.started /
// item.updated / item.completed (item.type is the item kind), turn.completed
// (with the turn's usage) or turn.failed, and error events. The result is
// the last agent_message of a turn that completed. codex's stream does not
// state the model: observed_model stays null unless an event carries a
// "model" string.
//
// What codex-cli 0.169.0 does, measured against a mock of the Responses API
// (e2e/realcli/testdata/codex, docs/review-round.md "codex"):
//   - an "error" item is a warning of the CLI ("Model metadata for `m` not
//     found…", "Falling back from WebSockets to HTTPS transport…"): a
//     warning, not a tool;
//   - an error event "Reconnecting... N/5 (<cause>)" is a retry of a
//     refused or broken request: the retry signal, so that a 429 or 401
//     ends the attempt at once;
//   - turn.failed's error.message is why the turn failed; stderr's last
//     line is only incidental logging (a PATH-alias warning, a tool
//     router's ERROR line).
type codex struct{}

// codexKinds are the item kinds a codex reviewer may produce (G10). Its
// command items run under spar's Landlock sandbox (or codex's own
// read-only sandbox where that does not apply: codexSandbox); "error"
// items are the CLI's warnings, not tools.
var codexKinds = []string{"agent_message", "reasoning", "command_execution", "todo_list", "error"}

// codexFlags keep a codex reviewer to the workspace and to the model
// (docs/review-round.md §4, each verified against 0.169.0 by e2e/realcli):
//
//	--ephemeral                            no session file in $CODEX_HOME/sessions
//	-c project_root_markers=[]             the workspace is the project root: the
//	                                       repository's AGENTS.md and .codex/
//	                                       (config, developer_instructions, MCP
//	                                       servers) above it are not loaded
//	-c web_search="disabled"               no web_search tool offered
//	--disable multi_agent                  no sub-agent tools (multi_agent_v1)
//	--disable goals                        no get_goal/create_goal/update_goal tools
//	--disable unbounded_connection_retries a provider that cannot be reached is
//	                                       retried five times, not until the time limit
var codexFlags = []string{
	"--ephemeral",
	"-c", "project_root_markers=[]",
	"-c", `web_search="disabled"`,
	"--disable", "multi_agent",
	"--disable", "goals",
	"--disable", "unbounded_connection_retries",
}

func (codex) Name() string          { return envelope.PresetCodex }
func (codex) Isolation() string     { return "verified" }
func (codex) VersionArgs() []string { return []string{"--version"} }

// codexSandbox is the --sandbox codex runs the model's commands in
// (docs/sandbox.md, codex): under spar's Landlock sandbox (c.Confined)
// danger-full-access, since codex's own sandbox, bubblewrap, cannot start
// under Landlock (it changes mounts: "bwrap: Failed to make / slave") and
// its read-only mode lets a command read any file anyway; Landlock then
// confines the commands to the workspace, the system and codex's state
// folders. Where spar's sandbox does not apply (SPAR_SANDBOX=off, no
// Landlock, not Linux) read-only: codex's own sandbox, better than none.
func codexSandbox(c Call) string {
	if c.Confined {
		return "danger-full-access"
	}
	return "read-only"
}

func (codex) Invoke(c Call) Invocation {
	args := []string{c.Exe, "exec", "--json", "--output-schema", c.SchemaPath,
		"--sandbox", codexSandbox(c), "--skip-git-repo-check", "-C", c.Workspace}
	args = append(args, codexFlags...)
	if set(c.Model) {
		args = append(args, "-m", *c.Model)
	}
	if set(c.Effort) {
		args = append(args, "-c", "model_reasoning_effort="+*c.Effort)
	}
	args = append(args, "-")
	in := c.Input.Text
	return Invocation{Args: args, Stdin: &in, Confined: c.Confined}
}

func (codex) NewMonitor() Monitor { return &codexMonitor{} }

type codexMonitor struct {
	model     *string
	tools     tools
	errors    []string
	warned    bool
	last      *string
	completed bool
	failed    string
	lastError string // the last error event's message
	usage     *envelope.Usage
	calls     map[string]bool // command items counted for progress, by id
	priceAs   string          // the attempt's model: codex's stream names none
	turns     int
	meter     meter
}

// PriceAs is the model codex's tokens are priced at (Pricer): the one the
// attempt asked for, since the stream does not state one.
func (m *codexMonitor) PriceAs(model *string) {
	if model != nil {
		m.priceAs = *model
	}
}

func (m *codexMonitor) Line(line []byte) Signal {
	if !gjson.ValidBytes(line) {
		return Signal{}
	}
	ev := gjson.ParseBytes(line)
	if v := ev.Get("model"); m.model == nil && v.Type == gjson.String && v.String() != "" {
		m.model = str(v.String())
	}
	switch ev.Get("type").String() {
	case "item.started", "item.updated", "item.completed":
		kind := ev.Get("item.type").String()
		if kind == "error" {
			// The CLI's own warning, not a tool (docs/review-round.md §4).
			m.warned = true
			if ev.Get("type").String() == "item.completed" {
				m.errors = append(m.errors, ev.Get("item.message").String())
			}
			return Signal{}
		}
		m.tools.add(kind)
		if !slices.Contains(codexKinds, kind) {
			return Signal{Violation: fmt.Sprintf("codex produced an item of kind %q, not one of %s (G10)", kind, oneOf(codexKinds))}
		}
		if ev.Get("type").String() == "item.completed" && kind == "agent_message" {
			m.last = str(ev.Get("item.text").String())
		}
		if kind == "command_execution" {
			// One call per item: counted when it starts, or when it
			// completes without a started event.
			id := ev.Get("item.id").String()
			if m.calls == nil {
				m.calls = map[string]bool{}
			}
			if t := ev.Get("type").String(); t != "item.updated" && (id == "" || !m.calls[id]) {
				m.calls[id] = id != ""
				return Signal{Calls: 1, Last: callLine("command", ev.Get("item.command").String())}
			}
		}
	case "turn.completed":
		m.completed = true
		m.usage = codexUsage(ev.Get("usage"))
		// codex states its tokens only here, at the turn's end
		// (docs/review-round.md "Spend and budgets").
		if u := ev.Get("usage"); u.IsObject() {
			in, cached := u.Get("input_tokens").Int(), u.Get("cached_input_tokens").Int()
			if cached > in {
				cached = in
			}
			m.turns++
			model := m.priceAs
			if v := ev.Get("model"); v.Type == gjson.String && v.String() != "" {
				model = v.String()
			}
			sp := m.meter.message(fmt.Sprintf("turn %d", m.turns), model,
				spend.Tokens{Input: in - cached, CacheRead: cached, Output: u.Get("output_tokens").Int()})
			sp.End = true
			return Signal{Spend: sp}
		}
	case "turn.failed":
		msg := ev.Get("error.message").String()
		m.errors = append(m.errors, msg)
		m.failed = msg
	case "error":
		msg := ev.Get("message").String()
		m.errors = append(m.errors, msg)
		m.lastError = msg
		// "Reconnecting... 2/5 (unexpected status 401 Unauthorized: …)",
		// "Reconnecting... waiting for network (…)": codex tries a
		// refused request again; the runner ends the attempt when the
		// message is a refusal (docs/review-round.md "Refusal phrases").
		if strings.HasPrefix(msg, "Reconnecting") {
			return Signal{Retry: msg}
		}
	}
	return Signal{}
}

// codexUsage is turn.completed's usage: input_tokens counts the cached
// input too, so the input recorded is the part not read from the cache
// (as claude states it), cached_input_tokens the cache reads and
// cache_write_input_tokens the cache writes; output_tokens includes the
// reasoning tokens. Nil when the event has no usage.
func codexUsage(u gjson.Result) *envelope.Usage {
	if !u.IsObject() {
		return nil
	}
	num := func(k string) *int64 {
		v := u.Get(k)
		if v.Type != gjson.Number {
			return nil
		}
		n := v.Int()
		return &n
	}
	us := &envelope.Usage{InputTokens: num("input_tokens"), OutputTokens: num("output_tokens"),
		CacheReadTokens: num("cached_input_tokens"), CacheWriteTokens: num("cache_write_input_tokens")}
	if us.InputTokens != nil && us.CacheReadTokens != nil && *us.CacheReadTokens <= *us.InputTokens {
		n := *us.InputTokens - *us.CacheReadTokens
		us.InputTokens = &n
	}
	if us.InputTokens == nil && us.OutputTokens == nil && us.CacheReadTokens == nil && us.CacheWriteTokens == nil {
		return nil
	}
	return us
}

func (m *codexMonitor) Finish() Outcome {
	o := Outcome{ObservedModel: m.model, Tools: m.tools.names(), Errors: m.errors, Usage: m.usage}
	if m.warned {
		o.Warnings = []envelope.Warning{{Kind: "cli_warning", Tool: "error"}}
	}
	switch {
	case m.failed != "":
		o.Problem = "the turn failed: " + firstLine(m.failed)
		o.Failure = firstLine(m.failed)
	case !m.completed:
		o.Problem = "the output has no turn.completed event"
		if m.lastError != "" {
			o.Failure = firstLine(m.lastError)
		}
	case m.last == nil:
		o.Problem = "the turn completed without an agent_message"
	default:
		o.Result = m.last
	}
	return o
}
