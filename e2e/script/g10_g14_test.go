package script

// Audit of rows G10–G14 and the refusal phrases (docs/review-round.md
// "Refusal phrases") through their
// command-line consumer, spar run: monitoring of claude, codex and agy runs
// (G10, G11), the observed model in round.json and summary.md (G12), the
// refusal phrases and the fallback decision, attempts and resets (G13),
// and finding the executable (G14). Each reviewer is a small scripted CLI
// (its event stream, standard error and exit status written by the test)
// or a fake of testdata/fake, configured by its binary.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jaekit/spar/lib/shellcheck"
)

// scriptedCLI writes an executable that answers --version, reads its
// standard input, prints stream on stdout and stderr on standard error,
// and exits with code.
func (a *auditRepo) scriptedCLI(name, stream, stderr string, code int) string {
	out := a.write(filepath.Join("cli", name+".out"), stream, 0o644)
	errf := a.write(filepath.Join("cli", name+".err"), stderr, 0o644)
	return a.write(filepath.Join("cli", name), fmt.Sprintf(
		"#!/bin/sh\n[ \"$1\" = --version ] && { echo 'scripted 1.0'; exit 0; }\ncase \"$1\" in -p) ;; *) cat >/dev/null ;; esac\ncat %q\ncat %q >&2\nexit %d\n",
		out, errf, code), 0o755)
}

func jsonLine(v any) string { return auditJSON(v) + "\n" }

// claudeStream is a claude stream-json output: init (stating model unless
// it is ""), one assistant message using tools, the result event.
func claudeStream(model string, tools []string, result string) string {
	init := map[string]any{"type": "system", "subtype": "init", "tools": []string{"Read", "Grep", "Glob"}}
	msg := map[string]any{"role": "assistant"}
	if model != "" {
		init["model"], msg["model"] = model, model
	}
	var content []any
	for i, t := range tools {
		content = append(content, map[string]any{"type": "tool_use", "id": fmt.Sprint("t", i), "name": t, "input": map[string]any{}})
	}
	msg["content"] = content
	return jsonLine(init) + jsonLine(map[string]any{"type": "assistant", "message": msg}) +
		jsonLine(map[string]any{"type": "result", "subtype": "success", "is_error": false, "result": "done", "structured_output": json.RawMessage(result)})
}

// codexStream is a codex exec --json output whose items are of kinds, then
// the agent message with the result.
func codexStream(kinds []string, result string) string {
	s := jsonLine(map[string]any{"type": "thread.started", "thread_id": "t"}) + jsonLine(map[string]any{"type": "turn.started"})
	for i, k := range kinds {
		s += jsonLine(map[string]any{"type": "item.completed", "item": map[string]any{"id": fmt.Sprint("i", i), "type": k, "text": "x"}})
	}
	return s + jsonLine(map[string]any{"type": "item.completed", "item": map[string]any{"id": "last", "type": "agent_message", "text": result}}) +
		jsonLine(map[string]any{"type": "turn.completed"})
}

// agyStream is an agy stream-json output in the form of the published
// streams (testdata/fake/streams): init, each tool step as ACTIVE then DONE
// with tool_info.parameters (run_command: CommandLine; the others: an
// AbsolutePath), the result with status SUCCESS. model, when set, is a
// model string in init: no published stream states one.
func agyStream(model string, tools [][2]string, result string) string {
	init := map[string]any{"cwd": "/w"}
	if model != "" {
		init["model"] = model
	}
	s := jsonLine(map[string]any{"event": "init", "conversation_id": "c", "init": init})
	for i, t := range tools {
		params := map[string]any{"AbsolutePath": "/w/head/app/main.go"}
		if t[0] == "run_command" {
			params = map[string]any{"CommandLine": t[1]}
		}
		for _, state := range []string{"ACTIVE", "DONE"} {
			s += jsonLine(map[string]any{"event": "step_update", "step_update": map[string]any{"conversation_id": "c", "step_index": i + 1, "state": state, "step_type": "tool", "tool_name": t[0], "tool_info": map[string]any{"name": t[0], "parameters": params}}})
		}
	}
	return s + jsonLine(map[string]any{"event": "result", "result": map[string]any{"conversation_id": "c", "status": "SUCCESS", "response": result}})
}

