package script

// The custom testscript commands, all registered here (README.md documents
// each with its arguments). Their code is beside what they serve:
// cmds_*_test.go, sandbox_test.go (sleeping), sarif_test.go (sarif-valid).

import (
	"syscall"

	"github.com/jaekit/spar/e2e/internal/scripttest"
	"github.com/rogpeppe/go-internal/testscript"
)

// scriptCmds is every custom command the scripts may use, by name.
func scriptCmds() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	return map[string]func(ts *testscript.TestScript, neg bool, args []string){
		// JSON and files (this file, cmds_config_test.go, cmds_gate_test.go).
		"json":     scripttest.JSON,
		"jsonsame": cmdJSONSame,
		"exitcode": cmdExitcode,
		"mkfifo":   cmdMkfifo,
		"sha256":   cmdSHA256,
		"envfile":  cmdEnvFile,
		// An envelope's config edited, its digest recomputed (cmds_gate_test.go).
		"config-edit": cmdConfigEdit,
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
		// Code-host tools (cmds_tool_test.go).
		"tool": cmdTool,
	}
}

// compact is s as compact JSON (scripttest.Compact).
func compact(s string) string { return scripttest.Compact(s) }

// envfile NAME FILE: the variable NAME set to FILE's text (a key a CI
// system hands a job as a secret's value).
func cmdEnvFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: envfile NAME FILE")
	}
	ts.Setenv(args[0], ts.ReadFile(args[1]))
}

func cmdMkfifo(ts *testscript.TestScript, neg bool, args []string) {
	for _, a := range args {
		if err := syscall.Mkfifo(ts.MkAbs(a), 0o644); err != nil {
			ts.Fatalf("mkfifo: %v", err)
		}
	}
}
