package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/preset"
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
}

// Starts reports whether spar run could start the reviewer: native, or an
// executable that resolves.
func (p Probe) Starts() bool { return p.Native || p.Exe != "" }

// ProbeReviewer resolves one applied reviewer's executable (G14) against
// pathEnv and, for a preset with a version check, runs it (at most
// ProbeVersionLimit, stdin /dev/null, in the temporary folder, its own
// process group). A command's argv[0] is resolved as written: its
// placeholders name round files.
func ProbeReviewer(r envelope.Reviewer, pathEnv string) Probe {
	pr := Locate(r, pathEnv)
	if pr.Exe == "" {
		return pr
	}
	p, err := preset.Get(r.Preset)
	if err != nil {
		return pr
	}
	if va := p.VersionArgs(); va != nil {
		pr.Version, pr.VersionNote = probeVersion(pr.Exe, va)
	}
	return pr
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
// and returns the probes in the given order.
func ProbeAll(rs []envelope.Reviewer, pathEnv string) []Probe {
	out := make([]Probe, len(rs))
	var wg sync.WaitGroup
	for i := range rs {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			out[i] = ProbeReviewer(rs[i], pathEnv)
		}(i)
	}
	wg.Wait()
	return out
}

func probeVersion(exe string, args []string) (version, note string) {
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
		return "", fmt.Sprintf("%s did not finish within %v", cmdline, ProbeVersionLimit)
	case errors.As(err, &ee):
		return "", fmt.Sprintf("%s exited with status %d%s", cmdline, ee.ExitCode(), lastLineNote(errs.String()))
	case err != nil:
		return "", fmt.Sprintf("%s: %v", cmdline, err)
	}
	v := firstNonEmptyLine(out.String())
	if v == "" {
		v = firstNonEmptyLine(errs.String())
	}
	return v, ""
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
	case p.Version != "":
		return head + p.Exe + ", version " + p.Version
	case p.VersionNote != "":
		return head + p.Exe + " (no version: " + p.VersionNote + ")"
	}
	return head + p.Exe
}

// Verdict is the check's outcome over every probe: "" when every required
// reviewer starts and at least one reviewer does, else what is wrong and
// what to do, for the one stderr line of the refusal (65). editFile is the
// user configuration file to edit.
func Verdict(probes []Probe, editFile string) string {
	var blocked, all []string
	starts := 0
	for _, p := range probes {
		if p.Starts() {
			starts++
			continue
		}
		all = append(all, p.Name)
		if p.Required {
			blocked = append(blocked, p.Name)
		}
	}
	fix := fmt.Sprintf("install each CLI (docs/usage.md section 2) or put it on PATH, give its [[reviewers]] entry in %s a binary (a command reviewer: argv), or pick reviewers that can run with --reviewers (spar config --check --reviewers LIST checks them)", editFile)
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
