package spar_test

// The command-line behaviour of every stage and of the driver, as testscript
// transcripts under testdata/script/<group>/*.txtar. TestMain builds the real
// binaries once; every script runs them from PATH.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/jaekit/spar/lib/sarif/multitool"
	"github.com/jaekit/spar/lib/workspace"
	"github.com/rogpeppe/go-internal/testscript"
	"github.com/tidwall/gjson"
)

var binDir string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	// The Go-level tests of this package (audit, crash, lock) start spar
	// with this environment and fakes that read and write in their
	// temporary folder, which holds the round: they run without the
	// reviewer sandbox (docs/sandbox.md). Script groups get their own
	// environment (Params): only the sandbox group runs in it.
	os.Setenv("SPAR_SANDBOX", "off")
	dir, err := os.MkdirTemp("", "spar-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	if err := Build(dir); err != nil {
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
	return m.Run()
}

// cacheDir is the XDG_CACHE_HOME of the tests (TestMain).
var cacheDir string

// Build builds every spar binary and copies the driver into dir: the same
// install `make install` does. Each stage is built on its own so that one
// stage that does not compile fails only the scripts that use it (CI still
// fails: go vet in make test compiles everything).
func Build(dir string) error {
	mains, err := filepath.Glob("spar-*")
	if err != nil {
		return err
	}
	examples, _ := filepath.Glob(filepath.Join("examples", "spar-*"))
	mains = append(mains, examples...)
	var failed []string
	for _, m := range mains {
		if fi, err := os.Stat(m); err != nil || !fi.IsDir() {
			continue
		}
		cmd := exec.Command("go", "build", "-o", filepath.Join(dir, filepath.Base(m)), "./"+filepath.ToSlash(m))
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		if err := cmd.Run(); err != nil {
			failed = append(failed, m)
		}
	}
	if len(failed) > 0 {
		fmt.Fprintf(os.Stderr, "script tests: these stages did not build: %s\n", strings.Join(failed, ", "))
	}
	drv, err := os.ReadFile("spar")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "spar"), drv, 0o755)
}

// TestScripts runs every folder under testdata/script as a subtest.
func TestScripts(t *testing.T) {
	groups, err := os.ReadDir(filepath.Join("testdata", "script"))
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range groups {
		if !g.IsDir() {
			continue
		}
		t.Run(g.Name(), func(t *testing.T) {
			t.Parallel()
			testscript.Run(t, Params(filepath.Join("testdata", "script", g.Name())))
		})
	}
}

// Params is the testscript setup shared by every script group.
func Params(dir string) testscript.Params {
	testdata, _ := filepath.Abs("testdata")
	return testscript.Params{
		Dir:                 dir,
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			env.Setenv("PATH", binDir+string(os.PathListSeparator)+env.Getenv("PATH"))
			env.Setenv("TESTDATA", testdata)
			env.Setenv("FAKEBIN", filepath.Join(testdata, "fake"))
			if filepath.Base(dir) != "sandbox" {
				// The fakes of these groups log their arguments and read
				// their results in $WORK, which holds the round: only the
				// sandbox group runs reviewers in the sandbox
				// (docs/sandbox.md), the others as before.
				env.Setenv("SPAR_SANDBOX", "off")
			}
			env.Setenv("GIT_AUTHOR_NAME", "spar test")
			env.Setenv("GIT_AUTHOR_EMAIL", "test@example.invalid")
			env.Setenv("GIT_COMMITTER_NAME", "spar test")
			env.Setenv("GIT_COMMITTER_EMAIL", "test@example.invalid")
			env.Setenv("GIT_AUTHOR_DATE", "2026-01-02T03:04:05Z")
			env.Setenv("GIT_COMMITTER_DATE", "2026-01-02T03:04:05Z")
			env.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			env.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(env.WorkDir, ".gitconfig"))
			// Outside $WORK, which scripts often make a repository.
			cache, err := os.MkdirTemp(cacheDir, "script-")
			if err != nil {
				return err
			}
			env.Setenv("XDG_CACHE_HOME", cache)
			return os.WriteFile(filepath.Join(env.WorkDir, ".gitconfig"),
				[]byte("[init]\n\tdefaultBranch = main\n[user]\n\tname = spar test\n\temail = test@example.invalid\n"), 0o644)
		},
		Cmds:      scriptCmds,
		Condition: sandboxCondition(true),
	}
}

// scriptCmds are the custom testscript commands. Other _test.go files of this
// package add theirs in an init function (one file per group).
var scriptCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	"json":   cmdJSON,
	"mkfifo": cmdMkfifo,
}

// json FILE PATH WANT: the gjson PATH of the JSON in FILE ("stdout" and
// "stderr" mean the last command's output), compacted, equals WANT. WANT is
// JSON; a bare word that is not JSON is compared as a string.
// json FILE PATH (one fewer argument) only asserts that PATH exists.
func cmdJSON(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 || len(args) > 3 {
		ts.Fatalf("usage: json FILE PATH [WANT]")
	}
	var data string
	switch args[0] {
	case "stdout":
		data = ts.ReadFile("stdout")
	case "stderr":
		data = ts.ReadFile("stderr")
	default:
		data = ts.ReadFile(args[0])
	}
	if !gjson.Valid(data) {
		ts.Fatalf("%s is not JSON", args[0])
	}
	r := gjson.Get(data, args[1])
	if len(args) == 2 {
		if r.Exists() == neg {
			ts.Fatalf("json %s %s: exists=%v", args[0], args[1], r.Exists())
		}
		return
	}
	want := args[2]
	if !json.Valid([]byte(want)) {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(want)
		want = strings.TrimSpace(b.String())
	}
	got := compact(r.Raw)
	eq := r.Exists() && got == compact(want)
	if eq == neg {
		ts.Fatalf("json %s %s:\n got: %s\nwant: %s%s", args[0], args[1], got, map[bool]string{true: "(not) ", false: ""}[neg], compact(want))
	}
}

func compact(s string) string {
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		return strings.TrimSpace(s)
	}
	return b.String()
}

func cmdMkfifo(ts *testscript.TestScript, neg bool, args []string) {
	for _, a := range args {
		if err := syscall.Mkfifo(ts.MkAbs(a), 0o644); err != nil {
			ts.Fatalf("mkfifo: %v", err)
		}
	}
}
