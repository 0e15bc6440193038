package runner

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jaekit/spar/lib/preset"
	"github.com/jaekit/spar/lib/refusal"
	"github.com/jaekit/spar/lib/sandbox"
)

// OutputCap is the most of a reviewer's stdout, and of its stderr, that spar
// keeps: past it the reviewer is stopped and fails (never unbounded memory
// or disk).
const OutputCap = 64 << 20

// Grace is how long a process group has between SIGTERM and SIGKILL.
var Grace = 3 * time.Second

// StopGrace is Grace when spar-exec is interrupted (StopAll): a user who
// pressed Ctrl-C waits for the reviewers' end, so that what ignores
// SIGTERM is killed sooner (docs/review-round.md "Interrupted").
var StopGrace = time.Second

// stopping is set by StopAll: from then on no reviewer process starts (a
// version check stopped is no cause to start the review, nor a quota
// refusal one to start the fallback model).
var stopping atomic.Bool

// errStopping is the start error of a process after StopAll.
var errStopping = errors.New("spar was interrupted: no reviewer starts any more")

// sink is where one output stream goes: a file (the reviewer folder's stdout
// and stderr) or memory (the version check), capped at limit bytes.
type sink struct {
	file  *os.File
	mem   bytes.Buffer
	limit int64
	n     int64
	over  bool
}

func (s *sink) write(p []byte) {
	if s.over {
		return
	}
	room := s.limit - s.n
	if int64(len(p)) > room {
		p = p[:room]
		s.over = true
	}
	s.n += int64(len(p))
	if s.file != nil {
		s.file.Write(p)
	} else {
		s.mem.Write(p)
	}
}

// procResult is how one process ended.
type procResult struct {
	started   bool
	startErr  error
	exitCode  *int
	signal    string
	timedOut  bool   // the deadline passed
	violation string // the monitor stopped it (G10, G11)
	// refusal is the retry message that held a refusal phrase of docs/review-round.md "Refusal phrases":
	// the attempt was stopped at once (docs/review-round.md §4).
	refusal *refusal.Match
	overCap string // "stdout" or "stderr" passed OutputCap
	// budget is why a budget stopped the attempt (docs/review-round.md
	// "Spend and budgets"): its own, or the round's.
	budget string
	// sandbox is what confined the process (docs/sandbox.md): "landlock
	// ABI 7; pid namespace", or "none: <why>".
	sandbox string
	// env names the environment variables the process got (nil: spar-exec's
	// whole environment, SPAR_SANDBOX=off).
	env []string
	// policy is the sandbox policy it was started with (what sandbox says
	// whether it applied).
	policy sandbox.Policy
}

// sandboxFor is the sandbox of reviewer r's processes (docs/sandbox.md): it
// reads the workspace and its inputs (prompt, schema, input files), and the
// executable's install folder unless that folder holds the round, its
// series or the reviewed repository, lies inside one of them, or is the
// home folder.
func sandboxFor(r Reviewer, presetName, exe string) sandbox.Reviewer {
	var inputs []string
	for _, f := range []string{r.Prompt, r.SchemaPath} {
		if f != "" {
			inputs = append(inputs, f)
		}
	}
	var protect []string
	if r.Dir != "" {
		for _, f := range r.Input.Files {
			inputs = append(inputs, filepath.Join(r.Dir, filepath.FromSlash(f.Name)))
		}
		round := filepath.Dir(r.Dir)
		protect = append(protect, round, filepath.Dir(round))
	}
	if r.Repo != "" {
		protect = append(protect, r.Repo)
	}
	home, _ := os.UserHomeDir()
	return sandbox.Reviewer{Preset: presetName, Exe: exe, Workspace: r.Workspace, Inputs: inputs, Home: home, Protect: protect, Env: r.Config.Env}
}

