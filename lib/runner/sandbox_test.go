package runner

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/preset"
	"github.com/jaekit/spar/lib/proctree"
	"github.com/jaekit/spar/lib/sandbox"
)

// TestMain lets this test binary be the sandbox launcher (docs/sandbox.md):
// runProcess re-executes it through /proc/self/exe. It is the subreaper of
// its tree, so that a grandchild a reviewer left behind is still found
// among its own processes (running), never another run's.
func TestMain(m *testing.M) {
	sandbox.Main()
	if err := proctree.Subreap(); err != nil {
		fmt.Fprintln(os.Stderr, "subreaper:", err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// testBox is the sandbox of a command reviewer run with /bin/sh.
func testBox(t *testing.T) sandbox.Reviewer {
	return sandbox.Reviewer{Preset: "command", Exe: "/bin/sh", Workspace: t.TempDir()}
}

// docs/sandbox.md: every reviewer process runs in the sandbox; a hostile
// reviewer's writes into its round, its workspace and the home folder fail,
// and the run records what was applied.
func TestRunSandboxed(t *testing.T) {
	abi, ok := sandbox.Available()
	if !ok {
		t.Skip("no Landlock on this kernel")
	}
	round := t.TempDir()
	dir := filepath.Join(round, "cmd")
	ws := filepath.Join(round, "workspace")
	os.MkdirAll(dir, 0o755)
	os.MkdirAll(ws, 0o755)
	os.WriteFile(filepath.Join(dir, "input.md"), []byte("the input\n"), 0o644)
	os.WriteFile(filepath.Join(round, "ledger.jsonl"), []byte(""), 0o644)
	os.WriteFile(filepath.Join(round, "schema.json"), []byte("{}"), 0o644)
	script := `cat "$1"; cat "$2" >/dev/null && echo schema-read
echo x >> "$3/ledger.jsonl" 2>/dev/null && echo LEAK-ledger
echo x > "$3/workspace/f" 2>/dev/null && echo LEAK-workspace
echo x > "$HOME/spar-sandbox-test" 2>/dev/null && echo LEAK-home
echo '{"result": 1}'`
	r := Reviewer{
		Config:     envelope.Reviewer{Name: "cmd", Preset: "command", Argv: []string{"/bin/sh", "-c", script, "sh", "{prompt}", "{schema}", round}, TimeoutSeconds: 20},
		Dir:        dir,
		Workspace:  ws,
		Prompt:     filepath.Join(dir, "input.md"),
		SchemaPath: filepath.Join(round, "schema.json"),
		Input:      envelope.Input{Files: []envelope.NamedText{{Name: "input.md", Text: "the input\n"}}},
		PathEnv:    os.Getenv("PATH"),
	}
	run := Run(r, nil)
	out, _ := os.ReadFile(filepath.Join(dir, "stdout"))
	if strings.Contains(string(out), "LEAK") || !strings.Contains(string(out), "the input\nschema-read\n") {
		t.Errorf("stdout %q", out)
	}
	if b, _ := os.ReadFile(filepath.Join(round, "ledger.jsonl")); len(b) != 0 {
		t.Errorf("ledger %q", b)
	}
	home, _ := os.UserHomeDir()
	if _, err := os.Stat(filepath.Join(home, "spar-sandbox-test")); err == nil {
		os.Remove(filepath.Join(home, "spar-sandbox-test"))
		t.Errorf("the reviewer wrote into the home folder")
	}
	if want := fmt.Sprintf("landlock ABI %d; no unix sockets; pid namespace", min(abi, 11)); run.Sandbox != want {
		t.Errorf("sandbox %q, want %q", run.Sandbox, want)
	}
	// SPAR_SANDBOX=off: recorded as such.
	t.Setenv(sandbox.EnvVar, "off")
	res := runProcess(preset.Invocation{Args: []string{"/bin/true"}}, testBox(t), t.TempDir(), time.Now().Add(10*time.Second),
		&sink{limit: 100}, &sink{limit: 100}, nil, nil)
	if res.sandbox != "none: turned off by SPAR_SANDBOX=off" || res.exitCode == nil || *res.exitCode != 0 {
		t.Errorf("%+v", res)
	}
}
