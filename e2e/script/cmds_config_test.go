package script

// Custom testscript commands first written for the config scripts
// (registered in cmds_test.go).

import (
	"errors"
	"os/exec"
	"strconv"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/tidwall/gjson"
)

// exitcode CODE PROGRAM [ARGS...]: run PROGRAM as exec does (stdout and
// stderr are kept for the next commands) and assert its exit code is
// exactly CODE; 64 and 65 mean different things (docs/usage.md §6).
func cmdExitcode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exitcode CODE PROGRAM [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exitcode: %v", err)
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exitcode: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("exit code %d, want %d", got, want)
	}
}

// jsonsame FILE1 PATH1 FILE2 [PATH2]: the gjson path of two JSON files has
// the same raw value (PATH2 defaults to PATH1); ! jsonsame: a different one.
func cmdJSONSame(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 3 || len(args) > 4 {
		ts.Fatalf("usage: jsonsame FILE1 PATH1 FILE2 [PATH2]")
	}
	p2 := args[1]
	if len(args) == 4 {
		p2 = args[3]
	}
	a := gjson.Get(ts.ReadFile(args[0]), args[1])
	b := gjson.Get(ts.ReadFile(args[2]), p2)
	if !a.Exists() || !b.Exists() {
		ts.Fatalf("jsonsame: %s %s exists=%v, %s %s exists=%v", args[0], args[1], a.Exists(), args[2], p2, b.Exists())
	}
	if (compact(a.Raw) == compact(b.Raw)) == neg {
		ts.Fatalf("jsonsame: %s %s = %s, %s %s = %s", args[0], args[1], a.Raw, args[2], p2, b.Raw)
	}
}
