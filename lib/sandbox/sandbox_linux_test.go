//go:build linux

package sandbox

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jaekit/spar/lib/proctree"
)

func TestMain(m *testing.M) {
	Main()
	if role := os.Getenv(roleVar); role != "" {
		os.Exit(helper(role))
	}
	// What a reviewer leaves behind comes to this test, not to init:
	// proctree.Mine finds it, and never another run's process.
	if err := proctree.Subreap(); err != nil {
		fmt.Fprintln(os.Stderr, "subreaper:", err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// box runs script with sh under the policy of a command reviewer whose
// workspace is ws and returns its output, exit status and the report.
func box(t *testing.T, ws, script string, inputs []string, args ...string) (string, int, Report) {
	t.Helper()
	scratch := t.TempDir()
	p := For(Reviewer{Preset: "command", Exe: "/bin/sh", Workspace: ws, Inputs: inputs, Scratch: scratch, Home: os.Getenv("HOME")})
	p.GraceMS = 500
	var out bytes.Buffer
	run, err := Start(p, append([]string{"/bin/sh", "-c", script, "sh"}, args...), func(path string, args []string) *exec.Cmd {
		return &exec.Cmd{Path: path, Args: args, Dir: ws, Stdout: &out, Stderr: &out, SysProcAttr: &syscall.SysProcAttr{Setpgid: true}}
	})
	if err != nil {
		t.Fatal(err)
	}
	err = run.Cmd.Wait()
	rep := run.Finish()
	code := run.Cmd.ProcessState.ExitCode()
	return out.String(), code, rep
}

func needLandlock(t *testing.T) {
	if _, ok := Available(); !ok {
		t.Skip("no Landlock on this kernel")
	}
}

// The rules table of docs/sandbox.md: the workspace and the inputs read,
// the scratch folder written, everything else out of reach.
func TestRules(t *testing.T) {
	needLandlock(t)
	root := t.TempDir()
	ws := filepath.Join(root, "workspace")
	os.MkdirAll(filepath.Join(ws, "head"), 0o755)
	os.WriteFile(filepath.Join(ws, "head", "a.go"), []byte("package a\n"), 0o644)
	prompt := filepath.Join(root, "r", "input.md")
	os.MkdirAll(filepath.Dir(prompt), 0o755)
	os.WriteFile(prompt, []byte("the prompt\n"), 0o644)
	secret := filepath.Join(root, "secret")
	os.WriteFile(secret, []byte("s3cret\n"), 0o600)
	ledger := filepath.Join(root, "ledger.jsonl")
	os.WriteFile(ledger, []byte("{}\n"), 0o644)

	out, code, rep := box(t, ws, `
cat head/a.go && cat "$1" && echo ok-read
echo x > "$TMPDIR/t" && cat "$TMPDIR/t" && echo ok-scratch
echo y > /dev/null && echo ok-null
cat "$2" 2>/dev/null && echo LEAK-secret
echo z >> "$3" 2>/dev/null && echo LEAK-ledger
echo w > head/a.go 2>/dev/null && echo LEAK-workspace
touch head/new 2>/dev/null && echo LEAK-create
ls "$4" >/dev/null 2>&1 && echo LEAK-list
exit 0`+"\n", []string{prompt}, prompt, secret, ledger, root)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	for _, want := range []string{"package a", "the prompt", "ok-read", "ok-scratch", "ok-null"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in %s", want, out)
		}
	}
	if strings.Contains(out, "LEAK") || strings.Contains(out, "s3cret") {
		t.Errorf("the sandbox let through: %s", out)
	}
	if b, _ := os.ReadFile(ledger); string(b) != "{}\n" {
		t.Errorf("ledger changed: %q", b)
	}
	abi, _ := Available()
	if want := fmt.Sprintf("landlock ABI %d; no unix sockets; pid namespace", min(abi, maxABI)); rep.Sandbox != want {
		t.Errorf("report %q, want %q", rep.Sandbox, want)
	}
}

// pidAlive reports whether pid still runs a while after it was killed.
func pidAlive(pid int) bool {
	for i := 0; i < 40; i++ {
		st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil || strings.Contains(string(st), ") Z ") {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
	return true
}

// Processes: a setsid grandchild dies with the launcher, SIGKILLed (spar-exec
// ended it) or on the reviewer's own exit; in the fallback (nopidns) the
// subreaper ends it when the reviewer exits. SIGTERM reaches a grandchild
// that left the group; one that ignores it is killed after the grace.
func TestTreeEnds(t *testing.T) {
	needLandlock(t)
	for _, mode := range []string{"", "nopidns"} {
		for _, c := range []struct {
			name, script string
			kill         syscall.Signal
		}{
			{"exit", `setsid sleep MARK & echo $! > "$TMPDIR/../pid"; exit 0`, 0},
			{"sigkill", `setsid sleep MARK & echo $! > "$TMPDIR/../pid"; sleep 300`, syscall.SIGKILL},
			{"sigterm", `setsid sleep MARK & echo $! > "$TMPDIR/../pid"; sleep 300`, syscall.SIGTERM},
			{"noterm", `trap '' TERM; setsid sh -c 'trap "" TERM; exec sleep MARK' & echo $! > "$TMPDIR/../pid"; sleep 300`, syscall.SIGTERM},
		} {
			if mode == "nopidns" && c.kill == syscall.SIGKILL {
				continue // the documented limit of the fallback
			}
			t.Run(mode+c.name, func(t *testing.T) {
				t.Setenv(EnvVar, mode)
				marker := proctree.Mark()
				dir := t.TempDir()
				scratch := filepath.Join(dir, "tmp")
				os.Mkdir(scratch, 0o700)
				p := For(Reviewer{Preset: "command", Exe: "/bin/sh", Workspace: dir, Scratch: scratch})
				p.Write = append(p.Write, dir) // the test's pid file
				p.GraceMS = 500
				run, err := Start(p, []string{"/bin/sh", "-c", strings.ReplaceAll(c.script, "MARK", marker)}, func(path string, args []string) *exec.Cmd {
					return &exec.Cmd{Path: path, Args: args, Dir: dir, SysProcAttr: &syscall.SysProcAttr{Setpgid: true}}
				})
				if err != nil {
					t.Fatal(err)
				}
				var pid int
				for i := 0; i < 200 && pid == 0; i++ {
					b, _ := os.ReadFile(filepath.Join(dir, "pid"))
					fmt.Sscan(string(b), &pid)
					time.Sleep(10 * time.Millisecond)
				}
				if c.kill != 0 {
					for i := 0; i < 200 && len(proctree.Mine("sleep", marker)) == 0; i++ {
						time.Sleep(10 * time.Millisecond) // setsid has not run sleep yet
					}
					if len(proctree.Mine("sleep", marker)) == 0 {
						t.Fatalf("the grandchild sleep %s does not run", marker)
					}
					syscall.Kill(-run.Cmd.Process.Pid, c.kill)
				}
				done := make(chan struct{})
				go func() { run.Cmd.Wait(); close(done) }()
				select {
				case <-done:
				case <-time.After(10 * time.Second):
					syscall.Kill(-run.Cmd.Process.Pid, syscall.SIGKILL)
					t.Fatal("the launcher did not end")
				}
				rep := run.Finish()
				if pid == 0 {
					t.Fatalf("no grandchild pid (%+v)", rep)
				}
				// In a PID namespace the pid file holds the namespace's
				// number: the grandchild is found by its command line among
				// this test's own processes (the launcher's descendants
				// while it runs, the test's as their subreaper after).
				for _, pid := range proctree.Mine("sleep", marker) {
					if pidAlive(pid) {
						syscall.Kill(pid, syscall.SIGKILL)
						t.Errorf("the setsid grandchild %d outlived the launcher (%s)", pid, rep.Sandbox)
					}
				}
				if mode == "nopidns" && !strings.Contains(rep.Sandbox, "no pid namespace: turned off by SPAR_SANDBOX=nopidns") {
					t.Errorf("report %q", rep.Sandbox)
				}
			})
		}
	}
}

// SPAR_SANDBOX=off: no launcher, and the record says so.
func TestOff(t *testing.T) {
	t.Setenv(EnvVar, "off")
	dir := t.TempDir()
	out, code, rep := box(t, dir, `echo x > "$1" && echo wrote`, nil, filepath.Join(dir, "f"))
	if code != 0 || out != "wrote\n" || rep.Sandbox != "none: turned off by SPAR_SANDBOX=off" {
		t.Errorf("%d %q %q", code, out, rep.Sandbox)
	}
}

// A reviewer that cannot start is reported as cmd.Start would; a signal
// that ends it comes back as that signal.
func TestStartErrorAndSignal(t *testing.T) {
	dir := t.TempDir()
	p := For(Reviewer{Preset: "command", Workspace: dir, Scratch: dir})
	mk := func(path string, args []string) *exec.Cmd {
		return &exec.Cmd{Path: path, Args: args, Dir: dir, SysProcAttr: &syscall.SysProcAttr{Setpgid: true}}
	}
	run, err := Start(p, []string{filepath.Join(dir, "missing")}, mk)
	if err != nil {
		t.Fatal(err)
	}
	run.Cmd.Wait()
	if rep := run.Finish(); rep.StartErr == nil || !strings.Contains(rep.StartErr.Error(), "no such file") {
		t.Errorf("%+v", rep)
	}
	run, err = Start(p, []string{"/bin/sh", "-c", "kill -SEGV $$"}, mk)
	if err != nil {
		t.Fatal(err)
	}
	run.Cmd.Wait()
	if rep := run.Finish(); rep.Signal != syscall.SIGSEGV {
		t.Errorf("%+v", rep)
	}
}

// The install folder of an npm-installed CLI is the folder that holds its
// node_modules, through symlinks; an executable in the home folder or
// beside the round gets only its own file.
func TestInstallFolder(t *testing.T) {
	root := t.TempDir()
	pkg := filepath.Join(root, "cli", "node_modules", "@x", "codex", "bin")
	os.MkdirAll(pkg, 0o755)
	os.WriteFile(filepath.Join(pkg, "codex.js"), []byte("#!/usr/bin/env node\n"), 0o755)
	os.MkdirAll(filepath.Join(root, "cli", "node_modules", ".bin"), 0o755)
	link := filepath.Join(root, "cli", "node_modules", ".bin", "codex")
	os.Symlink("../@x/codex/bin/codex.js", link)
	if got := InstallFolder(link); got != filepath.Join(root, "cli") {
		t.Errorf("InstallFolder = %q", got)
	}
	home := filepath.Join(root, "home")
	os.Mkdir(home, 0o755)
	tool := filepath.Join(home, "review.sh")
	os.WriteFile(tool, []byte("#!/bin/sh\n"), 0o755)
	p := For(Reviewer{Preset: "command", Exe: tool, Home: home})
	for _, r := range p.Read {
		if r == home {
			t.Errorf("the home folder is readable: %v", p.Read)
		}
	}
	round := filepath.Join(root, "reviews", "code-1")
	p = For(Reviewer{Preset: "command", Exe: filepath.Join(root, "reviews", "x"), Protect: []string{round}})
	for _, r := range p.Read {
		if r == filepath.Join(root, "reviews") {
			t.Errorf("the series is readable: %v", p.Read)
		}
	}
}

// TestTrust_ExecutableInsideTheRepository: a reviewer executable that lives
// in the reviewed repository (a CLI in the project's own node_modules, whose
// install folder is the repository; a script in its tools/) gets only its
// own file: the repository's untracked files (.env) and .git are out of
// reach, its committed files are in the workspace.
func TestTrust_ExecutableInsideTheRepository(t *testing.T) {
	repo := t.TempDir()
	bin := filepath.Join(repo, "node_modules", ".bin")
	os.MkdirAll(bin, 0o755)
	cli := filepath.Join(bin, "claude")
	os.WriteFile(cli, []byte("#!/bin/sh\n"), 0o755)
	tool := filepath.Join(repo, "tools", "review.sh")
	os.MkdirAll(filepath.Dir(tool), 0o755)
	os.WriteFile(tool, []byte("#!/bin/sh\n"), 0o755)
	for exe, dir := range map[string]string{cli: repo, tool: filepath.Dir(tool)} {
		if got := InstallFolder(exe); got != dir {
			t.Fatalf("InstallFolder(%s) = %s, want %s", exe, got, dir)
		}
		p := For(Reviewer{Preset: "command", Exe: exe, Protect: []string{repo}})
		if contains(p.Read, dir) {
			t.Errorf("%s: its install folder %s inside the repository is readable: %v", exe, dir, p.Read)
		}
		if !contains(p.Read, exe) {
			t.Errorf("%s: the executable itself is not readable: %v", exe, p.Read)
		}
	}
}

// The CLIs' state folders: made when missing, written.
func TestStateFolders(t *testing.T) {
	home := t.TempDir()
	env := func(string) string { return "" }
	p := For(Reviewer{Preset: "codex", Home: home, Getenv: env})
	if fi, err := os.Stat(filepath.Join(home, ".codex")); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("~/.codex: %v", err)
	}
	if !contains(p.Write, filepath.Join(home, ".codex")) {
		t.Errorf("%v", p.Write)
	}
	// No bubblewrap of codex's own under Landlock: no daemon folder.
	if contains(p.Write, fmt.Sprintf("/tmp/codex-daemon-%d", os.Getuid())) || p.Require {
		t.Errorf("codex: %+v", p)
	}
	if p := For(Reviewer{Preset: "codex", Home: home, Getenv: env, Require: true}); !p.Require {
		t.Errorf("codex, required: %+v", p)
	}
	// claude: its state folder and ~/.claude.json read, only sessions and
	// its credentials written (TestTrust_Route10_ClaudeSettings).
	p = For(Reviewer{Preset: "claude", Home: home, Getenv: env})
	if !contains(p.Write, filepath.Join(home, ".claude", "sessions")) || !contains(p.Write, filepath.Join(home, ".claude", ".credentials.json")) ||
		contains(p.Write, filepath.Join(home, ".claude")) || contains(p.Write, filepath.Join(home, ".claude.json")) {
		t.Errorf("%v", p.Write)
	}
	if !contains(p.Read, filepath.Join(home, ".claude")) || !contains(p.Read, filepath.Join(home, ".claude.json")) {
		t.Errorf("%v", p.Read)
	}
	p = For(Reviewer{Preset: "codex", Home: home, Getenv: func(k string) string {
		if k == "CODEX_HOME" {
			return filepath.Join(home, "ch")
		}
		return ""
	}})
	if !contains(p.Write, filepath.Join(home, "ch")) || contains(p.Write, filepath.Join(home, ".codex")) {
		t.Errorf("%v", p.Write)
	}
	p = For(Reviewer{Preset: "command", Home: home, Getenv: env})
	for _, w := range p.Write {
		if strings.HasPrefix(w, home) {
			t.Errorf("a command reviewer writes %s", w)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Confines predicts the launcher: no with SPAR_SANDBOX=off, yes where the
// kernel has Landlock (this test binary carries the launcher), and then a
// reviewer run under it is confined.
func TestConfines(t *testing.T) {
	t.Setenv(EnvVar, "off")
	if Confines() {
		t.Error("confines with SPAR_SANDBOX=off")
	}
	t.Setenv(EnvVar, "")
	_, ok := Available()
	if Confines() != ok {
		t.Fatalf("Confines %v, Landlock available %v", Confines(), ok)
	}
	if !ok {
		t.Skip("no Landlock on this kernel")
	}
	_, _, rep := box(t, t.TempDir(), "true", nil)
	if !strings.HasPrefix(rep.Sandbox, "landlock ABI ") {
		t.Errorf("Confines said yes, the launcher applied %q", rep.Sandbox)
	}
}

// A policy with Require never starts its reviewer without the ruleset.
func TestRequire(t *testing.T) {
	if why := unmet(Policy{Require: true}, "none: the kernel has no Landlock"); !strings.Contains(why, "relies on spar's Landlock ruleset") {
		t.Errorf("%q", why)
	}
	if why := unmet(Policy{Require: true}, "landlock ABI 7"); why != "" {
		t.Errorf("%q", why)
	}
	if why := unmet(Policy{}, "none: the kernel has no Landlock"); why != "" {
		t.Errorf("%q", why)
	}
}
