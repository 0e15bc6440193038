// Package fixcheck runs a fix claim's check (spar triage --check,
// docs/review-round.md "Verified fix claims"): the same shell command, in
// the fix-check sandbox (sandbox.ForCheck: the tree read only, a scratch
// HOME and TMPDIR of each run's own, read-only Go caches, no network),
// twice on the round's head with the check files taken from the fix commit
// (it must fail both times) and twice on the fix commit (it must pass both
// times), each side in a fresh tree built from the workspace blob store,
// never in the user's working tree. The project's own check_command runs
// once on the head and once on the fix. What ran and what it printed
// (bounded, the tail kept) is a round.FixCheck and its output files; the
// verdict on it is Judge, the one rule the triage and the gate share.
package fixcheck

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jaekit/spar/lib/config"
	"github.com/jaekit/spar/lib/gitx"
	"github.com/jaekit/spar/lib/glob"
	"github.com/jaekit/spar/lib/round"
	"github.com/jaekit/spar/lib/sandbox"
	"github.com/jaekit/spar/lib/workspace"
)

// Bounds of one run's output: what a run may write before it is stopped,
// and what of it the round keeps (the tail).
const (
	MaxOutput = 16 << 20
	KeepTail  = 64 << 10
	// Runs is how many times each side runs: two runs of the same tree
	// that disagree make the check flaky, and a flaky check verifies
	// nothing.
	Runs = 2
	// grace is how long a stopped check's processes get after SIGTERM.
	grace = 2 * time.Second
)

// Output file names in a check's folder.
const (
	fileBefore        = "before-%d.txt"
	fileAfter         = "after-%d.txt"
	fileRegressionAt  = "regression-head.txt"
	fileRegressionFix = "regression-fix.txt"
)

// Request is one check to run.
type Request struct {
	Repo    string // the repository (its .git holds both commits)
	Head    string // the head of the finding's round (full ID)
	Fix     string // the fix commit (full ID)
	Command string // the shell command line (sh -c)
	// Environ is the caller's environment: only PATH, LANG and LC_ALL are
	// taken from it.
	Environ []string
	// AllowRegression is the user's words that let the fix break the
	// project's check_command; recorded only when it does.
	AllowRegression string
	// Progress, when not nil, gets one line per run as it starts.
	Progress io.Writer
}

// Result is what Run saw: the record (Output paths relative to the
// check's folder), the output files by name, and why it does not verify
// ("" when it does).
type Result struct {
	// Verify is verify_fixes of the fix commit's project configuration.
	Verify  string
	Check   round.FixCheck
	Outputs map[string][]byte
	Refusal string
}

