package preset

import (
	"fmt"
	"strings"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/shellcheck"
	"github.com/tidwall/gjson"
)

// agy, Google's Antigravity CLI, in headless print mode (docs/review-round.md §4;
// docs/review-round.md "agy"): `agy -p <text> --output-format stream-json
// --json-schema <schema.json> --add-dir <workspace> --print-timeout <N>s
// [--model M]`, stdin /dev/null.
//
// The stream-json format, as the published streams show it (testdata/fake/
// README.md names them): one JSON object per line keyed by "event":
//
//   - `init`: conversation_id, and init.cwd, init.tools (what the build
//     offers, not what the run used), init.permission_mode. No model.
//   - `step_update`: step_update.step_index, .state (ACTIVE, DONE, ERROR),
//     .step_type (user_input, agent_response, tool, system_message,
//     error_message, and others a later agy adds). A tool step names the
//     tool in tool_name (and tool_info.name) and its arguments in
//     tool_info.parameters (view_file: AbsolutePath; list_dir:
//     DirectoryPath; grep_search: Query, SearchPath; find_by_name: Pattern,
//     SearchDirectory; run_command: CommandLine); each tool call comes twice,
//     ACTIVE then DONE or ERROR, the second with tool_info.output. An
//     error_message step stands for an error the turn continues past (agy
//     retries); the published ones carry no text.
//   - `result`: status SUCCESS or ERROR, response (the answer's text),
//     structured_output (with --json-schema), error (a string), usage
//     (input_tokens, output_tokens, thinking_tokens, cache_read_tokens,
//     total_tokens), duration_seconds, num_turns.
//
// There is no `error` event. A failed turn also prints `AGY_ERROR: {…}` on
// stderr (short_error, status, error_code, retryable, error_id) and exits 3
// (agy 1.2.6 and later); an exhausted quota may instead end with a result of
// status ERROR and exit 0 once --print-timeout expires (agy retries it in
// process until then).
type agy struct{}

// agyRead are the tools G10 allows an agy reviewer besides run_command
// (docs/review-round.md §4): the file, directory and search tools of the published
// streams, and read_file, which G10 names.
var agyRead = []string{"view_file", "list_dir", "grep_search", "find_by_name", "read_file"}

// agyShell is the shell tool; its line (tool_info.parameters.CommandLine)
// passes G11 or the run is a tool_violation.
const agyShell = "run_command"

// maxPrintTimeout is the largest --print-timeout a Go duration holds (agy
// parses it as one: "605s", "15m", "1h"), in seconds.
const maxPrintTimeout = 9223372036

func (agy) Name() string          { return envelope.PresetAgy }
func (agy) Isolation() string     { return "verified" }
func (agy) VersionArgs() []string { return []string{"--version"} }

func (agy) Invoke(c Call) Invocation {
	args := []string{c.Exe, "-p", c.Input.Text, "--output-format", "stream-json",
		"--json-schema", c.SchemaPath, "--add-dir", c.Workspace}
	// agy's own limit backs spar's up: spar's deadline started before the
	// version check, so spar stops the reviewer first (timed_out); agy's
	// would end the turn with partial output and exit 0.
	if c.TimeoutSeconds > 0 {
		args = append(args, "--print-timeout", fmt.Sprintf("%ds", min(c.TimeoutSeconds, maxPrintTimeout)))
	}
	if set(c.Model) {
		args = append(args, "--model", *c.Model)
	}
	return Invocation{Args: args}
}

func (agy) NewMonitor() Monitor { return &agyMonitor{shellChecked: map[int64]bool{}} }

type agyMonitor struct {
	model   *string
	tools   tools
	errors  []string
	result  *string
	usage   *envelope.Usage
	problem string
	seen    bool
	// agyError is the message of stderr's AGY_ERROR line, "" for none.
	agyError string
	// shellChecked holds the step indexes whose run_command line passed
	// G11: the DONE line of a step may repeat or omit the parameters.
	shellChecked map[int64]bool
	// counted holds the step indexes of the tool calls counted for
	// progress.
	counted map[int64]bool
}

