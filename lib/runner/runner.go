// Package runner runs the reviewers of a round (docs/review-round.md §4, G13, G14,
// G19): each attempt resolves the executable, checks its version and runs
// it in its own process group in the round's workspace, watched by its
// preset's monitor and bounded by the reviewer's time limit, with stdout and
// stderr kept (capped) in <round>/<reviewer>/. A quota or rate-limit refusal
// runs once more with the fallback model; an authentication refusal never
// does. All reviewers of a round run at once (RunAll).
package runner

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jaekit/spar/lib/atomic"
	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/preset"
	"github.com/jaekit/spar/lib/refusal"
	"github.com/jaekit/spar/lib/sandbox"
	"github.com/jaekit/spar/lib/spend"
)

// VersionLimit is the most the version check may take (G19); a variable
// only so that tests can shorten it.
var VersionLimit = 30 * time.Second

// Statuses a reviewer run ends with (docs/review-round.md §4; lib/envelope owns them).
const (
	Completed     = envelope.StatusCompleted
	Failed        = envelope.StatusFailed
	Unavailable   = envelope.StatusUnavailable
	TimedOut      = envelope.StatusTimedOut
	ToolViolation = envelope.StatusToolViolation
	// InvalidOutput: the CLI itself gave up on the answer's format
	// (preset.Outcome.Invalid); spar-check keeps it.
	InvalidOutput = envelope.StatusInvalidOutput
	Pending       = envelope.StatusPending
	NotRun        = envelope.StatusNotRun
)

// Reviewer is one reviewer of the round to run.
type Reviewer struct {
	Config     envelope.Reviewer
	Input      envelope.Input
	Dir        string // <round>/<reviewer>: stdout, stderr, result.json
	Repo       string // the reviewed repository: never readable through the executable's install folder (sandboxFor)
	Workspace  string // the workspace's real path, outside every repository (docs/review-round.md "The workspace"): the reviewer's folder and {workspace}
	Prompt     string // absolute path of the input file ({prompt})
	SchemaPath string // <round>/schema.json
	SchemaText string
	PathEnv    string // PATH for G14
	// Check, when set, is the result check the round's records will apply
	// (spar-check's, lib/resultcheck): a completed run's end line says
	// what it decides (invalid_output and why), so that the progress line
	// never contradicts the verdict line. It changes nothing recorded.
	Check func(envelope.ReviewerRun) (status, reason string)
	// Budget is the round's budget_usd, shared by every reviewer of the
	// round; nil when the configuration writes none.
	Budget *RoundBudget
}

// New returns the run record of a reviewer before anything ran.
func New(cfg envelope.Reviewer) envelope.ReviewerRun {
	return envelope.ReviewerRun{
		Reviewer:       cfg.Name,
		Preset:         cfg.Preset,
		Model:          cfg.Model,
		Effort:         cfg.Effort,
		TimeoutSeconds: cfg.TimeoutSeconds,
		Attempts:       []envelope.Attempt{},
		Warnings:       []envelope.Warning{},
		Tools:          []string{},
	}
}

// RunAll runs every reviewer at once and returns their records in the
// given order: the round takes as long as its slowest reviewer.
func RunAll(rs []Reviewer, prog *Progress) []envelope.ReviewerRun {
	out := make([]envelope.ReviewerRun, len(rs))
	var wg sync.WaitGroup
	for i := range rs {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			out[i] = Run(rs[i], prog)
		}(i)
	}
	wg.Wait()
	return out
}

func now() string { return time.Now().UTC().Format(time.RFC3339) }

