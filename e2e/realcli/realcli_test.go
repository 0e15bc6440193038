// Package realcli runs spar against the real reviewer CLIs (docs/review-round.md §4):
// the pinned claude and codex CLIs that `make clis` installs, each pointed
// at a mock of its model API that these tests serve on 127.0.0.1. Every
// request the CLI sends is recorded, so a script can assert what reached
// the model (and what never did: planted instruction files, secrets).
//
// Where a CLI is not installed the tests skip with one line saying why;
// with SPAR_REAL_CLI=require (set by .ci/run) its absence fails them.
package realcli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/jaekit/spar/e2e/internal/scripttest"
	"github.com/jaekit/spar/lib/fixcheck"
	"github.com/jaekit/spar/lib/sandbox"
	"github.com/jaekit/spar/stage"
	"github.com/rogpeppe/go-internal/testscript"
)

// CLI is one pinned reviewer CLI: its npm package, version and the path of
// its executable inside the cache folder of scripts/install-clis.
type CLI struct {
	Name, Package, Version, Exe string
}

var clis = []CLI{
	{"claude", "@anthropic-ai/claude-code", "2.1.328", "node_modules/@anthropic-ai/claude-code/bin/claude.exe"},
	{"codex", "@openai/codex", "0.169.0", "node_modules/.bin/codex"},
}

// cacheDir is where scripts/install-clis puts the CLIs.
func cacheDir() string {
	if d := os.Getenv("SPAR_CLI_CACHE"); d != "" {
		return d
	}
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "spar", "cli")
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "spar", "cli")
}

// exePath is the installed executable of c, or "" with the reason it is
// not usable.
func exePath(c CLI) (string, string) {
	p := filepath.Join(cacheDir(), c.Package+"@"+c.Version, c.Exe)
	if fi, err := os.Stat(p); err != nil || fi.Mode().Perm()&0o111 == 0 {
		return "", fmt.Sprintf("%s@%s is not installed at %s (run make clis)", c.Package, c.Version, p)
	}
	return p, ""
}

var binDir string

// TestMain makes this test binary every stage (testscript.Main runs a
// stage's Main when started under its name; stage.Mains), so no test
// builds the stages; the reviewer sandbox's launcher re-execs it
// (docs/sandbox.md), so sandbox.Main comes first.
func TestMain(m *testing.M) {
	sandbox.Main()
	// A Go fix check's build cache program is spar-record, this binary.
	fixcheck.Main()
	cmds := make(map[string]func(), len(stage.Mains))
	for name, main := range stage.Mains {
		cmds[name] = func() { os.Exit(main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
	}
	testscript.Main(setup{m}, cmds)
}

// setup installs the stages and the driver in a folder of their own
// around the tests.
type setup struct{ m *testing.M }

func (s setup) Run() int {
	dir, err := os.MkdirTemp("", "spar-realcli-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	if err := install(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	binDir = dir
	return s.m.Run()
}

// install links the stages testscript.Main put on PATH into dir and copies
// the driver there.
func install(dir string) error {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		return err
	}
	for name := range stage.Mains {
		p, err := exec.LookPath(name)
		if err != nil {
			return fmt.Errorf("stage %s: not on PATH: %v", name, err)
		}
		if err := os.Symlink(p, filepath.Join(dir, name)); err != nil {
			return err
		}
	}
	drv, err := os.ReadFile(filepath.Join(root, "spar"))
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "spar"), drv, 0o755)
}

// need returns the executable of the CLI named, skipping the test (or,
// under SPAR_REAL_CLI=require, failing it) when it is not installed.
func need(t *testing.T, name string) string {
	for _, c := range clis {
		if c.Name != name {
			continue
		}
		p, why := exePath(c)
		if p != "" {
			return p
		}
		if os.Getenv("SPAR_REAL_CLI") == "require" {
			t.Fatalf("real-CLI tests: %s, and SPAR_REAL_CLI=require", why)
		}
		t.Skipf("real-CLI tests did not run: %s", why)
	}
	t.Fatalf("no CLI %q", name)
	return ""
}

// cmds are the custom script commands; each mock's file adds its own in an
// init function. testdata/README.md lists every one.
var cmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	"json": scripttest.JSON,
}

// params is the setup shared by the script groups: spar's binaries first on
// PATH, the CLI's executable in $CLI, a home folder of the script's own
// (the CLIs keep their state there), and fixed git identities.
func params(dir, cliExe string) testscript.Params {
	return testscript.Params{
		Dir:                 dir,
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			home := filepath.Join(env.WorkDir, "home")
			if err := os.MkdirAll(home, 0o755); err != nil {
				return err
			}
			env.Setenv("HOME", home)
			env.Setenv("XDG_CACHE_HOME", filepath.Join(home, ".cache"))
			env.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
			env.Setenv("PATH", binDir+string(os.PathListSeparator)+env.Getenv("PATH"))
			env.Setenv("CLI", cliExe)
			return scripttest.GitEnv(env, filepath.Join(home, ".gitconfig"))
		},
		Cmds: cmds,
		// [landlock]: the kernel offers Landlock, so spar's sandbox
		// confines the reviewers (docs/sandbox.md).
		Condition: func(cond string) (bool, error) {
			if cond == "landlock" {
				_, ok := sandbox.Available()
				return ok, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
	}
}

// runGroup runs the scripts of testdata/<name> against the CLI of that name.
func runGroup(t *testing.T, name string) {
	exe := need(t, name)
	dir := filepath.Join("testdata", name)
	if m, _ := filepath.Glob(filepath.Join(dir, "*.txtar")); len(m) == 0 {
		t.Skipf("no scripts in %s", dir)
	}
	testscript.Run(t, params(dir, exe))
}

func TestClaude(t *testing.T) { t.Parallel(); runGroup(t, "claude") }
func TestCodex(t *testing.T)  { t.Parallel(); runGroup(t, "codex") }
