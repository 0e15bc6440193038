//go:build !linux

package sandbox

import (
	"os/exec"
	"syscall"
)

// launch is never reached off Linux: Start runs the reviewer directly.
func launch(string, []string) int { return 127 }

// confine is never reached off Linux either.
func confine(string, []string) int { return 127 }

// Available: Landlock is Linux's.
func Available() (int, bool) { return 0, false }

// probeLandlock: no Landlock off Linux.
func probeLandlock() bool { return false }

// Run is one reviewer process; off Linux it runs without the launcher.
type Run struct {
	Cmd *exec.Cmd
	why string
	net string
}

// Report is what the launcher said once the process ended.
type Report struct {
	Network  string
	Sandbox  string
	StartErr error
	Signal   syscall.Signal
}

// Start runs argv directly: Landlock and PID namespaces are Linux's.
func Start(p Policy, argv []string, mk func(path string, args []string) *exec.Cmd) (*Run, error) {
	why := "none: not Linux (" + goos + ")"
	if CurrentMode() == Off {
		why = OffReason
	}
	cmd := mk(argv[0], argv)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	run := &Run{Cmd: cmd, why: why}
	if p.NoNetwork {
		run.net = "open: no sandbox (" + why + ")"
	}
	return run, nil
}

// Finish says the reviewer ran without a sandbox.
func (r *Run) Finish() Report { return Report{Sandbox: r.why, Network: r.net} }

// FollowParent needs Linux's parent-death signal: a no-op elsewhere.
func FollowParent() {}