// Run runs one reviewer: one attempt, and one more with the fallback model
// after a quota or rate-limit refusal when fallback_model is set and differs
// from the model (same effort).
func Run(r Reviewer, prog *Progress) envelope.ReviewerRun {
	run := New(r.Config)
	p, err := preset.Get(r.Config.Preset)
	if err != nil {
		run.Status, run.Reason = Failed, err.Error()
		return run
	}
	if r.Config.Preset == envelope.PresetNative {
		run.Status = Pending
		run.Reason = "waiting for the host's subagent: spar record with --transcript or --result"
		prog.Line("%s pending: %s", r.Config.Name, filepath.Join(r.Dir, "prompt.md"))
		return run
	}
	models := []*string{r.Config.Model}
	start := time.Now()
	prog.Line("%s started (%s%s)", r.Config.Name, r.Config.Preset, modelNote(r.Config.Model))
	// The heartbeat counts the tool calls of the streams spar reads while
	// the reviewer runs; command's stdout is its result, read at the end.
	var act *Activity
	if r.Config.Preset != "command" {
		act = NewActivity(r.Workspace)
	}
	stopTicker := prog.Ticker(r.Config.Name, start, act)
	defer stopTicker()
	seenTools := map[string]bool{}
	for i := 0; i < len(models); i++ {
		if i > 0 {
			// Keep the earlier attempt's output beside the new one.
			for _, f := range []string{"stdout", "stderr"} {
				os.Rename(filepath.Join(r.Dir, f), filepath.Join(r.Dir, fmt.Sprintf("attempt-%d.%s", i, f)))
			}
		}
		a := attempt(r, p, models[i], act, prog)
		run.Attempts = append(run.Attempts, a.rec)
		if a.version != "" {
			run.Version = a.version
		}
		for _, w := range a.warnings {
			if !slices.Contains(run.Warnings, w) {
				run.Warnings = append(run.Warnings, w)
			}
		}
		if a.sandbox != "" {
			run.Sandbox = a.sandbox
			run.Env = a.env
		}
		for _, t := range a.tools {
			if !seenTools[t] {
				seenTools[t] = true
				run.Tools = append(run.Tools, t)
			}
		}
		if a.rec.Resets != nil {
			run.Resets = a.rec.Resets
		}
		run.Status, run.Reason = a.rec.Status, a.rec.Reason
		run.ObservedModel = a.rec.ObservedModel
		run.Result = a.result
		fb := r.Config.FallbackModel
		if i == 0 && a.refusal == quotaKind && fb != nil && *fb != "" && (models[0] == nil || *fb != *models[0]) {
			prog.Line("%s refused for quota or rate limit; running again with the fallback model %s", r.Config.Name, *fb)
			models = append(models, fb)
		}
	}
	if run.Result != nil {
		if err := atomic.WriteFile(filepath.Join(r.Dir, "result.json"), []byte(*run.Result), 0o644); err != nil {
			run.Status, run.Reason, run.Result = Failed, "writing result.json: "+err.Error(), nil
		}
	}
	status, reason := run.Status, run.Reason
	if r.Check != nil && status == Completed {
		status, reason = r.Check(run)
	}
	prog.Line("%s %s after %s%s", r.Config.Name, status, Elapsed(time.Since(start)), reasonNote(reason))
	return run
}

func modelNote(m *string) string {
	if m == nil || *m == "" {
		return ""
	}
	return ", model " + *m
}

func reasonNote(r string) string {
	if r == "" {
		return ""
	}
	return ": " + r
}

type attemptResult struct {
	rec      envelope.Attempt
	version  string
	tools    []string
	warnings []envelope.Warning
	result   *string
	refusal  string
	sandbox  string   // what confined its processes (docs/sandbox.md)
	env      []string // the names of the environment its processes got
}