// agyArg is a tool step's main argument for the progress line (the
// parameters the published streams show).
func agyArg(p gjson.Result) string {
	for _, k := range []string{"AbsolutePath", "DirectoryPath", "Query", "Pattern", "CommandLine"} {
		if v := p.Get(k); v.Type == gjson.String && v.String() != "" {
			return v.String()
		}
	}
	return ""
}

func (m *agyMonitor) Line(line []byte) Signal {
	if !gjson.ValidBytes(line) {
		return Signal{}
	}
	ev := gjson.ParseBytes(line)
	switch ev.Get("event").String() {
	case "init":
		m.noteModel(ev.Get("init.model"))
	case "step_update":
		return m.step(ev.Get("step_update"))
	case "result":
		m.finalResult(ev.Get("result"))
	}
	return Signal{}
}

// noteModel keeps the first model a stream states (G12). The published
// streams state none: observed_model stays null.
func (m *agyMonitor) noteModel(v gjson.Result) {
	if m.model == nil && v.Type == gjson.String && v.String() != "" {
		m.model = str(v.String())
	}
}

func (m *agyMonitor) step(st gjson.Result) Signal {
	m.noteModel(st.Get("model"))
	switch kind := st.Get("step_type").String(); {
	case strings.EqualFold(kind, "tool"):
		if v := m.tool(st); v != "" {
			return Signal{Violation: v}
		}
		// Each call comes twice (ACTIVE, then DONE or ERROR): counted
		// once, by its step index.
		idx := st.Get("step_index").Int()
		if m.counted[idx] {
			return Signal{}
		}
		if m.counted == nil {
			m.counted = map[int64]bool{}
		}
		m.counted[idx] = true
		name := st.Get("tool_name").String()
		if name == "" {
			name = st.Get("tool_info.name").String()
		}
		return Signal{Calls: 1, Last: callLine(name, agyArg(st.Get("tool_info.parameters")))}
	case strings.EqualFold(kind, "error_message"):
		// The turn goes on after it (agy retries): a refusal phrase in
		// its text ends the attempt at once (Signal.Retry).
		if msg := stepText(st); msg != "" {
			m.errors = append(m.errors, msg)
			return Signal{Retry: msg}
		}
	}
	return Signal{}
}

// stepText is an error step's message: the published steps carry none;
// the field names are those other adapters read.
func stepText(st gjson.Result) string {
	for _, k := range []string{"error", "message", "error_message", "text", "text_delta"} {
		if v := st.Get(k); v.Type == gjson.String && strings.TrimSpace(v.String()) != "" {
			return v.String()
		}
	}
	return ""
}

// tool checks one tool step (G10, G11) and returns the violation, "" for
// none.
func (m *agyMonitor) tool(st gjson.Result) string {
	name := st.Get("tool_name").String()
	if name == "" {
		name = st.Get("tool_info.name").String()
	}
	if name == "" {
		return "agy ran a tool step that names no tool (G10)"
	}
	m.tools.add(name)
	if name != agyShell {
		for _, r := range agyRead {
			if name == r {
				return ""
			}
		}
		return fmt.Sprintf("agy used the tool %q, not one of %s, or %s with a line that passes G11 (G10)", name, strings.Join(agyRead, ", "), agyShell)
	}
	idx := st.Get("step_index").Int()
	cmd := st.Get("tool_info.parameters.CommandLine")
	if cmd.Type != gjson.String {
		if m.shellChecked[idx] {
			return ""
		}
		return fmt.Sprintf("agy ran %s (step %d) without a tool_info.parameters.CommandLine string: G11 cannot check it", agyShell, idx)
	}
	if ok, problem := shellcheck.Check(cmd.String()); !ok {
		return shellcheck.Reason(cmd.String(), problem)
	}
	m.shellChecked[idx] = true
	return ""
}

