package script

// The custom testscript commands, all registered here (README.md documents
// each with its arguments). Their code is beside what they serve:
// cmds_*_test.go, sandbox_test.go (sleeping), sarif_test.go (sarif-valid).

import (
	"bytes"
	"encoding/json"
	"strings"
	"syscall"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/tidwall/gjson"
)

// scriptCmds is every custom command the scripts may use, by name.
func scriptCmds() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	return map[string]func(ts *testscript.TestScript, neg bool, args []string){
		// JSON and files (this file, cmds_config_test.go, cmds_gate_test.go).
		"json":     cmdJSON,
		"jsonsame": cmdJSONSame,
		"exitcode": cmdExitcode,
		"mkfifo":   cmdMkfifo,
		"sha256":   cmdSHA256,
		// Repositories and rounds (cmds_gate_test.go, cmds_record_test.go).
		"revs":          cmdRevs,
		"mkround":       cmdMkround,
		"round-publish": cmdRoundPublish,
		// Stages run by hand (cmds_exec_test.go).
		"execenv": cmdExecEnv,
		"gone":    cmdGone,
		"waitfor": cmdWaitFor,
		// Workspaces (cmds_workspace_test.go).
		"wsenv":             cmdWsEnv,
		"rmrf-unprivileged": cmdRmUnprivileged,
		// The sandbox (sandbox_test.go).
		"sleeping": cmdSleeping,
		// SARIF (sarif_test.go).
		"sarif-valid": cmdSarifValid,
	}
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
