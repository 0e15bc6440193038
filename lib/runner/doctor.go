package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/preset"
	"github.com/jaekit/spar/lib/sandbox"
)

// ProbeVersionLimit is the most a probe's version check may take: spar
// config --check shows the version line only when it is cheap.
const ProbeVersionLimit = 10 * time.Second

// Probe is what spar config --check (spar doctor) shows of one configured
// reviewer (docs/usage.md "Setup check"): whether its executable resolves
// by G14, the same rule spar run applies, what it resolves to and, for the
// CLI presets, its version line.
type Probe struct {
	Name, Preset string
	Required     bool
	// Native: no executable, the host's subagent reviews (spar record).
	Native bool
	// Looked is the name G14 resolves: argv[0], binary, or the preset.
	Looked string
	// Exe is the absolute path it resolves to, "" when it does not.
	Exe string
	// Status and Reason are G14's result when it does not resolve:
	// unavailable or failed, and the reason spar run would record.
	Status, Reason string
	// Version is the first line of <exe> --version (claude, codex, agy),
	// VersionNote why there is none when the check did not give one.
	Version, VersionNote string
	// LoginCommand is set when the CLI's own status command says it is
	// not logged in (preset.LoginOf): what the user runs to log in.
	// LoginNote says why the state is unknown when the check could not
	// tell (the reviewer still counts as ready: spar run will find out).
	LoginCommand, LoginNote string
	// Denied are the paths the reviewer needs to start (its executable, an
	// interpreter a #! line names, a shim's program, a path in its argv:
	// sandbox.Needs) that the sandbox of a round would not let it reach
	// (docs/sandbox.md "What the sandbox denies"): it could not start.
	Denied []string
	// Boxed is why the version check, run in the sandbox as a round runs
	// it, could not start or failed for a permission (exit 126 or 127,
	// "Permission denied"): the reviewer could not start in a round.
	Boxed string
}

// Starts reports whether spar run could start the reviewer: native, or an
// executable that resolves.
func (p Probe) Starts() bool {
	return p.Native || (p.Exe != "" && len(p.Denied) == 0 && p.Boxed == "")
}

// Ready reports whether the reviewer could review: it starts and its CLI
// is not known to be logged out.
func (p Probe) Ready() bool { return p.Starts() && p.LoginCommand == "" }

// ProbeReviewer resolves one applied reviewer's executable (G14) against
// pathEnv and, for a preset with a version check, runs it (at most
// ProbeVersionLimit, stdin /dev/null, in the temporary folder, its own
// process group). A command's argv[0] is resolved as written: its
// placeholders name round files. repo is the repository under review ("":
// none): the sandbox of a round protects it (sandboxFor), and so does the
// probe's.
func ProbeReviewer(r envelope.Reviewer, pathEnv, repo string) Probe {
	pr := Locate(r, pathEnv)
	if pr.Exe == "" {
		return pr
	}
	pr.Denied = sandboxDenies(r, pr.Exe, pathEnv, repo)
	p, err := preset.Get(r.Preset)
	if err != nil {
		return pr
	}
	if va := p.VersionArgs(); va != nil {
		pr.Version, pr.VersionNote, pr.Boxed = probeVersion(r, pr.Exe, va, pathEnv, repo)
	}
	if lg := preset.LoginOf(r.Preset); lg != nil {
		pr.LoginCommand, pr.LoginNote = probeLogin(pr.Exe, lg)
	}
	return pr
}

// sandboxDenies is what the sandbox of a round would deny reviewer r,
// whose executable resolved to exe, of what it needs to start (Probe.Denied;
// nil when the sandbox is off or Landlock is not there). The policy is a
// round's (sandboxFor), the repository repo protected as a round protects
// it (an executable's install folder inside it is not granted), without
// its round: its inputs are granted anyway, and the round folder and its
// series, which doctor does not know, usually lie in the repository.
func sandboxDenies(r envelope.Reviewer, exe, pathEnv, repo string) []string {
	if sandbox.CurrentMode() == sandbox.Off {
		return nil
	}
	if _, ok := sandbox.Available(); !ok {
		return nil
	}
	argv := []string{exe}
	if r.Preset == envelope.PresetCommand && len(r.Argv) > 1 {
		argv = append(argv, r.Argv[1:]...)
	}
	box := sandboxFor(Reviewer{Config: r, Repo: repo}, r.Preset, exe)
	box.DryRun = true
	return sandbox.Unreachable(sandbox.For(box), sandbox.Needs(argv, pathEnv))
}

