// Package script holds spar's end-to-end tests: the testscript transcripts
// under testdata/<group>/*.txtar (TestScripts; README.md lists the custom
// script commands) and the Go tests that drive the same installed binaries
// (the g*_test.go audits of the contract rows, crash, lock and memory
// tests). TestMain installs every stage and the driver once; every test
// runs them from that folder.
package script

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/jaekit/spar/lib/fixcheck"
	"github.com/jaekit/spar/lib/proctree"
	"github.com/jaekit/spar/lib/sandbox"
	"github.com/jaekit/spar/lib/sarif/multitool"
	"github.com/jaekit/spar/lib/workspace"
	"github.com/rogpeppe/go-internal/testscript"
)

// repoRoot is the absolute path of the repository (the module root): the
// stages, the driver and the shared fixtures of testdata/ are found there.
var repoRoot string

// binDir holds spar and every spar-* stage (installStages).
var binDir string

// cacheDir is the XDG_CACHE_HOME of the tests (TestMain).
var cacheDir string

// TestMain makes this test binary every stage: testscript.Main runs a
// stage's Main when the binary is started under its name (a copy of it,
// named after each stage, is put on PATH), so no test builds the stages.
// The reviewer sandbox's launcher is this binary run again through
// /proc/self/exe (docs/sandbox.md): sandbox.Main comes first.
// fakeCodexKey and fakeClaudeKey are the fakes' credentials: spar run does
// not start a codex or claude it knows has none (preset.Login.KnownOut).
const (
	fakeCodexKey  = "sk-fake-for-the-fake-codex"
	fakeClaudeKey = "sk-fake-for-the-fake-claude"
)

func TestMain(m *testing.M) {
	sandbox.Main()
	// A Go fix check's build cache program is spar-record, this binary.
	fixcheck.Main()
	testscript.Main(setup{m}, stageCommands())
}

// setup runs the package's setup (run) around the tests.
type setup struct{ m *testing.M }

func (s setup) Run() int { return run(s.m) }

func run(m *testing.M) int {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	repoRoot = root
	// The Go-level tests of this package (audit, crash, lock) start spar
	// with this environment and fakes that read and write in their
	// temporary folder, which holds the round: they run without the
	// reviewer sandbox (docs/sandbox.md). Script groups get their own
	// environment (Params): only the sandbox group runs in it.
	os.Setenv("SPAR_SANDBOX", "off")
	// And with the fakes' credentials (Params sets them for scripts).
	os.Setenv("CODEX_API_KEY", fakeCodexKey)
	os.Setenv("ANTHROPIC_API_KEY", fakeClaudeKey)
	dir, err := os.MkdirTemp("", "spar-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	if err := installStages(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	binDir = dir
	// spar's cache folder (workspaces and the blob store, docs/review-round.md "The workspace")
	// for every spar this test binary starts, outside every test's
	// repository; the scripts get a folder of their own in it (Params).
	cache, err := os.MkdirTemp("", "spar-cache-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() {
		workspace.MakeWritable(cache)
		os.RemoveAll(cache)
	}()
	// The pinned CLIs (make clis) stay where they were installed: name
	// their folder before XDG_CACHE_HOME moves.
	if os.Getenv("SPAR_CLI_CACHE") == "" {
		os.Setenv("SPAR_CLI_CACHE", multitool.CacheDir())
	}
	os.Setenv("XDG_CACHE_HOME", cache)
	cacheDir = cache
	// A process whose parent ended (a reviewer's setsid grandchild
	// without the sandbox) comes to this test, not to init: the sleeping
	// command finds it among this run's own processes, never another's.
	if err := proctree.Subreap(); err != nil {
		fmt.Fprintln(os.Stderr, "subreaper:", err)
		return 1
	}
	return m.Run()
}