// auditReviewerTOML is one [[reviewers]] entry.
func auditReviewerTOML(name, preset, binary string, extra ...string) string {
	s := fmt.Sprintf("[[reviewers]]\nname = %q\npreset = %q\n", name, preset)
	if binary != "" {
		s += fmt.Sprintf("binary = %q\n", binary)
	}
	for _, e := range extra {
		s += e + "\n"
	}
	return s + "\n"
}

// auditRun runs one spar run with the user configuration toml and returns
// round.json's reviewers and the round folder.
func (a *auditRepo) auditRun(name, toml string) (map[string]roundReviewer, string) {
	a.t.Helper()
	cfg := a.write(name+".toml", toml, 0o644)
	out := filepath.Join(a.root, "reviews", name, "code-1")
	b := a.with(a.t, "SPAR_CONFIG="+cfg)
	b.mustSpar("run", "--stage", "code", "--base", a.base, "--head", a.head, "--out", out)
	return roundReviewers(a.t, out), out
}

func auditBaseRepo(t *testing.T) *auditRepo {
	return newAuditRepo(t,
		map[string]string{"app/main.go": "package app\n\nfunc Ratio(a, b int) int { return 0 }\n"},
		map[string]string{"app/main.go": "package app\n\nfunc Ratio(a, b int) int { return a / b }\n"})
}

func TestG10_ToolsAndItemKinds_SparRun(t *testing.T) {
	t.Parallel()
	a := auditBaseRepo(t)
	res := auditResultWith(a.head7, []map[string]any{auditFindingMap()})
	cases := []struct {
		name, preset, stream, status, reason string
	}{
		// Accepted: the per-preset lists.
		{"claude-read-grep-glob", "claude", claudeStream("m", []string{"Read", "Grep", "Glob"}, res), "completed", ""},
		{"claude-structured-output", "claude", claudeStream("m", []string{"Read", "StructuredOutput"}, res), "completed", ""},
		{"codex-kinds", "codex", codexStream([]string{"reasoning", "command_execution", "todo_list", "error", "agent_message"}, res), "completed", ""},
		{"agy-read-tools", "agy", agyStream("m", [][2]string{{"view_file"}, {"list_dir"}, {"grep_search"}, {"find_by_name"}, {"read_file"}, {"run_command", "ls -la head"}}, res), "completed", ""},
		// Outside: tool_violation, the result not used.
		{"claude-bash", "claude", claudeStream("m", []string{"Read", "Bash"}, res), "tool_violation", `claude used the tool "Bash", not one of Read, Grep, Glob or StructuredOutput (G10)`},
		{"claude-write", "claude", claudeStream("m", []string{"Write"}, res), "tool_violation", `claude used the tool "Write", not one of Read, Grep, Glob or StructuredOutput (G10)`},
		{"claude-case", "claude", claudeStream("m", []string{"read"}, res), "tool_violation", `claude used the tool "read", not one of Read, Grep, Glob or StructuredOutput (G10)`},
		{"codex-file-change", "codex", codexStream([]string{"file_change"}, res), "tool_violation", `codex produced an item of kind "file_change", not one of agent_message, reasoning, command_execution, todo_list or error (G10)`},
		{"codex-collab", "codex", codexStream([]string{"collab_tool_call"}, res), "tool_violation", `codex produced an item of kind "collab_tool_call", not one of agent_message, reasoning, command_execution, todo_list or error (G10)`},
		{"codex-web-search", "codex", codexStream([]string{"web_search"}, res), "tool_violation", `codex produced an item of kind "web_search", not one of agent_message, reasoning, command_execution, todo_list or error (G10)`},
		{"agy-edit", "agy", agyStream("m", [][2]string{{"view_file"}, {"replace_file_content"}}, res), "tool_violation", `agy used the tool "replace_file_content", not one of view_file, list_dir, grep_search, find_by_name, read_file, or run_command with a line that passes G11 (G10)`},
	}
	var toml strings.Builder
	for _, c := range cases {
		toml.WriteString(auditReviewerTOML(c.name, c.preset, a.scriptedCLI(c.name, c.stream, "", 0)))
	}
	got, out := a.auditRun("g10", toml.String())
	findings := roundFindings(t, out)
	for _, c := range cases {
		r := got[c.name]
		if r.Status != c.status || r.Reason != c.reason {
			t.Errorf("G10 %s: status %s reason %q; want %s %q", c.name, r.Status, r.Reason, c.status, c.reason)
		}
		n := 0
		for _, f := range findings {
			if f.Reviewer == c.name {
				n++
			}
		}
		if want := map[bool]int{true: 1, false: 0}[c.status == "completed"]; n != want {
			t.Errorf("G10 %s: %d findings recorded, want %d (a violation's result is not used)", c.name, n, want)
		}
	}
}