// runProcess runs inv in its own process group with cwd as its folder until
// it exits or deadline passes, inside the sandbox box describes (a scratch
// folder of its own is made for it and removed after; docs/sandbox.md). Every stdout line goes to mon (nil: none) as
// it arrives. On the deadline, a violation or an output past its cap, the
// whole group gets SIGTERM, then SIGKILL after Grace; after the leader exits
// the group gets SIGKILL anyway, so that no grandchild outlives the reviewer.
func runProcess(inv preset.Invocation, box sandbox.Reviewer, cwd string, deadline time.Time, out, errs *sink, mon preset.Monitor, met *meter) procResult {
	var res procResult
	if stopping.Load() {
		res.startErr = errStopping
		return res
	}
	argv := append([]string(nil), inv.Args...)
	if !strings.Contains(argv[0], "/") {
		// As exec.Command would: the launcher gets a path.
		p, err := exec.LookPath(argv[0])
		if err != nil {
			res.startErr = err
			return res
		}
		argv[0] = p
	}
	scratch, err := os.MkdirTemp("", "spar-reviewer-")
	if err != nil {
		res.startErr = err
		return res
	}
	defer removeScratch(scratch)
	box.Scratch = scratch
	box.Require = inv.Confined
	policy := sandbox.For(box)
	policy.GraceMS = Grace.Milliseconds()
	res.policy = policy
	// The allowlisted environment (docs/sandbox.md "The environment"),
	// part of the sandbox: SPAR_SANDBOX=off passes spar-exec's own.
	var env []string
	if sandbox.CurrentMode() != sandbox.Off {
		env, res.env = sandbox.Environment(box.Preset, box.Env, os.Environ())
		if env == nil {
			env = []string{} // nil would be the whole environment
		}
		// The launcher sets these to the scratch folder.
		for _, k := range []string{"TEMP", "TMP", "TMPDIR"} {
			if !slices.Contains(res.env, k) {
				res.env = append(res.env, k)
			}
		}
		slices.Sort(res.env)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		res.startErr = err
		return res
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		res.startErr = err
		return res
	}
	var stdin *os.File
	var stdinW *os.File
	if inv.Stdin != nil {
		r, w, err := os.Pipe()
		if err != nil {
			res.startErr = err
			return res
		}
		stdin = r
		stdinW = w
		defer r.Close()
	} else {
		null, err := os.Open(os.DevNull)
		if err != nil {
			res.startErr = err
			return res
		}
		defer null.Close()
		stdin = null
	}
	mk := func(path string, args []string) *exec.Cmd {
		return &exec.Cmd{Path: path, Args: args, Dir: cwd, Env: env, Stdin: stdin, Stdout: outW, Stderr: errW,
			SysProcAttr: &syscall.SysProcAttr{Setpgid: true}}
	}
	boxed, err := sandbox.Start(policy, argv, mk)
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		if stdinW != nil {
			stdinW.Close()
		}
		res.startErr = err
		return res
	}
	res.started = true
	cmd := boxed.Cmd
	pgid := cmd.Process.Pid
	groups.Store(pgid, struct{}{})
	defer groups.Delete(pgid)
	if stopping.Load() {
		// StopAll ran while this process started: it may not have seen it.
		syscall.Kill(-pgid, syscall.SIGKILL)
	}
	if stdinW != nil {
		go func() {
			// A reviewer that exits before reading its input is not an
			// error here: its exit status says what happened.
			io.WriteString(stdinW, *inv.Stdin)
			stdinW.Close()
		}()
	}

	stop := make(chan struct{}, 2)
	var mu sync.Mutex
	request := func(f func()) {
		mu.Lock()
		f()
		mu.Unlock()
		select {
		case stop <- struct{}{}:
		default:
		}
	}
	if met != nil {
		// The round's budget spent by another reviewer stops this one.
		met.attach(func(why string) {
			request(func() {
				if res.budget == "" {
					res.budget = why
				}
			})
		})
		defer met.detach()
	}
	var readers sync.WaitGroup
	readers.Add(2)
	go func() {
		defer readers.Done()
		pump(outR, out, mon, func(sig preset.Signal) bool {
			if sig.Violation != "" {
				request(func() { res.violation = sig.Violation })
				return true
			}
			if sig.Retry != "" {
				if m := refusal.Scan(sig.Retry); m.Refused() {
					request(func() { res.refusal = &m })
					return true
				}
			}
			if sig.Spend != nil && met != nil {
				if why := met.observe(*sig.Spend); why != "" {
					request(func() {
						if res.budget == "" {
							res.budget = why
						}
					})
					return true
				}
			}
			return false
		}, func() { request(func() { res.overCap = "stdout" }) })
	}()
	go func() {
		defer readers.Done()
		pump(errR, errs, nil, nil, func() { request(func() { res.overCap = "stderr" }) })
	}()

	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	var waitErr error
	select {
	case waitErr = <-done:
	case <-timer.C:
		res.timedOut = true
		waitErr = terminate(pgid, done)
	case <-stop:
		waitErr = terminate(pgid, done)
	}
	syscall.Kill(-pgid, syscall.SIGKILL)
	// The readers end when every writer of the pipes is gone. A grandchild
	// that left the group could keep them open: do not wait for it.
	finished := make(chan struct{})
	go func() { readers.Wait(); close(finished) }()
	select {
	case <-finished:
	case <-time.After(Grace):
		outR.Close()
		errR.Close()
		<-finished
	}
	outR.Close()
	errR.Close()

	rep := boxed.Finish()
	res.sandbox = rep.Sandbox
	if rep.StartErr != nil {
		// The launcher could not start the reviewer (as cmd.Start would
		// have failed without it).
		res.started, res.startErr = false, rep.StartErr
		return res
	}
	var ee *exec.ExitError
	if rep.Signal != 0 {
		// The launcher ends with 128+n for a reviewer a signal ended.
		res.signal = rep.Signal.String()
	} else if errors.As(waitErr, &ee) || waitErr == nil {
		ps := cmd.ProcessState
		if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			res.signal = ws.Signal().String()
		} else {
			c := ps.ExitCode()
			res.exitCode = &c
		}
	}
	mu.Lock()
	defer mu.Unlock()
	return res
}