// probeLogin asks the CLI whether it is logged in (preset.Login: its own
// status command, no model request, no tokens): the login command when it
// is not, else "" and a note when it cannot tell. A credential variable
// the CLI takes instead of a login counts as logged in.
func probeLogin(exe string, lg *preset.Login) (command, note string) {
	for _, v := range lg.Env {
		if os.Getenv(v) != "" {
			return "", ""
		}
	}
	out, errs, exit, why := probeRun(exe, lg.Args)
	switch lg.LoginState(exit, out+errs) {
	case "out":
		return lg.Command, ""
	case "in":
		return "", ""
	}
	if why == "" {
		why = fmt.Sprintf("%s %s exited with status %d%s", filepath.Base(exe), strings.Join(lg.Args, " "), exit, lastLineNote(errs))
	}
	return "", "login state unknown: " + why
}

// NotLoggedIn is spar run's warning before a round for each reviewer to run
// whose CLI has neither a credential variable nor a credential file
// (preset.Login.HasCredentials): it would be recorded unavailable. Unlike
// spar doctor it never starts the CLI: a reviewer's executable runs only in
// the sandbox, and the status command would write the CLI's state. "" when
// none.
func NotLoggedIn(rs []envelope.Reviewer, pathEnv string) []string {
	var out []string
	home, _ := os.UserHomeDir()
	for _, r := range rs {
		lg := preset.LoginOf(r.Preset)
		if lg == nil || Locate(r, pathEnv).Exe == "" || lg.HasCredentials(os.Getenv, home) {
			continue
		}
		if lg.KnownOut(os.Getenv, home) {
			out = append(out, fmt.Sprintf("%s is not logged in: run `%s` (spar doctor checks the setup); it is not started, and the round records it unavailable", r.Name, lg.Command))
			continue
		}
		out = append(out, fmt.Sprintf("%s is not logged in: run `%s` (spar doctor checks the setup); the round will record it unavailable", r.Name, lg.Command))
	}
	return out
}

// LoggedOut is the reason a reviewer to run is not started: its CLI
// resolves, and spar knows without starting it that a run would reach no
// model (preset.Login.KnownOut), so a round records it unavailable at once
// instead of spending the CLI's retries (docs/review-round.md "A CLI
// without credentials"). "" otherwise.
func LoggedOut(r envelope.Reviewer, pathEnv string) string {
	lg := preset.LoginOf(r.Preset)
	if lg == nil || Locate(r, pathEnv).Exe == "" {
		return ""
	}
	home, _ := os.UserHomeDir()
	if !lg.KnownOut(os.Getenv, home) {
		return ""
	}
	var conf []string
	for _, f := range lg.Providers {
		conf = append(conf, f.Path(os.Getenv, home))
	}
	also := ""
	if len(conf) > 0 {
		also = " and no configuration of its own that could name another provider (" + strings.Join(conf, ", ") + ")"
	}
	return fmt.Sprintf("authentication: %s has no credentials (%s)%s: run `%s`; not started", r.Preset, lg.Places(os.Getenv, home), also, lg.Command)
}

// Locate is ProbeReviewer without the version check: G14 only.
func Locate(r envelope.Reviewer, pathEnv string) Probe {
	pr := Probe{Name: r.Name, Preset: r.Preset, Required: r.Required}
	if r.Preset == "native" {
		pr.Native = true
		return pr
	}
	pr.Looked = executableName(r, r.Argv)
	exe, status, reason := Resolve(pr.Looked, pathEnv)
	if status != "" {
		pr.Status, pr.Reason = status, reason
		return pr
	}
	pr.Exe = exe
	return pr
}

// NoneStarts is spar run's warning before a round in which no reviewer
// that is to run can start (docs/review-round.md "No reviewer can start"):
// G14 makes each of them unavailable or failed and the round is still
// recorded, so spar-exec says so first. "" when one can start, or none is
// to run.
func NoneStarts(rs []envelope.Reviewer, pathEnv string) string {
	var why []string
	for _, r := range rs {
		p := Locate(r, pathEnv)
		if p.Starts() {
			return ""
		}
		why = append(why, p.Name+": "+p.Reason)
	}
	if len(why) == 0 {
		return ""
	}
	return fmt.Sprintf("no reviewer of this round can start (%s): the round is recorded with every one of them unavailable or failed (G14), and the gate will block; 'spar doctor' shows what each reviewer would run and what to do",
		strings.Join(why, "; "))
}

// ProbeAll probes every reviewer at once (their version checks overlap)
// and returns the probes in the given order (ProbeReviewer: repo is the
// repository under review, "" when none).
func ProbeAll(rs []envelope.Reviewer, pathEnv, repo string) []Probe {
	out := make([]Probe, len(rs))
	var wg sync.WaitGroup
	for i := range rs {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			out[i] = ProbeReviewer(rs[i], pathEnv, repo)
		}(i)
	}
	wg.Wait()
	return out
}