// Run builds the two trees, runs the check and the project's check
// command, and judges the runs. An error is one the check never ran past
// (git, the workspace); a check that ran and did not verify is a Result
// with a Refusal.
func Run(ctx context.Context, req Request) (Result, error) {
	res := Result{Outputs: map[string][]byte{}}
	c := &res.Check
	c.Command, c.Head, c.Fix = req.Command, req.Head, req.Fix
	proj, paths, err := projectAt(req.Repo, req.Fix)
	if err != nil {
		return res, err
	}
	c.CheckPaths, c.TimeoutSeconds, res.Verify = paths, proj.TimeoutSeconds, proj.Verify
	ht, err := gitx.LoadTree(req.Repo, req.Head)
	if err != nil {
		return res, err
	}
	ft, err := gitx.LoadTree(req.Repo, req.Fix)
	if err != nil {
		return res, err
	}
	files, err := CheckFiles(ht, ft, paths)
	if err != nil {
		return res, err
	}
	c.Files = files

	root, _, err := workspace.Root()
	if err != nil {
		return res, fmt.Errorf("the workspace cache: %v", err)
	}
	parent := filepath.Join(root, "checks")
	if err := os.MkdirAll(parent, 0o700); err != nil {
		return res, err
	}
	dir, err := os.MkdirTemp(parent, time.Now().UTC().Format("20060102T150405")+"-")
	if err != nil {
		return res, err
	}
	defer func() {
		workspace.MakeWritable(dir)
		os.RemoveAll(dir)
	}()
	st, _ := workspace.StoreOf(root)
	sd, err := prepare(req.Repo, req.Head, req.Fix, ht, ft, dir, st, files)
	if err != nil {
		return res, err
	}
	env := checkEnv(req.Environ)
	caches := goCaches()
	timeout := time.Duration(c.TimeoutSeconds) * time.Second
	run := func(side func() (string, error), command, name, what string) round.CheckRun {
		if req.Progress != nil {
			fmt.Fprintf(req.Progress, "spar: check %s: %s\n", what, command)
		}
		tree, err := side()
		if err != nil {
			r := round.CheckRun{Exit: 127, Output: name}
			res.Outputs[name] = []byte("spar: the check's tree: " + err.Error() + "\n")
			return r
		}
		r, out, rep := runOnce(ctx, tree, command, env, caches, timeout)
		r.Output = name
		res.Outputs[name] = out
		if c.Sandbox == "" {
			c.Sandbox, c.Network = rep.Sandbox, rep.Network
		} else if c.Network != rep.Network && !strings.HasPrefix(c.Network, "open") {
			// One run without the closed network opens the record's.
			c.Network = rep.Network
		}
		return r
	}
	if proj.Command != "" {
		c.Regression = &round.Regression{Command: proj.Command}
		c.Regression.AtHead = run(sd.head, proj.Command, fileRegressionAt, "check_command at the round's head "+short(req.Head))
	}
	before, after := sd.before, sd.fix
	headWhat := "before the fix (" + short(req.Head) + " with the check files)"
	fixWhat := "after the fix (" + short(req.Fix) + ")"
	for i := 1; i <= Runs; i++ {
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		c.Before = append(c.Before, run(before, req.Command, fmt.Sprintf(fileBefore, i), fmt.Sprintf("%s, run %d", headWhat, i)))
		c.After = append(c.After, run(after, req.Command, fmt.Sprintf(fileAfter, i), fmt.Sprintf("%s, run %d", fixWhat, i)))
		if i == 1 && (passed(c.Before[0]) || !passed(c.After[0])) {
			// Refuted by the first pair: a second would say nothing more.
			break
		}
	}
	if c.Regression != nil && len(c.After) == Runs {
		c.Regression.AtFix = run(after, proj.Command, fileRegressionFix, "check_command at the fix "+short(req.Fix))
	}
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	for name, out := range res.Outputs {
		sum := sha256.Sum256(out)
		for _, r := range runsOf(c) {
			if r.Output == name {
				r.SHA256 = hex.EncodeToString(sum[:])
			}
		}
	}
	if Regressed(*c) {
		c.Regression.Allowed = req.AllowRegression
	}
	res.Refusal = Judge(*c)
	if res.Refusal == "" && res.Verify == config.VerifyRequired && !strings.HasPrefix(c.Network, "closed") {
		res.Refusal = fmt.Sprintf("it ran with the network open (%s), and the fix commit's %s says verify_fixes = %q: only a check without the network verifies a fix there (run spar triage where the kernel gives user namespaces, and without SPAR_SANDBOX=off)", c.Network, config.ProjectFile, config.VerifyRequired)
	}
	if res.Refusal != "" {
		res.Refusal += "\n" + tails(*c, res.Outputs)
	}
	return res, nil
}

// runsOf lists every run of a record, for filling in their digests.
func runsOf(c *round.FixCheck) []*round.CheckRun {
	var out []*round.CheckRun
	for i := range c.Before {
		out = append(out, &c.Before[i])
	}
	for i := range c.After {
		out = append(out, &c.After[i])
	}
	if c.Regression != nil {
		out = append(out, &c.Regression.AtHead)
		if c.Regression.AtFix.Output != "" {
			out = append(out, &c.Regression.AtFix)
		}
	}
	return out
}