// removeScratch removes a reviewer's scratch folder once its processes
// ended. The reviewer owns its folders and may have taken their rights
// away (chmod 0, chmod 500), which os.RemoveAll does not give back: each
// folder (a symbolic link is not one: WalkDir does not follow them) gets
// them back first (docs/sandbox.md).
func removeScratch(dir string) {
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if d != nil && d.IsDir() {
			os.Chmod(path, 0o700)
		}
		return nil
	})
	os.RemoveAll(dir)
}

// groups holds the process groups of the reviewers running now.
var groups sync.Map

// StopAll stops every reviewer process group running now: SIGTERM, then
// SIGKILL after StopGrace; no reviewer process starts after it. spar-exec
// calls it when it is itself interrupted, so that no reviewer outlives it
// (they are in their own groups and do not get the terminal's signals).
// It returns once every group is gone.
func StopAll() {
	stopping.Store(true)
	var pgids []int
	groups.Range(func(k, _ any) bool {
		pgids = append(pgids, k.(int))
		return true
	})
	for _, g := range pgids {
		syscall.Kill(-g, syscall.SIGTERM)
	}
	// A group is gone when no process is left in it or its runner reaped
	// its leader (a zombie leader still answers kill).
	alive := func(g int) bool {
		_, running := groups.Load(g)
		return running && syscall.Kill(-g, 0) == nil
	}
	deadline := time.Now().Add(StopGrace)
	for _, g := range pgids {
		for time.Now().Before(deadline) && alive(g) {
			time.Sleep(10 * time.Millisecond)
		}
		syscall.Kill(-g, syscall.SIGKILL)
	}
	deadline = time.Now().Add(StopGrace)
	for _, g := range pgids {
		for time.Now().Before(deadline) && alive(g) {
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// terminate sends SIGTERM to the group, then SIGKILL after Grace, and
// returns the leader's wait result.
func terminate(pgid int, done chan error) error {
	syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case err := <-done:
		return err
	case <-time.After(Grace):
		syscall.Kill(-pgid, syscall.SIGKILL)
		return <-done
	}
}

// pump copies r into s and hands each complete line to mon. stop gets each
// signal mon returns and says whether it stopped the reviewer (then mon
// gets no more lines); over is called once when s passes its cap. It reads
// until EOF so that the writer never blocks on a full pipe.
func pump(r io.Reader, s *sink, mon preset.Monitor, stop func(preset.Signal) bool, over func()) {
	buf := make([]byte, 64<<10)
	var line []byte
	watching := mon != nil
	feed := func(l []byte) {
		if !watching {
			return
		}
		if sig := mon.Line(l); (sig.Violation != "" || sig.Retry != "" || sig.Spend != nil) && stop(sig) {
			watching = false
		}
	}
	for {
		n, err := r.Read(buf)
		if n > 0 {
			wasOver := s.over
			s.write(buf[:n])
			if s.over && !wasOver {
				over()
			}
			if !s.over && watching {
				chunk := buf[:n]
				for {
					i := bytes.IndexByte(chunk, '\n')
					if i < 0 {
						line = append(line, chunk...)
						break
					}
					if len(line) > 0 {
						line = append(line, chunk[:i]...)
						feed(line)
						line = line[:0]
					} else {
						feed(chunk[:i])
					}
					chunk = chunk[i+1:]
				}
			}
		}
		if err != nil {
			break
		}
	}
	if len(line) > 0 && !s.over {
		feed(line)
	}
}