func TestG11_AgyShellLines_SparRun(t *testing.T) {
	t.Parallel()
	var forms struct {
		Forms []struct {
			Section  string `json:"section"`
			Line     string `json:"line"`
			Accepted bool   `json:"accepted"`
			Problem  string `json:"problem"`
		} `json:"forms"`
	}
	loadInputForms(t, "agy_commands", &forms)
	a := auditBaseRepo(t)
	res := auditResultWith(a.head7, nil)
	var toml strings.Builder
	for i, f := range forms.Forms {
		name := fmt.Sprintf("agy%d", i)
		stream := agyStream("m", [][2]string{{"view_file"}, {"run_command", f.Line}}, res)
		toml.WriteString(auditReviewerTOML(name, "agy", a.scriptedCLI(name, stream, "", 0)))
	}
	got, _ := a.auditRun("g11", toml.String())
	for i, f := range forms.Forms {
		r := got[fmt.Sprintf("agy%d", i)]
		if f.Accepted {
			if r.Status != "completed" || r.Reason != "" {
				t.Errorf("G11 %s %q: status %s reason %q; want completed", f.Section, f.Line, r.Status, r.Reason)
			}
			continue
		}
		if want := shellcheck.Reason(f.Line, f.Problem); r.Status != "tool_violation" || r.Reason != want {
			t.Errorf("G11 %s %q: status %s reason %q; want tool_violation %q", f.Section, f.Line, r.Status, r.Reason, want)
		}
	}
}

func TestG12_ObservedModel_SparRun(t *testing.T) {
	t.Parallel()
	a := auditBaseRepo(t)
	res := auditResultWith(a.head7, nil)
	cases := []struct {
		name, preset, stream string
		model                *string
	}{
		{"claude-stated", "claude", claudeStream("claude-observed-1", nil, res), strp("claude-observed-1")},
		{"claude-unstated", "claude", claudeStream("", nil, res), nil},
		{"codex-unstated", "codex", codexStream(nil, res), nil},
		{"agy-stated", "agy", agyStream("agy-observed-2", nil, res), strp("agy-observed-2")},
		{"agy-unstated", "agy", agyStream("", nil, res), nil},
	}
	var toml strings.Builder
	for _, c := range cases {
		toml.WriteString(auditReviewerTOML(c.name, c.preset, a.scriptedCLI(c.name, c.stream, "", 0)))
	}
	got, out := a.auditRun("g12", toml.String())
	var rec struct {
		Reviewers []struct {
			Name     string                       `json:"name"`
			Attempts []map[string]json.RawMessage `json:"attempts"`
		} `json:"reviewers"`
	}
	readJSON(t, filepath.Join(out, "round.json"), &rec)
	attempts := map[string][]map[string]json.RawMessage{}
	for _, r := range rec.Reviewers {
		attempts[r.Name] = r.Attempts
	}
	summary, err := os.ReadFile(filepath.Join(out, "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		r := got[c.name]
		if r.Status != "completed" {
			t.Fatalf("G12 %s: %s %s", c.name, r.Status, r.Reason)
		}
		if fmt.Sprint(derefOr(r.ObservedModel, "<null>")) != fmt.Sprint(derefOr(c.model, "<null>")) {
			t.Errorf("G12 %s: round.json observed_model %s, want %s", c.name, derefOr(r.ObservedModel, "null"), derefOr(c.model, "null"))
		}
		if len(attempts[c.name]) != 1 {
			t.Fatalf("G12 %s: %d attempts", c.name, len(attempts[c.name]))
		}
		at, has := attempts[c.name][0]["observed_model"]
		switch {
		case c.model == nil && has:
			t.Errorf("G12 %s: the attempt has observed_model %s; an unknown model is absent from attempts", c.name, at)
		case c.model != nil && string(at) != fmt.Sprintf("%q", *c.model):
			t.Errorf("G12 %s: the attempt's observed_model %s, want %q", c.name, at, *c.model)
		}
		want := "; observed: " + derefOr(c.model, "unknown") + "\n"
		sec := summarySection(string(summary), c.name)
		if !strings.Contains(sec, want) {
			t.Errorf("G12 %s: summary.md section lacks %q:\n%s", c.name, want, sec)
		}
	}
}

func strp(s string) *string { return &s }

func derefOr(p *string, def string) string {
	if p == nil {
		return def
	}
	return *p
}

// summarySection is the part of summary.md about reviewer name: from its
// heading line to the next heading.
func summarySection(summary, name string) string {
	lines := strings.Split(summary, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "#") && strings.Contains(l, " "+name) && (strings.HasSuffix(l, " "+name) || strings.Contains(l, " "+name+" ")) {
			end := len(lines)
			for j := i + 1; j < len(lines); j++ {
				if strings.HasPrefix(lines[j], "#") {
					end = j
					break
				}
			}
			return strings.Join(lines[i:end], "\n") + "\n"
		}
	}
	return ""
}

