package transcript

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/jaekit/spar/lib/envelope"
)

type env struct{ dir, ws, prompt string }

func setup(t *testing.T) env {
	t.Helper()
	dir := t.TempDir()
	ws := filepath.Join(dir, "round", "workspace")
	prompt := filepath.Join(dir, "round", "native", "prompt.md")
	for _, d := range []string{filepath.Join(ws, "head"), filepath.Dir(prompt)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(prompt, []byte("p"), 0o644)
	os.WriteFile(filepath.Join(ws, "head", "a.go"), []byte("a"), 0o644)
	return env{dir, ws, prompt}
}

func (e env) read(t *testing.T, lines ...string) (*Transcript, error) {
	t.Helper()
	p := filepath.Join(e.dir, "t.jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return Read(p, e.ws, e.prompt)
}

func tool(cwd, name, input string) string {
	c := ""
	if cwd != "" {
		c = `"cwd":"` + cwd + `",`
	}
	return `{"type":"assistant",` + c + `"message":{"id":"t` + name + `","role":"assistant","content":[{"type":"tool_use","name":"` + name + `","input":` + input + `}]}}`
}

func final(id, model, text string) string {
	return `{"type":"assistant","message":{"id":"` + id + `","role":"assistant","model":"` + model + `","content":[{"type":"text","text":"` + text + `"}]}}`
}

func TestG15_CleanTranscript(t *testing.T) {
	e := setup(t)
	tr, err := e.read(t,
		`{"type":"user","message":{"role":"user","content":"go"}}`,
		tool(e.ws, "Read", `{"file_path":"`+e.prompt+`"}`),
		tool(e.ws, "Read", `{"file_path":"head/a.go"}`),
		tool(e.ws, "Grep", `{"pattern":"x"}`),
		tool(e.ws, "Glob", `{"pattern":"*.go","path":"`+e.ws+`/head"}`),
		final("m1", "claude-x", "part one"),
		final("m1", "claude-x", "part two"),
	)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Warnings) != 0 {
		t.Fatalf("warnings %v", tr.Warnings)
	}
	if !tr.HasFinal || tr.Final != "part one\npart two" || tr.Model == nil || *tr.Model != "claude-x" {
		t.Fatalf("%+v", tr)
	}
}

func TestG15_Warnings(t *testing.T) {
	e := setup(t)
	tr, err := e.read(t,
		`{"type":"system","subtype":"hook","content":"/secret/path"}`,
		`{"type":"user","isMeta":true,"message":{"role":"user","content":"<system-reminder>x</system-reminder>"}}`,
		tool(e.ws, "Read", `{"file_path":"/etc/passwd"}`),
		tool(e.ws, "Read", `{"file_path":"../../other/x"}`),
		tool("", "Grep", `{"pattern":"x","path":"head"}`),
		tool("", "Glob", `{"pattern":"x"}`),
		tool(e.ws, "Bash", `{"command":"cat /etc/passwd"}`),
		tool(e.ws, "mcp__srv__fetch", `{"url":"http://x"}`),
		final("m9", "", "done"),
	)
	if err != nil {
		t.Fatal(err)
	}
	want := []envelope.Warning{
		{Kind: KindHostContext},
		{Kind: KindOutsideWorkspace, Tool: "Read"},
		{Kind: KindOutsideWorkspace, Tool: "Grep"},
		{Kind: KindOutsideWorkspace, Tool: "Glob"},
		{Kind: KindToolNotAllowed, Tool: "Bash"},
		{Kind: KindHostTool, Tool: "mcp__srv__fetch"},
		{Kind: KindPromptNotRead},
	}
	if !reflect.DeepEqual(tr.Warnings, want) {
		t.Fatalf("warnings\n got %v\nwant %v", tr.Warnings, want)
	}
	// G12: the final message states no model: unknown.
	if tr.Model != nil {
		t.Fatalf("model %v", *tr.Model)
	}
	// A warning never keeps a path or content.
	for _, w := range tr.Warnings {
		if strings.Contains(w.Kind+w.Tool, "/") {
			t.Fatalf("warning keeps a path: %v", w)
		}
	}
}

func TestG15_SymlinkOutOfWorkspace(t *testing.T) {
	e := setup(t)
	outside := filepath.Join(e.dir, "secret")
	os.WriteFile(outside, []byte("s"), 0o644)
	if err := os.Symlink(outside, filepath.Join(e.ws, "head", "link")); err != nil {
		t.Fatal(err)
	}
	tr, err := e.read(t,
		tool(e.ws, "Read", `{"file_path":"`+e.prompt+`"}`),
		tool(e.ws, "Read", `{"file_path":"head/link"}`),
		final("m", "x", "r"))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(tr.Warnings, []envelope.Warning{{Kind: KindOutsideWorkspace, Tool: "Read"}}) {
		t.Fatalf("%v", tr.Warnings)
	}
}

func TestG15_Unreadable(t *testing.T) {
	e := setup(t)
	for name, lines := range map[string][]string{
		"not JSON":    {`{"type":"user"}`, `nope`},
		"array line":  {`[1,2]`},
		"null line":   {`null`},
		"bad message": {`{"type":"assistant","message":"x"}`},
	} {
		if _, err := e.read(t, lines...); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := Read(filepath.Join(e.dir, "missing.jsonl"), e.ws, e.prompt); err == nil {
		t.Error("missing file: no error")
	}
	tr, err := e.read(t, `{"type":"user","message":{"role":"user","content":"x"}}`)
	if err != nil || tr.HasFinal {
		t.Fatalf("no final message: %+v %v", tr, err)
	}
}

// G15 on a real transcript: the one Claude Code 2.1.328 wrote for a subagent
// that a host session started with its Agent tool (recorded against the mock
// of e2e/realcli by scripts/record-fakes; the script's folder is @WORK@). It
// read prompt.md, packet.md and a workspace file by absolute path and
// answered; the CLI's own attachments (environment, date, model, tool and
// skill lists, git status) are no warning.
func TestG15_RealSubagentTranscript(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "claude-2.1.328-subagent.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	round := filepath.Join(work, "repo", "reviews", "code-1")
	p := filepath.Join(work, "t.jsonl")
	if err := os.WriteFile(p, []byte(strings.ReplaceAll(string(raw), "@WORK@", work)), 0o644); err != nil {
		t.Fatal(err)
	}
	read := func(asked ...string) *Transcript {
		tr, err := Read(p, filepath.Join(round, "workspace"), filepath.Join(round, "native", "prompt.md"), asked...)
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	tr := read(filepath.Join(round, "packet.md"), filepath.Join(round, "schema.json"))
	if len(tr.Warnings) != 0 {
		t.Errorf("warnings %v", tr.Warnings)
	}
	if !tr.HasFinal || !strings.HasPrefix(tr.Final, `{"angles_checked"`) || !strings.Contains(tr.Final, `"reviewed_head"`) {
		t.Errorf("final %q", tr.Final)
	}
	if tr.Model == nil || *tr.Model != "claude-sonnet-5-5-20261101" {
		t.Errorf("model %v", tr.Model)
	}
	// packet.md is outside the workspace: only prompt.md's asking makes
	// reading it no warning.
	if w := read().Warnings; !reflect.DeepEqual(w, []envelope.Warning{{Kind: KindOutsideWorkspace, Tool: "Read"}}) {
		t.Errorf("without the asked files: %v", w)
	}
	// A host that loads a CLAUDE.md adds an instructions attachment.
	withCtx := strings.Replace(string(raw), `"type":"date"`, `"type":"instructions"`, 1)
	if err := os.WriteFile(p, []byte(strings.ReplaceAll(withCtx, "@WORK@", work)), 0o644); err != nil {
		t.Fatal(err)
	}
	if w := read(filepath.Join(round, "packet.md")).Warnings; !reflect.DeepEqual(w, []envelope.Warning{{Kind: KindHostContext}}) {
		t.Errorf("instructions attachment: %v", w)
	}
}