func attempt(r Reviewer, p preset.Preset, model *string, act *Activity, prog *Progress) attemptResult {
	started := time.Now()
	// A limit past what a time.Duration holds (about 292 years) is no limit
	// in practice: keep it from wrapping around to a past deadline.
	secs := int64(r.Config.TimeoutSeconds)
	if secs > int64(math.MaxInt64/time.Second) {
		secs = int64(math.MaxInt64 / time.Second)
	}
	deadline := started.Add(time.Duration(secs) * time.Second)
	a := attemptResult{rec: envelope.Attempt{Model: model, Effort: r.Config.Effort, StartedAt: now()}}
	// The executable's sha256 is computed while the attempt runs (a large
	// CLI takes seconds to hash) and joined here.
	var sum chan string
	finish := func(status, reason string) attemptResult {
		if sum != nil {
			a.rec.Executable.SHA256 = <-sum
			sum = nil
		}
		a.rec.Status, a.rec.Reason, a.rec.FinishedAt = status, reason, now()
		return a
	}
	limitMsg := fmt.Sprintf("no result within the time limit of %d s", r.Config.TimeoutSeconds)
	// The round's budget spent before this attempt (a fallback, a
	// reviewer that started late): it does not start.
	if r.Budget != nil {
		if total, crossed := r.Budget.Spent(); crossed {
			return finish(Failed, spend.RoundSpentReason(total, r.Budget.Limit))
		}
	}
	met := newMeter(r, p, prog)

	// G14: the executable.
	var argv []string
	if p.Name() == envelope.PresetCommand {
		argv = preset.Substitute(r.Config.Argv, r.Prompt, r.Workspace, r.SchemaPath)
	}
	exe, status, reason := Resolve(executableName(r.Config, argv), r.PathEnv)
	if status != "" {
		return finish(status, reason)
	}
	a.rec.Executable = &envelope.Executable{Path: exe}
	sum = make(chan string, 1)
	go func() { sum <- cachedSHA256(exe) }()
	box := sandboxFor(r, p.Name(), exe)

	// G19: the version check, within the attempt's limit and at most 30 s;
	// once per executable file and process (versions).
	var vkey versionKey
	vknown := false
	if va := p.VersionArgs(); va != nil {
		if id, ok := identity(exe); ok {
			vkey = versionKey{id, strings.Join(va, "\x00")}
			if v, ok := versions.Load(vkey); ok {
				a.version, vknown = v.(string), true
				a.rec.Executable.Version = a.version
			}
		}
	}
	if va := p.VersionArgs(); va != nil && !vknown {
		vdead := started.Add(VersionLimit)
		if deadline.Before(vdead) {
			vdead = deadline
		}
		out := &sink{limit: 64 << 10}
		errs := &sink{limit: 64 << 10}
		res := runProcess(preset.Invocation{Args: append([]string{exe}, va...)}, box, r.Workspace, vdead, out, errs, nil, nil)
		a.sandbox, a.env = res.sandbox, res.env
		vcmd := filepath.Base(exe) + " " + strings.Join(va, " ")
		switch {
		case !res.started:
			return finish(Failed, fmt.Sprintf("version check %s: %v", vcmd, res.startErr))
		case res.timedOut && !vdead.Before(deadline):
			return finish(TimedOut, limitMsg+" (the version check did not finish)")
		case res.timedOut:
			return finish(Failed, fmt.Sprintf("version check %s did not finish within %v", vcmd, VersionLimit))
		case res.signal != "":
			return finish(Failed, fmt.Sprintf("version check %s was killed by %s", vcmd, res.signal))
		case *res.exitCode != 0:
			return finish(Failed, fmt.Sprintf("version check %s exited with status %d%s", vcmd, *res.exitCode, lastLineNote(errs.mem.String())))
		}
		a.version = firstNonEmptyLine(out.mem.String())
		if a.version == "" {
			a.version = firstNonEmptyLine(errs.mem.String())
		}
		a.rec.Executable.Version = a.version
		if vkey.id.path != "" {
			versions.Store(vkey, a.version)
		}
	}

	// The run.
	inv := p.Invoke(preset.Call{
		Exe: exe, Model: model, Effort: r.Config.Effort, Input: r.Input, Argv: argv,
		Prompt: r.Prompt, Workspace: r.Workspace, SchemaPath: r.SchemaPath, SchemaText: r.SchemaText,
		TimeoutSeconds: r.Config.TimeoutSeconds,
		// Whether spar's Landlock sandbox will confine it (codex picks
		// its own --sandbox by it); the launcher's report is the record.
		Confined: sandbox.Confines(),
	})
	stdoutF, err := os.OpenFile(filepath.Join(r.Dir, "stdout"), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return finish(Failed, "stdout file: "+err.Error())
	}
	defer stdoutF.Close()
	stderrF, err := os.OpenFile(filepath.Join(r.Dir, "stderr"), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return finish(Failed, "stderr file: "+err.Error())
	}
	defer stderrF.Close()
	out := &sink{file: stdoutF, limit: OutputCap}
	errs := &sink{file: stderrF, limit: OutputCap}
	mon := p.NewMonitor()
	if pr, ok := mon.(preset.Pricer); ok {
		pr.PriceAs(model)
	}
	res := runProcess(inv, box, r.Workspace, deadline, out, errs, counting{mon, act}, met)
	if met != nil {
		a.rec.Spend = met.record()
	}
	if res.sandbox != "" {
		a.sandbox, a.env = res.sandbox, res.env
	}
	a.rec.ExitCode = res.exitCode
	if !res.started {
		why := ""
		if res.startErr != nil && (errors.Is(res.startErr, fs.ErrPermission) || strings.Contains(strings.ToLower(res.startErr.Error()), "permission denied")) {
			why = sandboxDenial(res, inv.Args, r.PathEnv, "")
		}
		return finish(Failed, fmt.Sprintf("could not start %s: %v%s", exe, res.startErr, why))
	}
	if w, ok := mon.(preset.WholeStdout); ok && res.overCap == "" {
		b, err := os.ReadFile(filepath.Join(r.Dir, "stdout"))
		if err != nil {
			return finish(Failed, "reading stdout: "+err.Error())
		}
		w.Stdout(b)
	}
	if w, ok := mon.(preset.WholeStderr); ok {
		// The stderr file holds at most OutputCap bytes.
		if b, err := os.ReadFile(filepath.Join(r.Dir, "stderr")); err == nil {
			w.Stderr(b)
		}
	}
	oc := mon.Finish()
	a.tools = oc.Tools
	a.warnings = oc.Warnings
	a.rec.ObservedModel = oc.ObservedModel
	a.rec.Usage = oc.Usage
	switch {
	case res.violation != "":
		return finish(ToolViolation, res.violation)
	case res.refusal != nil:
		// A retry event named a refusal: the attempt was stopped at once.
		a.refusal = string(res.refusal.Kind)
		if res.refusal.Resets != "" {
			r := res.refusal.Resets
			a.rec.Resets = &r
		}
		return finish(Unavailable, res.refusal.Reason())
	case res.budget != "":
		// A budget stopped it (docs/review-round.md "Spend and budgets").
		return finish(Failed, res.budget)
	case res.timedOut:
		return finish(TimedOut, limitMsg)
	case res.overCap != "":
		return finish(Failed, fmt.Sprintf("%s passed the %d MiB cap; the reviewer was stopped", res.overCap, OutputCap>>20))
	case res.exitCode != nil && *res.exitCode == 0 && oc.Result != nil:
		a.result = oc.Result
		return finish(Completed, "")
	case oc.Invalid:
		return finish(InvalidOutput, oc.Problem)
	}
	// No result: a refusal (docs/review-round.md "Refusal phrases") in stderr or in the output's error
	// messages decides (G13); anything else is recorded by its exit status.
	stderrText, _ := os.ReadFile(filepath.Join(r.Dir, "stderr"))
	texts := append([]string{string(stderrText)}, oc.Errors...)
	ref, resets := findRefusal(texts)
	a.rec.Resets = resets
	if ref != nil {
		a.refusal = string(ref.Kind)
		return finish(Unavailable, ref.Reason())
	}
	var failure string
	switch {
	case res.signal != "":
		failure = "killed by " + res.signal
	case *res.exitCode != 0:
		// The failure the output states explains the exit best (codex's
		// turn.failed: its stderr may end with an incidental warning),
		// then the reviewer's stderr, else the output's last error
		// message, else what the output lacks.
		why := lastLine(oc.Failure)
		if why == "" {
			why = lastLine(string(stderrText))
		}
		if why == "" && len(oc.Errors) > 0 {
			why = lastLine(oc.Errors[len(oc.Errors)-1])
		}
		if why == "" {
			why = oc.Problem
		}
		failure = fmt.Sprintf("exited with status %d%s", *res.exitCode, reasonNote(why))
		// 126 and 127 are a shell's "cannot execute" and "not found".
		if c := *res.exitCode; c == 126 || c == 127 || strings.Contains(strings.ToLower(string(stderrText)), "permission denied") {
			failure += sandboxDenial(res, inv.Args, r.PathEnv, string(stderrText))
		}
	default:
		failure = oc.Problem
	}
	if why := noCredentials(p.Name(), oc); why != "" {
		a.refusal = string(refusal.Authentication)
		return finish(Unavailable, why+"; "+failure)
	}
	return finish(Failed, failure)
}