// finalResult reads the terminal result event; a later one replaces it.
func (m *agyMonitor) finalResult(r gjson.Result) {
	m.seen = true
	m.result, m.problem = nil, ""
	m.noteModel(r.Get("model"))
	m.usage = agyUsage(r.Get("usage"))
	if st := r.Get("status").String(); !strings.EqualFold(st, "success") {
		msg := r.Get("error").String()
		if e := r.Get("error"); e.IsObject() {
			msg = e.Get("message").String()
		}
		if strings.TrimSpace(msg) != "" {
			m.errors = append(m.errors, msg)
		}
		m.problem = fmt.Sprintf("the result event has status %q", st)
		if strings.TrimSpace(msg) != "" {
			m.problem += ": " + firstLine(msg)
		}
		return
	}
	so := r.Get("structured_output")
	resp := r.Get("response")
	switch {
	case so.Exists() && so.Type != gjson.Null:
		m.result = str(so.Raw)
	case resp.Type == gjson.String && strings.TrimSpace(resp.String()) != "":
		m.result = str(resp.String())
	case resp.IsObject() || resp.IsArray():
		m.result = str(resp.Raw)
	default:
		m.problem = "the result event has neither structured_output nor a response"
	}
}

// agyUsage maps result.usage onto spar's usage (docs/review-round.md
// §7.4): input_tokens (they exclude cache reads), output_tokens (thinking
// tokens are part of them: total_tokens is input plus output),
// cache_read_tokens. agy states no cache writes and no cost.
func agyUsage(u gjson.Result) *envelope.Usage {
	if !u.IsObject() {
		return nil
	}
	var out envelope.Usage
	stated := false
	for _, f := range []struct {
		key string
		dst **int64
	}{{"input_tokens", &out.InputTokens}, {"output_tokens", &out.OutputTokens}, {"cache_read_tokens", &out.CacheReadTokens}} {
		if v := u.Get(f.key); v.Type == gjson.Number {
			n := v.Int()
			*f.dst = &n
			stated = true
		}
	}
	if !stated {
		return nil
	}
	return &out
}

// Stderr reads agy's `AGY_ERROR: {…}` line (WholeStderr): its message is
// one of the output's error messages, and it explains a turn that ended
// without a result.
func (m *agyMonitor) Stderr(b []byte) {
	for _, l := range strings.Split(string(b), "\n") {
		l = strings.TrimSpace(l)
		rest, ok := strings.CutPrefix(l, "AGY_ERROR:")
		if !ok {
			continue
		}
		if msg := agyErrorMessage(strings.TrimSpace(rest)); msg != "" {
			m.agyError = msg
			m.errors = append(m.errors, msg)
		}
	}
}

// agyErrorMessage is the text of an AGY_ERROR line's object: short_error
// (the published lines have it), else message or error, else status; a
// line that is not a JSON object is its own message.
func agyErrorMessage(rest string) string {
	if !gjson.Valid(rest) || !gjson.Parse(rest).IsObject() {
		return rest
	}
	o := gjson.Parse(rest)
	for _, k := range []string{"short_error", "message", "error"} {
		if v := o.Get(k); v.Type == gjson.String && strings.TrimSpace(v.String()) != "" {
			return v.String()
		}
	}
	if s := o.Get("status").String(); s != "" {
		return s
	}
	return rest
}

func (m *agyMonitor) Finish() Outcome {
	o := Outcome{Result: m.result, ObservedModel: m.model, Tools: m.tools.names(), Errors: m.errors, Problem: m.problem, Usage: m.usage}
	if !m.seen {
		o.Problem = "the output has no result event"
	}
	if o.Result == nil && m.agyError != "" {
		o.Problem += "; AGY_ERROR: " + firstLine(m.agyError)
	}
	return o
}