func probeVersion(r envelope.Reviewer, exe string, args []string, pathEnv, repo string) (version, note, boxed string) {
	out, errs, exit, why, boxed := probeBoxed(r, exe, args, pathEnv, repo)
	switch {
	case why != "":
		return "", why, boxed
	case exit != 0:
		return "", fmt.Sprintf("%s %s exited with status %d%s", filepath.Base(exe), strings.Join(args, " "), exit, lastLineNote(errs)), boxed
	}
	v := firstNonEmptyLine(out)
	if v == "" {
		v = firstNonEmptyLine(errs)
	}
	return v, "", ""
}

// probeBoxed runs exe with args as a round runs the version check
// (runProcess: in the sandbox, with the allowlisted environment, its own
// process group), at most ProbeVersionLimit, in an empty folder standing
// for the workspace, the repository repo protected as in a round: its
// stdout, stderr and exit code, or why it did not run to its end; boxed is the sandbox's part when it could not start for
// a permission or ended 126 or 127 or with "Permission denied" (see
// sandboxDenial), "" otherwise.
func probeBoxed(r envelope.Reviewer, exe string, args []string, pathEnv, repo string) (stdout, stderr string, exit int, why, boxed string) {
	ws, err := os.MkdirTemp("", "spar-doctor-")
	if err != nil {
		return "", "", -1, err.Error(), ""
	}
	defer os.RemoveAll(ws)
	box := sandboxFor(Reviewer{Config: r, Workspace: ws, Repo: repo}, r.Preset, exe)
	box.DryRun = true
	out, errs := &sink{limit: 64 << 10}, &sink{limit: 64 << 10}
	argv := append([]string{exe}, args...)
	res := runProcess(preset.Invocation{Args: argv}, box, ws, time.Now().Add(ProbeVersionLimit), out, errs, nil, nil)
	stdout, stderr = out.mem.String(), errs.mem.String()
	cmdline := filepath.Base(exe) + " " + strings.Join(args, " ")
	denial := func() string {
		if d := sandboxDenial(res, argv, pathEnv, stderr); d != "" {
			return strings.TrimPrefix(d, "; ")
		}
		return ""
	}
	switch {
	case !res.started:
		why = fmt.Sprintf("%s: %v", cmdline, res.startErr)
		if res.startErr != nil && (errors.Is(res.startErr, fs.ErrPermission) || strings.Contains(strings.ToLower(res.startErr.Error()), "permission denied")) {
			boxed = denial()
		}
		return stdout, stderr, -1, why, boxed
	case res.timedOut:
		return stdout, stderr, -1, fmt.Sprintf("%s did not finish within %v", cmdline, ProbeVersionLimit), ""
	case res.signal != "":
		return stdout, stderr, -1, fmt.Sprintf("%s was killed by %s", cmdline, res.signal), ""
	}
	exit = *res.exitCode
	if exit == 126 || exit == 127 || strings.Contains(strings.ToLower(stderr), "permission denied") {
		boxed = denial()
	}
	return stdout, stderr, exit, "", boxed
}

// probeRun runs exe with args as the setup check does (at most
// ProbeVersionLimit, stdin /dev/null, in the temporary folder, its own
// process group): its stdout, stderr and exit code, or why it did not run
// to its end.
func probeRun(exe string, args []string) (stdout, stderr string, exit int, why string) {
	ctx, cancel := context.WithTimeout(context.Background(), ProbeVersionLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Dir = os.TempDir()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	// A grandchild that left the group could keep the pipes open.
	cmd.WaitDelay = time.Second
	var out, errs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &limited{&out, 64 << 10}, &limited{&errs, 64 << 10}
	err := cmd.Run()
	cmdline := filepath.Base(exe) + " " + strings.Join(args, " ")
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return out.String(), errs.String(), -1, fmt.Sprintf("%s did not finish within %v", cmdline, ProbeVersionLimit)
	case errors.As(err, &ee):
		return out.String(), errs.String(), ee.ExitCode(), ""
	case err != nil:
		return out.String(), errs.String(), -1, fmt.Sprintf("%s: %v", cmdline, err)
	}
	return out.String(), errs.String(), 0, ""
}

// limited keeps at most n bytes of what is written to it.
type limited struct {
	b *bytes.Buffer
	n int
}