// sandboxDenial is what a reviewer that could not start, exited 126 or
// 127 or said "Permission denied" gets after its reason when the sandbox
// confined it (docs/sandbox.md "What the sandbox denies"): the paths it
// needs (sandbox.Needs: its executable, interpreters, shims, path
// arguments) or its stderr names as denied, that the policy does not
// grant; "" when no sandbox applied.
func sandboxDenial(res procResult, argv []string, pathEnv, stderr string) string {
	if !strings.HasPrefix(res.sandbox, "landlock") {
		return ""
	}
	var paths []string
	for _, p := range append(sandbox.Needs(argv, pathEnv), sandbox.DeniedIn(stderr)...) {
		if !slices.Contains(paths, p) {
			paths = append(paths, p)
		}
	}
	miss := sandbox.Unreachable(res.policy, paths)
	if len(miss) == 0 {
		return "; the sandbox may have denied it what it needs (docs/sandbox.md \"What the sandbox denies\")"
	}
	return "; the sandbox denied it " + strings.Join(miss, ", ") + ": not reachable inside it (docs/sandbox.md \"What the sandbox denies\")"
}

// noCredentials is the reason of a failed attempt of a CLI that never says
// it is not logged in (preset.Login.Silent: codex) when it had no
// credentials (preset.Login.HasCredentials, what spar run's warning
// checks: the variables pass the sandbox with the preset's own) and
// reached no model: no tool or item, no tokens or cost stated above
// zero (envelope.Usage.Spent), no model stated
// (docs/review-round.md "A CLI without credentials"). "" otherwise.
func noCredentials(presetName string, oc preset.Outcome) string {
	lg := preset.LoginOf(presetName)
	if lg == nil || !lg.Silent || len(oc.Tools) > 0 || oc.Usage.Spent() || oc.ObservedModel != nil {
		return ""
	}
	home, _ := os.UserHomeDir()
	if lg.HasCredentials(os.Getenv, home) {
		return ""
	}
	return fmt.Sprintf("authentication: %s has no credentials (%s): run `%s`", presetName, lg.Places(os.Getenv, home), lg.Command)
}

// executableName is the name G14 resolves for a reviewer: argv[0] of a
// command (argv after the placeholders' replacement), else binary when set
// and not empty, else the preset's name.
func executableName(c envelope.Reviewer, argv []string) string {
	switch {
	case c.Preset == "command" && len(argv) > 0:
		return argv[0]
	case c.Binary != nil && *c.Binary != "":
		return *c.Binary
	}
	return c.Preset
}

func firstNonEmptyLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}

func lastLine(s string) string {
	ls := strings.Split(strings.TrimSpace(s), "\n")
	l := strings.TrimSpace(ls[len(ls)-1])
	if len(l) > 300 {
		l = l[:300] + "…"
	}
	return l
}

func lastLineNote(s string) string {
	if l := lastLine(s); l != "" {
		return ": " + l
	}
	return ""
}
