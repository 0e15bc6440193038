package script

// The sandbox group (testdata/sandbox, docs/sandbox.md): hostile
// command reviewers. TestScripts runs it with the sandbox on, where the
// [sandbox] condition holds when the kernel has Landlock; TestSandboxOff runs
// it again with SPAR_SANDBOX=off, as on a machine without Landlock, where the
// scripts check that round.json says "none: …" instead.

import (
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jaekit/spar/lib/proctree"
	"github.com/jaekit/spar/lib/sandbox"
	"github.com/rogpeppe/go-internal/testscript"
)

// sandboxCondition answers [sandbox]: the reviewers run in the sandbox
// (Landlock available, and on is false for SPAR_SANDBOX=off); and
// [tool-missing:NAME] (cmds_tool_test.go).
func sandboxCondition(on bool) func(string) (bool, error) {
	return func(cond string) (bool, error) {
		if cond == "sandbox" {
			_, ok := sandbox.Available()
			return on && ok, nil
		}
		if name, ok := strings.CutPrefix(cond, "tool-missing:"); ok {
			return toolMissing(name)
		}
		return false, fmt.Errorf("unknown condition %q", cond)
	}
}

func TestSandboxOff(t *testing.T) {
	p := Params(filepath.Join("testdata", "sandbox"))
	setup := p.Setup
	p.Setup = func(env *testscript.Env) error {
		env.Setenv(sandbox.EnvVar, "off")
		return setup(env)
	}
	p.Condition = sandboxCondition(false)
	testscript.Run(t, p)
}

// sleepers lists this run's live processes whose command line is
// "sleep MARK": a reviewer's grandchild, found by its command line (in a
// PID namespace the number it knows itself by is the namespace's) among
// the descendants of this test binary (its subreaper, run), so that a
// test run beside this one, with the same scripts, is never touched.
func sleepers(mark string) []int {
	return proctree.Mine("sleep", mark)
}

// sleeping MARK: a process "sleep MARK" runs (waits up to 10 s for it).
// ! sleeping MARK: none runs, within 10 s (the grace periods); what still
// runs then is killed, so that a failure leaves nothing behind.
// sleeping -kill MARK: kill every "sleep MARK" of this run (cleanup where nothing
// stops them: the sandbox turned off).
func cmdSleeping(ts *testscript.TestScript, neg bool, args []string) {
	kill := len(args) == 2 && args[0] == "-kill"
	if kill {
		args = args[1:]
	}
	if len(args) != 1 {
		ts.Fatalf("usage: sleeping [-kill] MARK")
	}
	if kill {
		for _, pid := range sleepers(args[0]) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		return
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		n := len(sleepers(args[0]))
		if (n > 0) != neg {
			return
		}
		if time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if neg {
		pids := sleepers(args[0])
		for _, pid := range pids {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		ts.Fatalf("sleep %s still runs: %v", args[0], pids)
	}
	ts.Fatalf("no sleep %s runs", args[0])
}