func passed(r round.CheckRun) bool { return r.Exit == 0 && !r.TimedOut && r.Bytes <= MaxOutput }

// Judge says why a check record does not verify its fix ("" when it
// does): both runs of the round's head fail and both runs of the fix
// pass, none past its time limit or its output bound, and a project check
// that passed at the head and fails at the fix has the user's words. It
// reads the record only: the gate re-derives the record from the files
// and git before it asks.
func Judge(c round.FixCheck) string {
	if strings.TrimSpace(c.Command) == "" {
		return "the record names no command"
	}
	for _, side := range []struct {
		runs []round.CheckRun
		name string
	}{{c.Before, "before the fix"}, {c.After, "after the fix"}} {
		for i, r := range side.runs {
			switch {
			case r.TimedOut:
				return fmt.Sprintf("run %d %s passed its time limit of %d s", i+1, side.name, c.TimeoutSeconds)
			case r.Bytes > MaxOutput:
				return fmt.Sprintf("run %d %s wrote more than %d MiB", i+1, side.name, MaxOutput>>20)
			}
		}
	}
	switch {
	case len(c.Before) == 0 || len(c.After) == 0:
		return "the record has no runs of both sides"
	case c.Before[0].Exit == 0:
		return fmt.Sprintf("it passed before the fix (exit 0 on the round's head %s with the check files from the fix%s): a check that does not fail without the fix shows nothing about it", short(c.Head), filesNote(c))
	case c.After[0].Exit != 0:
		return fmt.Sprintf("it failed after the fix (exit %d on the fix %s)", c.After[0].Exit, short(c.Fix))
	case len(c.Before) != Runs || len(c.After) != Runs:
		return fmt.Sprintf("the record has %d runs before and %d after the fix; a verified check has %d of each", len(c.Before), len(c.After), Runs)
	case (c.Before[1].Exit == 0) != (c.Before[0].Exit == 0):
		return fmt.Sprintf("it is flaky: its two runs before the fix disagree (exit %d, then %d on the same tree)", c.Before[0].Exit, c.Before[1].Exit)
	case (c.After[1].Exit == 0) != (c.After[0].Exit == 0):
		return fmt.Sprintf("it is flaky: its two runs after the fix disagree (exit %d, then %d on the same tree)", c.After[0].Exit, c.After[1].Exit)
	}
	if g := c.Regression; g != nil && g.AtHead.Exit == 0 && !g.AtHead.TimedOut && !passed(g.AtFix) && strings.TrimSpace(g.Allowed) == "" {
		return fmt.Sprintf("the project's check_command %q passed on the round's head and fails on the fix (exit %d): the fix breaks another check (give --allow-regression with the user's words to record it anyway)", g.Command, g.AtFix.Exit)
	}
	return ""
}

// Regressed says whether the project's check passed at the head and fails
// at the fix.
func Regressed(c round.FixCheck) bool {
	g := c.Regression
	return g != nil && g.AtHead.Exit == 0 && !g.AtHead.TimedOut && g.AtFix.Output != "" && !passed(g.AtFix)
}

func filesNote(c round.FixCheck) string {
	if len(c.Files) == 0 {
		if len(c.CheckPaths) == 0 {
			return "; no check files: the fix commit's .jaekit/spar.toml lists no check_paths, so a test the fix adds is missing before it only if check_paths name it"
		}
		return "; no check files: the fix changes no file under its check_paths " + strings.Join(c.CheckPaths, ", ")
	}
	names := make([]string, 0, len(c.Files))
	for _, f := range c.Files {
		names = append(names, f.Path)
	}
	return ": " + strings.Join(names, ", ")
}