func (l *limited) Write(p []byte) (int, error) {
	if room := l.n - l.b.Len(); room > 0 {
		l.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// Line is the probe as one line of the report:
//
//	claude (claude, required): /usr/local/bin/claude, version 2.1.328 (Claude Code)
//	codex (codex, required): unavailable: no executable "codex" on PATH
//	native (native, required): no executable: the host's subagent reviews (spar record)
func (p Probe) Line() string {
	head := p.Name + " (" + p.Preset
	if p.Required {
		head += ", required"
	}
	head += "): "
	switch {
	case p.Native:
		return head + "no executable: the host's subagent reviews (spar record)"
	case p.Exe == "":
		return head + p.Status + ": " + p.Reason
	case len(p.Denied) > 0:
		return head + p.Exe + ": the sandbox denies " + strings.Join(p.Denied, ", ") + ": not reachable inside it, the reviewer cannot start in a round (docs/sandbox.md \"What the sandbox denies\")"
	case p.Boxed != "":
		return head + p.Exe + ": in the sandbox " + p.VersionNote + "; " + p.Boxed + ": the reviewer cannot start in a round"
	}
	line := head + p.Exe
	switch {
	case p.Version != "":
		line += ", version " + p.Version
	case p.VersionNote != "":
		line += " (no version: " + p.VersionNote + ")"
	}
	switch {
	case p.LoginCommand != "":
		line += "; not logged in: run `" + p.LoginCommand + "`"
	case p.LoginNote != "":
		line += " (" + p.LoginNote + ")"
	}
	return line
}

// LeftOut is spar doctor's note on the required reviewers of the
// configuration (configured_required, the gate's list: docs/review-gate.md
// reason 12) that the applied reviewers (--reviewers) leave out: a run of
// them starts, but the gate blocks until each has a completed review or a
// waiver. "" when none is left out. editFile is the user configuration file
// to edit.
func LeftOut(required []envelope.RequiredReviewer, applied []envelope.Reviewer, editFile string) string {
	in := map[envelope.RequiredReviewer]bool{}
	for _, r := range applied {
		in[envelope.RequiredReviewer{Name: r.Name, Preset: r.Preset}] = true
	}
	var out []string
	for _, r := range required {
		if !in[r] {
			out = append(out, r.Name+" ("+r.Preset+")")
		}
	}
	if len(out) == 0 {
		return ""
	}
	them, each := "them", "each"
	if len(out) == 1 {
		them, each = "it", "it"
	}
	return fmt.Sprintf("left out: the configuration requires %s, which this run leaves out: the gate blocks until %s has a completed review of the series' latest input or a waiver (docs/review-gate.md reason 12); to clear: name %s in --reviewers, waive %s in the round (spar waive ROUND --reviewer NAME --user-quote Q), or make %s not required (required = false in its [[reviewers]] entry of %s)",
		strings.Join(out, ", "), each, them, each, them, editFile)
}

// Verdict is the check's outcome over every probe: "" when every required
// reviewer starts and at least one reviewer does, else what is wrong and
// what to do, for the one stderr line of the refusal (65). editFile is the
// user configuration file to edit.
func Verdict(probes []Probe, editFile string) string {
	var blocked, all, login, denied []string
	starts := 0
	for _, p := range probes {
		if p.Ready() {
			starts++
			continue
		}
		all = append(all, p.Name)
		if p.Required {
			blocked = append(blocked, p.Name)
		}
		if p.LoginCommand != "" {
			login = append(login, "`"+p.LoginCommand+"`")
		}
		denied = append(denied, p.Denied...)
		if p.Boxed != "" && len(p.Denied) == 0 {
			denied = append(denied, "what "+p.Name+" needs")
		}
	}
	fix := fmt.Sprintf("install each CLI (docs/usage.md section 2) or put it on PATH, give its [[reviewers]] entry in %s a binary (a command reviewer: argv), or pick reviewers that can run with --reviewers (spar config --check --reviewers LIST checks them)", editFile)
	if len(login) > 0 {
		fix = "log in (run " + strings.Join(login, ", ") + "), " + fix
	}
	if len(denied) > 0 {
		fix = "make " + strings.Join(denied, ", ") + " reachable inside the sandbox: an interpreter or program under a system folder (/usr, /opt), or in the folder of the reviewer's executable, or name it in argv by such a path (docs/sandbox.md \"What the sandbox denies\"); or " + fix
	}
	switch {
	case len(blocked) > 0:
		return fmt.Sprintf("%s cannot start (%s): a round would record %s and the gate would block; %s",
			count(len(blocked), "required reviewer"), strings.Join(blocked, ", "), them(len(blocked)), fix)
	case starts == 0 && len(probes) > 0:
		return fmt.Sprintf("no reviewer can start (%s): a round would review nothing; %s", strings.Join(all, ", "), fix)
	}
	return ""
}

func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func them(n int) string {
	if n == 1 {
		return "it unavailable or failed"
	}
	return "them unavailable or failed"
}
