package preset

import (
	"bufio"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/refusal"
)

// The published agy streams (testdata/fake/README.md says where each comes
// from and what it shows).
const agyStreams = "../../testdata/fake/streams"

func streamLines(t *testing.T, name string) []string {
	t.Helper()
	f, err := os.Open(filepath.Join(agyStreams, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

// run feeds every line and keeps every signal (feed stops at the first
// violation, as the runner does).
func run(m Monitor, lines []string) (violations, retries []string, o Outcome) {
	for _, l := range lines {
		s := m.Line([]byte(l))
		if s.Violation != "" {
			violations = append(violations, s.Violation)
		}
		if s.Retry != "" {
			retries = append(retries, s.Retry)
		}
	}
	return violations, retries, m.Finish()
}

func i64(n int64) *int64 { return &n }

// The published successful run edits files on Windows (its user asked for a
// phone number to be changed): G10 and G11 stop it at its first shell line,
// a PowerShell cmdlet, and would stop it again at its edits.
func TestG10_AgyPublishedSuccessRun(t *testing.T) {
	lines := streamLines(t, "agy-success-run.ndjson")
	v, _ := feed(t, agy{}.NewMonitor(), lines...)
	if want := `agy shell line "Get-Location" breaks G11: first problem "Get-Location"`; v != want {
		t.Fatalf("first violation %q, want %q", v, want)
	}
	vs, _, o := run(agy{}.NewMonitor(), lines)
	edit := `agy used the tool "replace_file_content", not one of view_file, list_dir, grep_search, find_by_name, read_file, or run_command with a line that passes G11 (G10)`
	want := []string{
		`agy shell line "Get-Location" breaks G11: first problem "Get-Location"`,
		`agy shell line "Get-Location" breaks G11: first problem "Get-Location"`,
		`agy shell line "Get-ChildItem -Force" breaks G11: first problem "Get-ChildItem"`,
		`agy shell line "Get-ChildItem -Force" breaks G11: first problem "Get-ChildItem"`,
		edit, edit, edit, edit,
	}
	if !reflect.DeepEqual(vs, want) {
		t.Errorf("violations:\n%q\nwant\n%q", vs, want)
	}
	if w := []string{"run_command", "find_by_name", "grep_search", "view_file", "replace_file_content"}; !reflect.DeepEqual(o.Tools, w) {
		t.Errorf("tools %q, want %q", o.Tools, w)
	}
	// The result event itself is read: status SUCCESS, the response, the
	// usage it states; no model is stated anywhere (G12).
	if o.Result == nil || !strings.HasPrefix(*o.Result, "The old phone number `(555) 123-4567`") || o.Problem != "" {
		t.Errorf("result %v, problem %q", deref(o.Result), o.Problem)
	}
	if o.ObservedModel != nil || len(o.Errors) != 0 {
		t.Errorf("model %v, errors %q", deref(o.ObservedModel), o.Errors)
	}
	if w := (&envelope.Usage{InputTokens: i64(124754), OutputTokens: i64(3404), CacheReadTokens: i64(137875)}); !reflect.DeepEqual(o.Usage, w) {
		t.Errorf("usage %+v", o.Usage)
	}
}

// The same published run with its shell and edit steps left out: every
// read step of it (find_by_name, grep_search, view_file, ACTIVE and DONE)
// passes G10, and the result is taken.
func TestG10_AgyPublishedReadSteps(t *testing.T) {
	var kept []string
	for _, l := range streamLines(t, "agy-success-run.ndjson") {
		if !strings.Contains(l, `"tool_name":"run_command"`) && !strings.Contains(l, `"tool_name":"replace_file_content"`) {
			kept = append(kept, l)
		}
	}
	if len(kept) != 36 {
		t.Fatalf("%d lines kept, want 36 of 44", len(kept))
	}
	vs, _, o := run(agy{}.NewMonitor(), kept)
	if len(vs) != 0 || o.Result == nil || o.Problem != "" {
		t.Errorf("violations %q, outcome %+v", vs, o)
	}
	if w := []string{"find_by_name", "grep_search", "view_file"}; !reflect.DeepEqual(o.Tools, w) {
		t.Errorf("tools %q, want %q", o.Tools, w)
	}
}

// The published failed run: an error_message step without text, then a
// result of status ERROR whose error is a string. Not a refusal (G13).
func TestAgyPublishedErrorRun(t *testing.T) {
	vs, retries, o := run(agy{}.NewMonitor(), streamLines(t, "agy-error-run.ndjson"))
	if len(vs) != 0 || len(retries) != 0 || o.Result != nil {
		t.Fatalf("violations %q, retries %q, outcome %+v", vs, retries, o)
	}
	if want := `the result event has status "ERROR": Agent execution terminated due to error.`; o.Problem != want {
		t.Errorf("problem %q, want %q", o.Problem, want)
	}
	if !reflect.DeepEqual(o.Errors, []string{"Agent execution terminated due to error."}) || !reflect.DeepEqual(o.Tools, []string{}) {
		t.Errorf("errors %q, tools %q", o.Errors, o.Tools)
	}
	if m := refusal.Scan(o.Errors[0]); m.Refused() {
		t.Errorf("%q read as a refusal: %+v", o.Errors[0], m)
	}
	zero := &envelope.Usage{InputTokens: i64(0), OutputTokens: i64(0), CacheReadTokens: i64(0)}
	if !reflect.DeepEqual(o.Usage, zero) {
		t.Errorf("usage %+v", o.Usage)
	}
}

// G13: the quota and authentication texts agy's users and adapters have
// published, each recognized by the phrases of docs/review-round.md "Refusal
// phrases" (lib/refusal).
func TestG13_AgyPublishedRefusals(t *testing.T) {
	// The result event of google-antigravity/antigravity-cli issue #1018
	// (agy 1.2.2, run A), in testdata/fake/streams/agy-quota-result.ndjson.
	_, _, o := run(agy{}.NewMonitor(), streamLines(t, "agy-quota-result.ndjson"))
	quota := "API error (attempt 3): RESOURCE_EXHAUSTED (code 429): Individual quota reached. Please upgrade your subscription to increase your limits. Resets in 2h39m52s."
	if o.Result != nil || !reflect.DeepEqual(o.Errors, []string{quota}) {
		t.Fatalf("%+v", o)
	}
	if m := refusal.Scan(o.Errors[0]); m.Kind != refusal.QuotaOrRateLimit || m.Resets != "2h39m52s" {
		t.Errorf("quota text: %+v", m)
	}
	if o.Usage != nil {
		t.Errorf("usage %+v: the event states total_tokens only", o.Usage)
	}
	// agy's stderr when it is not signed in, as agentty's tests quote it
	// (crates/ag-agent/src/agent/cli/error.rs).
	if m := refusal.Scan("You are not logged into Antigravity."); m.Kind != refusal.Authentication {
		t.Errorf("not logged into Antigravity: %+v", m)
	}
}

// Lines quoted from the published run success-run-1123.ndjson (a read of a
// file outside the workspace, then an edit): list_dir passes G10, a
// system_message step is progress, and a PowerShell line breaks G11.
func TestG10_AgyPublishedLines1123(t *testing.T) {
	lines := []string{
		`{"event":"step_update","step_update":{"conversation_id":"00a3f467-bece-4ba9-b209-505bf4d5578e","step_index":44,"state":"DONE","step_type":"system_message","duration_seconds":0.0009999}}`,
		`{"event":"step_update","step_update":{"conversation_id":"00a3f467-bece-4ba9-b209-505bf4d5578e","step_index":46,"state":"ACTIVE","step_type":"tool","tool_name":"list_dir","tool_info":{"name":"list_dir","parameters":{"DirectoryPath":"C:\\Users\\pc\\.gemini\\antigravity-cli\\scratch"}}}}`,
		`{"event":"step_update","step_update":{"conversation_id":"00a3f467-bece-4ba9-b209-505bf4d5578e","step_index":46,"state":"DONE","step_type":"tool","tool_name":"list_dir","duration_seconds":0.0193409,"tool_info":{"name":"list_dir","parameters":{"DirectoryPath":"C:\\Users\\pc\\.gemini\\antigravity-cli\\scratch"}}}}`,
		`{"event":"step_update","step_update":{"conversation_id":"00a3f467-bece-4ba9-b209-505bf4d5578e","step_index":48,"state":"ACTIVE","step_type":"tool","tool_name":"grep_search","tool_info":{"name":"grep_search","parameters":{"Query":"\\b[Hh][Ii]\\b","SearchPath":"C:\\Users\\pc\\Desktop\\index.html"}}}}`,
	}
	vs, _, o := run(agy{}.NewMonitor(), lines)
	if len(vs) != 0 || !reflect.DeepEqual(o.Tools, []string{"list_dir", "grep_search"}) {
		t.Errorf("violations %q, tools %q", vs, o.Tools)
	}
	shell := `{"event":"step_update","step_update":{"conversation_id":"00a3f467-bece-4ba9-b209-505bf4d5578e","step_index":50,"state":"ACTIVE","step_type":"tool","tool_name":"run_command","tool_info":{"name":"run_command","parameters":{"CommandLine":"Get-Item \"C:\\Users\\pc\\Desktop\\index.html\" | Select-Object FullName, LastWriteTime, Length"}}}}`
	v, _ := feed(t, agy{}.NewMonitor(), shell)
	if want := `agy shell line "Get-Item \"C:\\Users\\pc\\Desktop\\index.html\" | Select-Object FullName, LastWriteTime, Length" breaks G11: first problem "Get-Item"`; v != want {
		t.Errorf("%q, want %q", v, want)
	}
}

func agyTool(idx int, name, params string) string {
	return `{"event":"step_update","step_update":{"step_index":` + strconv.Itoa(idx) + `,"state":"ACTIVE","step_type":"tool","tool_name":"` + name + `","tool_info":{"name":"` + name + `","parameters":` + params + `}}}`
}

// G11: run_command lines pass through lib/shellcheck; the line is
// tool_info.parameters.CommandLine.
func TestG11_AgyShellLines(t *testing.T) {
	line := func(cmd string) string { return agyTool(1, "run_command", `{"CommandLine":`+quote(cmd)+`}`) }
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
	// A run_command step must state its line before anything runs; its
	// DONE line may then omit it.
	done := `{"event":"step_update","step_update":{"step_index":1,"state":"DONE","step_type":"tool","tool_name":"run_command","tool_info":{"name":"run_command"}}}`
	if v, _ := feed(t, agy{}.NewMonitor(), line("ls head"), done); v != "" {
		t.Errorf("DONE line without parameters after a checked line: %q", v)
	}
	if v, _ := feed(t, agy{}.NewMonitor(), done); v != "agy ran run_command (step 1) without a tool_info.parameters.CommandLine string: G11 cannot check it" {
		t.Errorf("unchecked run_command: %q", v)
	}
}

func quote(s string) string {
	b := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s)
	return `"` + b + `"`
}

// G10: the read tools pass; every other tool, a tool step naming none, and
// the tool name's case are violations.
func TestG10_AgyTools(t *testing.T) {
	for _, name := range []string{"view_file", "list_dir", "grep_search", "find_by_name", "read_file"} {
		if v, o := feed(t, agy{}.NewMonitor(), agyTool(1, name, `{}`)); v != "" || !reflect.DeepEqual(o.Tools, []string{name}) {
			t.Errorf("%s: %q %q", name, v, o.Tools)
		}
	}
	for _, name := range []string{"replace_file_content", "write_to_file", "multi_replace_file_content", "sed_file", "read_url_content", "search_web", "invoke_subagent", "call_mcp_tool", "send_command_input", "finish", "View_File"} {
		v, _ := feed(t, agy{}.NewMonitor(), agyTool(1, name, `{}`))
		if want := `agy used the tool "` + name + `", not one of view_file, list_dir, grep_search, find_by_name, read_file, or run_command with a line that passes G11 (G10)`; v != want {
			t.Errorf("%s: %q", name, v)
		}
	}
	// The name may be only in tool_info.
	if v, o := feed(t, agy{}.NewMonitor(), `{"event":"step_update","step_update":{"step_type":"tool","tool_info":{"name":"view_file"}}}`); v != "" || o.Tools[0] != "view_file" {
		t.Errorf("tool_info.name: %q %q", v, o.Tools)
	}
	if v, _ := feed(t, agy{}.NewMonitor(), `{"event":"step_update","step_update":{"step_type":"TOOL"}}`); v != "agy ran a tool step that names no tool (G10)" {
		t.Errorf("nameless tool step: %q", v)
	}
}

// Tolerant of events and step types it does not know and of lines that
// are not JSON; strict about the result.
func TestAgyResult(t *testing.T) {
	cases := []struct {
		name    string
		lines   []string
		result  *string
		problem string
	}{
		{"structured output first", []string{
			`not json`, `{"event":"future"}`, `{"event":"step_update","step_update":{"step_type":"context_compaction","state":"ACTIVE"}}`,
			`{"event":"result","result":{"status":"SUCCESS","response":"text","structured_output":{"a":1}}}`,
		}, str(`{"a":1}`), ""},
		{"response string, status in any case", []string{`{"event":"result","result":{"status":"success","response":"{\"a\":2}"}}`}, str(`{"a":2}`), ""},
		{"response object", []string{`{"event":"result","result":{"status":"Success","response":{"a":3}}}`}, str(`{"a":3}`), ""},
		{"null structured output", []string{`{"event":"result","result":{"status":"SUCCESS","structured_output":null,"response":"{}"}}`}, str(`{}`), ""},
		{"empty response", []string{`{"event":"result","result":{"status":"SUCCESS","response":"  "}}`}, nil, "the result event has neither structured_output nor a response"},
		{"error without text", []string{`{"event":"result","result":{"status":"ERROR","response":"partial"}}`}, nil, `the result event has status "ERROR"`},
		{"no status", []string{`{"event":"result","result":{"response":"{}"}}`}, nil, `the result event has status ""`},
		{"no result event", []string{`{"event":"init","init":{}}`}, nil, "the output has no result event"},
		{"a later result replaces", []string{
			`{"event":"result","result":{"status":"ERROR","error":"x"}}`,
			`{"event":"result","result":{"status":"SUCCESS","response":"{}"}}`,
		}, str(`{}`), ""},
	}
	for _, c := range cases {
		_, o := feed(t, agy{}.NewMonitor(), c.lines...)
		if !reflect.DeepEqual(o.Result, c.result) || o.Problem != c.problem {
			t.Errorf("%s: result %v, problem %q", c.name, deref(o.Result), o.Problem)
		}
	}
	// G12: a model is taken where a stream states one (the published
	// streams state none).
	if _, o := feed(t, agy{}.NewMonitor(), `{"event":"init","init":{"model":"gem-x"}}`, `{"event":"result","result":{"status":"SUCCESS","response":"{}","model":"other"}}`); deref(o.ObservedModel) != "gem-x" {
		t.Errorf("model %v", deref(o.ObservedModel))
	}
}

// An error_message step with text is an error message and a retry signal:
// the runner stops the attempt at once when it holds a refusal phrase.
func TestAgyErrorSteps(t *testing.T) {
	lines := []string{
		`{"event":"step_update","step_update":{"step_index":2,"state":"DONE","step_type":"error_message"}}`,
		`{"event":"step_update","step_update":{"step_index":3,"state":"DONE","step_type":"error_message","error":"API error (attempt 1): RESOURCE_EXHAUSTED (code 429)"}}`,
	}
	_, retries, o := run(agy{}.NewMonitor(), lines)
	if want := []string{"API error (attempt 1): RESOURCE_EXHAUSTED (code 429)"}; !reflect.DeepEqual(retries, want) || !reflect.DeepEqual(o.Errors, want) {
		t.Errorf("retries %q, errors %q", retries, o.Errors)
	}
}

// stderr's AGY_ERROR line is an error message and explains a turn without
// a result; other stderr lines are not read here.
func TestAgyStderr(t *testing.T) {
	m := agy{}.NewMonitor()
	m.Line([]byte(`{"event":"result","result":{"status":"ERROR","response":"","error":"Agent execution terminated due to error."}}`))
	m.(WholeStderr).Stderr([]byte("error: Individual quota reached. Resets in 3h.\n" +
		`AGY_ERROR: {"short_error":"RESOURCE_EXHAUSTED (code 429): Individual quota reached. Resets in 3h.","status":"RESOURCE_EXHAUSTED","error_code":429,"code_kind":"http","retryable":true,"error_id":"e-1"}` + "\n"))
	o := m.Finish()
	if want := []string{"Agent execution terminated due to error.", "RESOURCE_EXHAUSTED (code 429): Individual quota reached. Resets in 3h."}; !reflect.DeepEqual(o.Errors, want) {
		t.Errorf("errors %q", o.Errors)
	}
	if want := `the result event has status "ERROR": Agent execution terminated due to error.; AGY_ERROR: RESOURCE_EXHAUSTED (code 429): Individual quota reached. Resets in 3h.`; o.Problem != want {
		t.Errorf("problem %q", o.Problem)
	}
	for in, want := range map[string]string{
		`{"status":"UNAVAILABLE","code":503}`: "UNAVAILABLE",
		`{"message":"quota","code":429}`:      "quota",
		`not json`:                            "not json",
		`{"short_error":"","error":"boom"}`:   "boom",
		`{"foo":1}`:                           `{"foo":1}`,
		`{"short_error":"a","message":"b"}`:   "a",
	} {
		if got := agyErrorMessage(in); got != want {
			t.Errorf("agyErrorMessage(%s) = %q, want %q", in, got, want)
		}
	}
	// No AGY_ERROR line, a completed turn: nothing added.
	m = agy{}.NewMonitor()
	m.Line([]byte(`{"event":"result","result":{"status":"SUCCESS","response":"{}"}}`))
	m.(WholeStderr).Stderr([]byte("[agy] print timeout after 23s with turn in progress; returning partial output\n"))
	if o := m.Finish(); o.Problem != "" || len(o.Errors) != 0 || deref(o.Result) != "{}" {
		t.Errorf("%+v", o)
	}
}

func TestAgyInvocation(t *testing.T) {
	m := "gemini-3.8-flash-high"
	c := Call{Exe: "/x", Model: &m, Input: envelope.Input{Text: "IN"}, Workspace: "/r/workspace", SchemaPath: "/r/schema.json", SchemaText: "{}", TimeoutSeconds: 1800}
	ag := agy{}.Invoke(c)
	want := []string{"/x", "-p", "IN", "--output-format", "stream-json", "--json-schema", "/r/schema.json", "--add-dir", "/r/workspace", "--print-timeout", "1800s", "--model", "gemini-3.8-flash-high"}
	if !reflect.DeepEqual(ag.Args, want) || ag.Stdin != nil {
		t.Errorf("agy: %q", ag.Args)
	}
	c.Model, c.TimeoutSeconds = nil, 0
	if a := strings.Join(agy{}.Invoke(c).Args, " "); a != "/x -p IN --output-format stream-json --json-schema /r/schema.json --add-dir /r/workspace" {
		t.Errorf("no model, no limit: %s", a)
	}
	c.TimeoutSeconds = 1 << 62
	if a := (agy{}).Invoke(c).Args; a[len(a)-1] != "9223372036s" {
		t.Errorf("a limit past a Go duration: %q", a)
	}
	var mon Monitor = agy{}.NewMonitor()
	if _, ok := mon.(WholeStderr); !ok {
		t.Error("the agy monitor does not read stderr")
	}
}