func TestG13_RefusalPhrases_SparRun(t *testing.T) {
	t.Parallel()
	var forms struct {
		Forms []struct {
			Text   string  `json:"text"`
			Kind   *string `json:"kind"`
			Phrase *string `json:"phrase"`
			Resets *string `json:"resets"`
		} `json:"forms"`
	}
	loadInputForms(t, "refusals", &forms)
	a := auditBaseRepo(t)
	// Every text on a claude reviewer's standard error (exit 1), with a
	// fallback model: a usage or rate limit runs once more with it (and is
	// refused again), an authentication refusal does not, and any other
	// message is no refusal: failed by its exit status, no fallback.
	var toml strings.Builder
	for i, f := range forms.Forms {
		name := fmt.Sprintf("r%d", i)
		toml.WriteString(auditReviewerTOML(name, "claude", a.scriptedCLI(name, "", f.Text+"\n", 1), `model = "primary"`, `fallback_model = "spare"`))
	}
	// The same text in the output's error messages (claude's result event).
	for i, f := range forms.Forms {
		name := fmt.Sprintf("o%d", i)
		stream := jsonLine(map[string]any{"type": "system", "subtype": "init", "model": "primary"}) +
			jsonLine(map[string]any{"type": "result", "subtype": "error_during_execution", "is_error": true, "result": f.Text})
		toml.WriteString(auditReviewerTOML(name, "claude", a.scriptedCLI(name, stream, "", 1), `model = "primary"`, `fallback_model = "spare"`))
	}
	_, out := a.auditRun("g13", toml.String())
	var rec struct {
		Reviewers []struct {
			Name     string  `json:"name"`
			Status   string  `json:"status"`
			Reason   string  `json:"reason"`
			Resets   *string `json:"resets"`
			Attempts []struct {
				Model  *string `json:"model"`
				Status string  `json:"status"`
				Resets *string `json:"resets"`
			} `json:"attempts"`
		} `json:"reviewers"`
	}
	readJSON(t, filepath.Join(out, "round.json"), &rec)
	summary, err := os.ReadFile(filepath.Join(out, "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]int{}
	for i, r := range rec.Reviewers {
		byName[r.Name] = i
	}
	for i, f := range forms.Forms {
		for _, where := range []string{"r", "o"} {
			name := fmt.Sprintf("%s%d", where, i)
			r := rec.Reviewers[byName[name]]
			kind := derefOr(f.Kind, "")
			wantStatus, wantPrefix, wantAttempts := "failed", "", 1
			switch kind {
			case "quota_or_rate_limit":
				wantStatus, wantPrefix, wantAttempts = "unavailable", "quota or rate limit: ", 2
			case "authentication":
				wantStatus, wantPrefix = "unavailable", "authentication: "
			}
			what := fmt.Sprintf("G13 %q (%s)", f.Text, map[string]string{"r": "stderr", "o": "output error"}[where])
			if r.Status != wantStatus || !strings.HasPrefix(r.Reason, wantPrefix) {
				t.Errorf("%s: status %s reason %q; want %s %q…", what, r.Status, r.Reason, wantStatus, wantPrefix)
			}
			if len(r.Attempts) != wantAttempts {
				t.Errorf("%s: %d attempts, want %d", what, len(r.Attempts), wantAttempts)
			} else if wantAttempts == 2 && derefOr(r.Attempts[1].Model, "") != "spare" {
				t.Errorf("%s: the second attempt's model %v, want the fallback spare", what, r.Attempts[1].Model)
			}
			if derefOr(r.Resets, "<null>") != derefOr(f.Resets, "<null>") {
				t.Errorf("%s: resets %q, want %q", what, derefOr(r.Resets, "<null>"), derefOr(f.Resets, "<null>"))
			}
			if len(r.Attempts) > 0 && derefOr(r.Attempts[0].Resets, "<null>") != derefOr(f.Resets, "<null>") {
				t.Errorf("%s: the attempt's resets %q, want %q", what, derefOr(r.Attempts[0].Resets, "<null>"), derefOr(f.Resets, "<null>"))
			}
			sec := summarySection(string(summary), name)
			if f.Resets != nil && !strings.Contains(sec, "- resets: "+*f.Resets+"\n") {
				t.Errorf("%s: summary.md does not show the resets:\n%s", what, sec)
			}
			if wantAttempts == 2 && !strings.Contains(sec, "- attempts: 2\n") {
				t.Errorf("%s: summary.md does not show 2 attempts:\n%s", what, sec)
			}
		}
	}
}

// TestG13_NotRefusals_SparRun: only stderr and the output's error messages
// are looked at, and only for a run without a result: a phrase elsewhere is
// no refusal, no fallback model runs, and the run is recorded by its exit
// status.
func TestG13_NotRefusals_SparRun(t *testing.T) {
	t.Parallel()
	a := auditBaseRepo(t)
	res := auditResultWith(a.head7, nil)
	fb := []string{`model = "primary"`, `fallback_model = "spare"`}
	assistantText := func(text string) string {
		return jsonLine(map[string]any{"type": "assistant", "message": map[string]any{"role": "assistant", "model": "primary",
			"content": []any{map[string]any{"type": "text", "text": text}}}})
	}
	cases := []struct {
		name, stream, stderr string
		code                 int
		status, reason       string
	}{
		{"completed-with-phrase-on-stderr", claudeStream("primary", nil, res), "warning: rate limit almost reached\n", 0, "completed", ""},
		{"phrase-on-stdout-not-an-event", "quota exceeded\n", "", 1, "failed", "exited with status 1: the output has no result event"},
		{"phrase-in-a-message-not-an-error", assistantText("You've hit your limit, I think"), "", 1, "failed", "exited with status 1: the output has no result event"},
		{"other-message", "", "Error: connection reset by peer\n", 2, "failed", "exited with status 2: Error: connection reset by peer"},
	}
	var toml strings.Builder
	for _, c := range cases {
		toml.WriteString(auditReviewerTOML(c.name, "claude", a.scriptedCLI(c.name, c.stream, c.stderr, c.code), fb...))
	}
	_, out := a.auditRun("g13-not", toml.String())
	var rec struct {
		Reviewers []struct {
			Name     string            `json:"name"`
			Status   string            `json:"status"`
			Reason   string            `json:"reason"`
			Attempts []json.RawMessage `json:"attempts"`
		} `json:"reviewers"`
	}
	readJSON(t, filepath.Join(out, "round.json"), &rec)
	for i, c := range cases {
		r := rec.Reviewers[i]
		if r.Name != c.name || r.Status != c.status || r.Reason != c.reason || len(r.Attempts) != 1 {
			t.Errorf("G13 %s: %s %s %q, %d attempts; want %s %q, 1 attempt (no fallback)", c.name, r.Name, r.Status, r.Reason, len(r.Attempts), c.status, c.reason)
		}
	}
}

func TestG14_Executable_SparRun(t *testing.T) {
	t.Parallel()
	a := auditBaseRepo(t)
	res := auditResultWith(a.head7, nil)
	pathDir := filepath.Join(a.root, "pathbin")
	a.scriptedCLI("ok", claudeStream("m", nil, res), "", 0)
	okCLI := filepath.Join(a.root, "cli", "ok")
	a.write("pathbin/audit-claude", "#!/bin/sh\nexec "+okCLI+" \"$@\"\n", 0o755)
	a.write("pathbin/audit-noexec", "#!/bin/sh\nexit 0\n", 0o644)
	a.write("plain", "#!/bin/sh\nexit 0\n", 0o644)
	if err := os.MkdirAll(filepath.Join(a.root, "adir"), 0o755); err != nil {
		t.Fatal(err)
	}
	a.write("cmd.sh", "#!/bin/sh\ncat "+a.write("cmd-result.json", res, 0o644)+"\n", 0o755)
	toml := auditReviewerTOML("path-ok", "claude", okCLI) +
		auditReviewerTOML("name-on-path", "claude", "audit-claude") +
		auditReviewerTOML("missing-path", "claude", "/nonexistent/claude") +
		auditReviewerTOML("folder", "claude", filepath.Join(a.root, "adir")) +
		auditReviewerTOML("no-exec", "codex", filepath.Join(a.root, "plain")) +
		auditReviewerTOML("not-on-path", "agy", "audit-nosuch") +
		auditReviewerTOML("only-noexec-on-path", "codex", "audit-noexec") +
		auditReviewerTOML("cmd-path", "", "", `preset = "command"`, fmt.Sprintf("argv = [%q]", filepath.Join(a.root, "cmd.sh"))) +
		auditReviewerTOML("cmd-missing", "", "", `preset = "command"`, `argv = ["/nonexistent/cmd"]`) +
		auditReviewerTOML("cmd-no-exec", "", "", `preset = "command"`, fmt.Sprintf("argv = [%q]", filepath.Join(a.root, "plain"))) +
		auditReviewerTOML("cmd-not-on-path", "", "", `preset = "command"`, `argv = ["audit-noexec"]`)
	// Symbolic links: to an executable file (that file), broken (does not
	// exist), to a folder (not a regular file). On PATH: a folder of that
	// name comes before the executable file, which is still found.
	for _, l := range [][2]string{{okCLI, "link-ok"}, {filepath.Join(a.root, "nowhere"), "link-broken"}, {filepath.Join(a.root, "adir"), "link-dir"}} {
		if err := os.Symlink(l[0], filepath.Join(a.root, l[1])); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(a.root, "pathdir", "audit-claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	toml += auditReviewerTOML("link-ok", "claude", filepath.Join(a.root, "link-ok")) +
		auditReviewerTOML("link-broken", "claude", filepath.Join(a.root, "link-broken")) +
		auditReviewerTOML("link-dir", "claude", filepath.Join(a.root, "link-dir"))
	pathDir = filepath.Join(a.root, "pathdir") + string(os.PathListSeparator) + pathDir
	// The command entries above got a preset line twice; drop the empty one.
	toml = strings.ReplaceAll(toml, "preset = \"\"\n", "")
	b := a.with(t, "PATH="+pathDir+string(os.PathListSeparator)+binDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	got, _ := b.auditRun("g14", toml)
	want := map[string][2]string{
		"path-ok":             {"completed", ""},
		"name-on-path":        {"completed", ""},
		"cmd-path":            {"completed", ""},
		"missing-path":        {"unavailable", `executable "/nonexistent/claude" does not exist`},
		"folder":              {"failed", fmt.Sprintf("executable %q is not a regular file", filepath.Join(a.root, "adir"))},
		"no-exec":             {"failed", fmt.Sprintf("executable %q has no execute permission", filepath.Join(a.root, "plain"))},
		"not-on-path":         {"unavailable", `no executable "audit-nosuch" on PATH`},
		"only-noexec-on-path": {"unavailable", `no executable "audit-noexec" on PATH`},
		"cmd-missing":         {"unavailable", `executable "/nonexistent/cmd" does not exist`},
		"cmd-no-exec":         {"failed", fmt.Sprintf("executable %q has no execute permission", filepath.Join(a.root, "plain"))},
		"cmd-not-on-path":     {"unavailable", `no executable "audit-noexec" on PATH`},
		"link-ok":             {"completed", ""},
		"link-broken":         {"unavailable", fmt.Sprintf("executable %q does not exist", filepath.Join(a.root, "link-broken"))},
		"link-dir":            {"failed", fmt.Sprintf("executable %q is not a regular file", filepath.Join(a.root, "link-dir"))},
	}
	for name, w := range want {
		r, ok := got[name]
		if !ok {
			t.Errorf("G14 %s: not in round.json", name)
			continue
		}
		if r.Status != w[0] || r.Reason != w[1] {
			t.Errorf("G14 %s: status %s reason %q; want %s %q", name, r.Status, r.Reason, w[0], w[1])
		}
	}
}