// tails shows the first pair's output tails (the last 2 KiB each) for a
// refusal.
func tails(c round.FixCheck, outs map[string][]byte) string {
	var b strings.Builder
	show := func(label string, r round.CheckRun) {
		out := outs[r.Output]
		const most = 2 << 10
		note := ""
		if len(out) > most {
			out = out[len(out)-most:]
			note = ", its last 2 KiB"
		}
		fmt.Fprintf(&b, "--- %s: exit %d after %.1f s%s:\n%s", label, r.Exit, float64(r.DurationMS)/1000, note, out)
		if len(out) > 0 && out[len(out)-1] != '\n' {
			b.WriteByte('\n')
		}
	}
	for i, r := range c.Before {
		show(fmt.Sprintf("before the fix (%s with the check files), run %d", short(c.Head), i+1), r)
	}
	for i, r := range c.After {
		show(fmt.Sprintf("after the fix (%s), run %d", short(c.Fix), i+1), r)
	}
	if g := c.Regression; g != nil {
		show("check_command at the head", g.AtHead)
		if g.AtFix.Output != "" {
			show("check_command at the fix", g.AtFix)
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

func short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// projectAt reads the fix-check keys and check_paths of the project
// configuration the commit holds (none: the defaults, no check paths).
func projectAt(repo, commit string) (config.FixChecks, []string, error) {
	b, err := gitx.Git(repo, "cat-file", "blob", commit+":"+config.ProjectFile)
	if err != nil {
		// No project configuration at that commit: the defaults.
		if _, terr := gitx.Git(repo, "cat-file", "-e", commit+"^{commit}"); terr != nil {
			return config.FixChecks{}, nil, terr
		}
		fc, _ := config.ProjectFixChecks(config.ProjectFile, nil)
		return fc, []string{}, nil
	}
	file := config.ProjectFile + " at " + short(commit)
	fc, err := config.ProjectFixChecks(file, b)
	if err != nil {
		return fc, nil, err
	}
	paths, err := config.ProjectCheckPaths(file, b)
	if err != nil {
		return fc, nil, err
	}
	return fc, paths, nil
}

// CheckFiles are the files the fix commit adds or changes against the
// round's head (a rename by its new path; a mode change too) under the
// check paths, with their blobs at both commits, in path order; read from
// the two commits' trees, which the check's own tree is built from too.
func CheckFiles(ht, ft *gitx.Tree, checkPaths []string) ([]round.CheckFile, error) {
	set, err := glob.CompileAll(checkPaths)
	if err != nil {
		return nil, err
	}
	out := []round.CheckFile{}
	ft.Each(func(p string, b gitx.Blob) {
		if hb, ok := ht.Blob(p); ok && hb == b {
			return
		}
		if _, ok := set.Match(p); !ok {
			return
		}
		f := round.CheckFile{Path: p, AtFix: b.ID}
		if hb, ok := ht.Blob(p); ok {
			f.AtHead = hb.ID
		}
		out = append(out, f)
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// sides are the trees a check runs in, each returned ready: the round's
// head as it is (the project's check_command), the head with the fix's
// check files (before), and the fix (after).
type sides struct {
	head, before, fix func() (string, error)
}

// prepare builds the check's trees in dir: one tree of the fix whose
// differing paths are swapped in place for each side (swapTree), or,
// where the two commits cannot share a tree, one tree each.
func prepare(repo, head, fix string, ht, ft *gitx.Tree, dir string, st *workspace.Store, files []round.CheckFile) (sides, error) {
	if _, err := workspace.Build(repo, fix, "", dir, st); err != nil {
		return sides{}, fmt.Errorf("the check's tree: %v", err)
	}
	tree := filepath.Join(dir, workspace.Head)
	sw, err := newSwap(repo, ht, ft, tree, filepath.Join(dir, "sides"), files)
	if err == nil {
		workspace.MakeWritable(tree)
		at := func(h, checks bool) func() (string, error) {
			return func() (string, error) { return tree, sw.show(h, checks) }
		}
		return sides{head: at(true, false), before: at(true, true), fix: at(false, false)}, nil
	}
	// Two trees: the head's beside the fix's, the check files put in
	// once the project's check ran on the head as it is.
	base := filepath.Join(dir, "two")
	if err := os.Mkdir(base, 0o755); err != nil {
		return sides{}, err
	}
	if _, err := workspace.Build(repo, head, "", base, st); err != nil {
		return sides{}, fmt.Errorf("the check's trees: %v", err)
	}
	htree := filepath.Join(base, workspace.Head)
	overlaid := false
	return sides{
		head: func() (string, error) {
			if overlaid {
				return "", fmt.Errorf("the head's tree holds the check files already")
			}
			return htree, nil
		},
		before: func() (string, error) {
			if !overlaid {
				if err := overlay(htree, tree, files); err != nil {
					return "", fmt.Errorf("the check files: %v", err)
				}
				overlaid = true
			}
			return htree, nil
		},
		fix: func() (string, error) { return tree, nil },
	}, nil
}

// overlay puts the fix's check files into the head's tree: each replaces
// what the head has at its path (hard links of the fix tree's read-only
// files; a copy where a link fails).
func overlay(tree, fixTree string, files []round.CheckFile) error {
	if len(files) == 0 {
		return nil
	}
	workspace.MakeWritable(tree)
	for _, f := range files {
		dst := filepath.Join(tree, filepath.FromSlash(f.Path))
		src := filepath.Join(fixTree, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := os.RemoveAll(dst); err != nil {
			return err
		}
		if err := os.Link(src, dst); err != nil {
			b, rerr := os.ReadFile(src)
			if rerr != nil {
				return err
			}
			if werr := os.WriteFile(dst, b, 0o444); werr != nil {
				return werr
			}
		}
	}
	return nil
}

// goDirs are the Go folders a check reads (never writes): the module
// cache, GOROOT and the build cache, as `go env` gives them where go is on
// the PATH ("" each when not).
type goDirs struct{ modcache, goroot, buildcache string }

var goEnv = sync.OnceValue(func() goDirs {
	out, err := exec.Command("go", "env", "GOMODCACHE", "GOROOT", "GOCACHE").Output()
	if err != nil {
		return goDirs{}
	}
	ls := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(ls) != 3 {
		return goDirs{}
	}
	for i, l := range ls {
		if !filepath.IsAbs(l) {
			ls[i] = ""
		}
	}
	return goDirs{ls[0], ls[1], ls[2]}
})

// goCaches lists the folders of goEnv that are set, and spar-record's own
// executable: go runs it as the check's cache program (gocache.go).
func goCaches() []string {
	var out []string
	g := goEnv()
	for _, d := range []string{g.modcache, g.goroot, g.buildcache} {
		if d != "" {
			out = append(out, d)
		}
	}
	if exe, err := os.Executable(); err == nil {
		out = append(out, exe)
	}
	return out
}

// checkEnv is a check's environment (docs/sandbox.md "Fix checks"): PATH,
// LANG and LC_ALL from the caller, nothing else of it (no token, no
// agent socket); Go set to build offline from the read-only module cache
// with a build cache of the run's own. HOME, GOCACHE and the temporary
// folder are set per run (runOnce).
func checkEnv(environ []string) []string {
	env := []string{}
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		if k == "PATH" || k == "LANG" || k == "LC_ALL" {
			env = append(env, kv)
		}
	}
	env = append(env, "TERM=dumb", "GOPROXY=off", "GOSUMDB=off", "GOFLAGS=-mod=readonly", "GOTOOLCHAIN=local", "GOTELEMETRY=off")
	if m := goEnv().modcache; m != "" {
		env = append(env, "GOMODCACHE="+m)
	}
	return env
}

// runOnce runs command in tree under the fix-check sandbox with a scratch
// folder of its own (HOME, TMPDIR, GOCACHE), removed afterwards.
func runOnce(ctx context.Context, tree, command string, env, caches []string, timeout time.Duration) (round.CheckRun, []byte, sandbox.Report) {
	var r round.CheckRun
	scratch, err := os.MkdirTemp("", "spar-check-")
	if err != nil {
		return round.CheckRun{Exit: 127}, []byte("spar: no scratch folder: " + err.Error() + "\n"), sandbox.Report{}
	}
	defer os.RemoveAll(scratch)
	home := filepath.Join(scratch, "home")
	os.Mkdir(home, 0o700)
	env = append(append([]string{}, env...), "HOME="+home, "GOCACHE="+filepath.Join(scratch, "go-build"), "TMPDIR="+scratch)
	if seed := goEnv().buildcache; seed != "" {
		if exe, err := os.Executable(); err == nil {
			if prog := CacheCommand(exe, seed, filepath.Join(scratch, "go-cacheprog")); prog != "" {
				env = append(env, "GOCACHEPROG="+prog)
			}
		}
	}
	p := sandbox.ForCheck(sandbox.Check{Tree: tree, Scratch: scratch, Caches: caches})
	p.GraceMS = grace.Milliseconds()
	out := &tail{keep: KeepTail, max: MaxOutput}
	mk := func(path string, args []string) *exec.Cmd {
		return &exec.Cmd{Path: path, Args: args, Dir: tree, Env: env, Stdout: out, Stderr: out,
			SysProcAttr: &syscall.SysProcAttr{Setpgid: true}, WaitDelay: grace}
	}
	start := time.Now()
	boxed, err := sandbox.Start(p, []string{"/bin/sh", "-c", command}, mk)
	if err != nil {
		r.Exit, r.DurationMS = 127, time.Since(start).Milliseconds()
		b := []byte("spar: the check could not start: " + err.Error() + "\n")
		return r, b, sandbox.Report{Sandbox: "none: it did not start", Network: "open: it did not start"}
	}
	pid := boxed.Cmd.Process.Pid
	stopped := make(chan struct{})
	var timedOut, over bool
	var mu sync.Mutex
	stop := func(why *bool) {
		mu.Lock()
		defer mu.Unlock()
		if *why || timedOut || over {
			return
		}
		*why = true
		syscall.Kill(-pid, syscall.SIGTERM)
		time.AfterFunc(grace+time.Second, func() { syscall.Kill(-pid, syscall.SIGKILL) })
	}
	out.onOver = func() { go stop(&over) }
	go func() {
		t := time.NewTimer(timeout)
		defer t.Stop()
		select {
		case <-t.C:
			stop(&timedOut)
		case <-ctx.Done():
			stop(&timedOut)
		case <-stopped:
		}
	}()
	werr := boxed.Cmd.Wait()
	close(stopped)
	rep := boxed.Finish()
	r.DurationMS = time.Since(start).Milliseconds()
	r.Exit = exitOf(boxed.Cmd, werr)
	mu.Lock()
	r.TimedOut = timedOut
	mu.Unlock()
	b, total, cut := out.result()
	r.Bytes, r.Cut = total, cut
	if rep.StartErr != nil {
		b = append(b, []byte("spar: the check could not start: "+rep.StartErr.Error()+"\n")...)
	}
	return r, b, rep
}

// exitOf is the run's exit status: 128+n for a signal.
func exitOf(cmd *exec.Cmd, err error) int {
	if cmd.ProcessState == nil {
		return 127
	}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) || err == nil {
		return cmd.ProcessState.ExitCode()
	}
	if code := cmd.ProcessState.ExitCode(); code >= 0 {
		return code
	}
	return 127
}

// tail keeps the last keep bytes written and counts them all; past max it
// calls onOver once.
type tail struct {
	mu     sync.Mutex
	keep   int
	max    int64
	buf    []byte
	total  int64
	onOver func()
	fired  bool
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.total += int64(len(p))
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2*t.keep {
		t.buf = append(t.buf[:0:0], t.buf[len(t.buf)-t.keep:]...)
	}
	if t.total > t.max && !t.fired && t.onOver != nil {
		t.fired = true
		t.onOver()
	}
	return len(p), nil
}

func (t *tail) result() ([]byte, int64, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.buf
	cut := t.total > int64(len(b))
	if len(b) > t.keep {
		b, cut = b[len(b)-t.keep:], true
	}
	return append([]byte(nil), b...), t.total, cut
}
