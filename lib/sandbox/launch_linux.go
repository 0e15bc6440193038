//go:build linux

package sandbox

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jaekit/spar/lib/proctree"
	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// statusFD is the launcher's report pipe (ExtraFiles[0]): one line
// "sandbox <what was applied>" before the reviewer starts, then
// "start <error>" when it could not start, or "signal <n>" when a signal
// ended it. It is closed on exec: the reviewer never holds it.
const statusFD = 3

// launch is the launcher: it starts the reviewer through confine (a second
// process that applies the policy to itself and executes the reviewer),
// passes it the signals it gets and ends every process the reviewer left
// once the reviewer ends. Its exit status is the reviewer's. The launcher
// itself stays outside the reviewer's Landlock domain: a reviewer in the
// same domain as a thread of the launcher could ptrace that thread and
// write the memory its unconfined threads run, and signal it
// (docs/sandbox.md, "Routes a hostile reviewer tried").
func launch(spec string, argv []string) int {
	status, report, p, ok := begin(spec, argv)
	if !ok {
		return 127
	}
	pid1 := os.Getpid() == 1
	if p.NoNetwork && pid1 {
		report("loopback %s", loopbackUp())
	}
	// The capability that brought the loopback up goes before anything
	// else starts: the reviewer's process drops every other one itself.
	unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
	if !pid1 {
		// Fallback containment: what the reviewer leaves behind becomes
		// ours, so that we can end it.
		unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	}
	// The parent-death signal follows the thread that forked: keep it.
	runtime.LockOSThread()
	cmd := &exec.Cmd{Path: "/proc/self/exe", Args: append([]string{os.Args[0], confineArg, spec}, argv...),
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, ExtraFiles: []*os.File{status}}
	cmd.Env = reviewerEnv(os.Environ(), p.Scratch)
	// The reviewer dies with us even outside a PID namespace.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	if err := cmd.Start(); err != nil {
		report("start %v", err)
		return 127
	}
	child := cmd.Process.Pid
	grace := time.Duration(p.GraceMS) * time.Millisecond
	if grace <= 0 {
		grace = 3 * time.Second
	}
	var once sync.Once
	go func() {
		for s := range sigs {
			signalAll(pid1, s.(syscall.Signal))
			// Whatever ignores it is killed a little before the caller's
			// own SIGKILL would end us first.
			once.Do(func() {
				time.AfterFunc(grace*4/5, func() { signalAll(pid1, syscall.SIGKILL) })
			})
		}
	}()
	// Reap every child (we are the subreaper or the namespace's init)
	// until the reviewer itself ends.
	var ws syscall.WaitStatus
	for {
		pid, err := syscall.Wait4(-1, &ws, 0, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil || pid == child {
			break
		}
	}
	signalAll(pid1, syscall.SIGKILL)
	if ws.Signaled() {
		report("signal %d", int(ws.Signal()))
		return 128 + int(ws.Signal())
	}
	return ws.ExitStatus()
}

// begin is how the launcher and confine start: the status pipe (fd 3,
// closed on exec), a report on it, and the policy; ok is false when the
// policy is no valid one or there is no reviewer to run (said on the pipe).
func begin(spec string, argv []string) (status *os.File, report func(string, ...any), p Policy, ok bool) {
	syscall.CloseOnExec(statusFD)
	status = os.NewFile(statusFD, "status")
	report = func(format string, a ...any) {
		if status != nil {
			fmt.Fprintf(status, format+"\n", a...)
		}
	}
	if err := json.Unmarshal([]byte(spec), &p); err != nil || len(argv) == 0 {
		report("start the launcher got no valid policy: %v", err)
		return status, report, p, false
	}
	return status, report, p, true
}

// confine is the launcher's second process, the reviewer-to-be: it applies
// the policy to its own thread (Landlock, the socket filter, no
// capabilities), reports what it applied on the status pipe, marks every
// descriptor but the standard files close-on-exec (one inherited from
// spar-exec's parent never reaches the reviewer) and executes the
// reviewer, which keeps all of it. It returns only when it could not.
func confine(spec string, argv []string) int {
	_, report, p, ok := begin(spec, argv)
	if !ok {
		return 127
	}
	// The ruleset goes on this thread only, and the reviewer is executed
	// from it: the all-threads way (psx) walks /proc/<getpid()>/task, which
	// in a PID namespace is another process's. execve ends the others.
	runtime.LockOSThread()
	applied := applyLandlock(p)
	sockets := applySocketFilter()
	// No capability survives into the reviewer (a root user's neither).
	dropCapabilities()
	report("sandbox %s; %s", applied, sockets)
	if why := unmet(p, applied); why != "" {
		report("start %s", why)
		return 127
	}
	if err := closeOnExecFrom(3); err != nil {
		report("start the launcher could not close its descriptors: %v", err)
		return 127
	}
	err := syscall.Exec(argv[0], argv, os.Environ())
	report("start %v", &os.PathError{Op: "fork/exec", Path: argv[0], Err: err})
	return 127
}

// closeOnExecFrom marks every descriptor from first up close-on-exec.
func closeOnExecFrom(first int) error {
	if unix.CloseRange(uint(first), ^uint(0), unix.CLOSE_RANGE_CLOEXEC) == nil {
		return nil
	}
	// Before Linux 5.11: one by one.
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return err
	}
	for _, e := range ents {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd >= first {
			syscall.CloseOnExec(fd)
		}
	}
	return nil
}

// unmet is why a reviewer whose policy has Require must not start once the
// launcher applied what applied says ("" when it may): its invocation
// relies on the ruleset (codex's --sandbox danger-full-access) and never
// runs without it.
func unmet(p Policy, applied string) string {
	if p.Require && !strings.HasPrefix(applied, "landlock ") {
		return "the reviewer relies on spar's Landlock ruleset, which was not applied (" + applied + ")"
	}
	return ""
}

// signalAll sends sig to every process of the reviewer's tree: as the init
// of a PID namespace, to the whole namespace (kill -1); else to every
// descendant found in /proc (children and what the subreaper took in).
func signalAll(pid1 bool, sig syscall.Signal) {
	if pid1 {
		syscall.Kill(-1, sig)
		return
	}
	for _, pid := range proctree.Descendants(os.Getpid()) {
		syscall.Kill(pid, sig)
	}
}

// reviewerEnv is the launcher's environment with TMPDIR, TMP and TEMP set to
// the scratch folder.
func reviewerEnv(env []string, scratch string) []string {
	if scratch == "" {
		return env
	}
	out := env[:0:0]
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if k == "TMPDIR" || k == "TMP" || k == "TEMP" {
			continue
		}
		out = append(out, kv)
	}
	return append(out, "TMPDIR="+scratch, "TMP="+scratch, "TEMP="+scratch)
}

// maxABI is the newest Landlock ABI go-landlock knows (V11).
const maxABI = 11

// applyLandlock restricts this process (and so the reviewer it starts) to
// the policy with every filesystem right and IPC scope the kernel's ABI has,
// and says what it applied: "landlock ABI n", or "none: <why>". The network
// is not restricted: the CLIs need their APIs (docs/sandbox.md).
func applyLandlock(p Policy) string {
	abi, err := llsys.LandlockGetABIVersion()
	if err != nil || abi < 1 {
		why := "the kernel has no Landlock"
		if err != nil {
			why += " (" + err.Error() + ")"
		}
		return "none: " + why
	}
	if abi > maxABI {
		abi = maxABI
	}
	var rules []landlock.Rule
	devices := false // the device files' rule gets ioctl
	// extra adds rights to the folders' rule only: refer (and the other
	// directory rights) on a file makes the kernel refuse the whole ruleset.
	add := func(paths []string, dir, file func(...string) landlock.FSRule, extra func(landlock.FSRule) landlock.FSRule) {
		var dirs, files []string
		for _, path := range paths {
			fi, err := os.Stat(path)
			if err != nil {
				continue // missing: nothing to grant
			}
			if fi.IsDir() {
				dirs = append(dirs, path)
			} else {
				files = append(files, path)
			}
		}
		if len(dirs) > 0 {
			rules = append(rules, extra(dir(dirs...).IgnoreIfMissing()))
		}
		if len(files) > 0 {
			r := file(files...).IgnoreIfMissing()
			if devices {
				r = r.WithIoctlDev()
			}
			rules = append(rules, r)
		}
	}
	same := func(r landlock.FSRule) landlock.FSRule { return r }
	add(p.Read, landlock.RODirs, landlock.ROFiles, same)
	add(p.Write, landlock.RWDirs, landlock.RWFiles, func(r landlock.FSRule) landlock.FSRule { return r.WithRefer() })
	if len(p.List) > 0 {
		// Listing only: what is in them is granted by the rules above.
		rules = append(rules, landlock.PathAccess(llsys.AccessFSReadDir, p.List...).IgnoreIfMissing())
	}
	devices = true
	add(p.Devices, landlock.RWDirs, landlock.RWFiles, func(r landlock.FSRule) landlock.FSRule { return r.WithIoctlDev() })
	fd, flags, err := rulesetConfig.NewRulesetFD(rules...)
	if err != nil {
		return "none: the kernel refused the Landlock ruleset: " + err.Error()
	}
	if fd < 0 {
		return "none: the kernel has no Landlock"
	}
	defer unix.Close(fd)
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return "none: no_new_privs: " + err.Error()
	}
	if err := llsys.LandlockRestrictSelf(fd, flags); err != nil {
		return "none: the kernel refused the Landlock ruleset: " + err.Error()
	}
	return fmt.Sprintf("landlock ABI %d", abi)
}

// rulesetConfig is what the launcher restricts: every filesystem right and
// IPC scope of the newest ABI, down to what the kernel has.
var rulesetConfig = landlock.Config{HandledAccessFS: landlock.V11.HandledAccessFS, Scoped: landlock.V11.Scoped}.BestEffort()

// probeLandlock says whether the kernel offers Landlock and creates a
// ruleset of rulesetConfig (then closed, never applied): Confines' check.
func probeLandlock() bool {
	if _, ok := Available(); !ok {
		return false
	}
	fd, _, err := rulesetConfig.NewRulesetFD()
	if err != nil || fd < 0 {
		return false
	}
	unix.Close(fd)
	return true
}

// Available says whether the kernel offers Landlock, and its ABI.
func Available() (int, bool) {
	abi, err := llsys.LandlockGetABIVersion()
	return abi, err == nil && abi >= 1
}

// pidnsBroken remembers that the kernel refused a PID namespace once: later
// reviewers go straight to the fallback.
var (
	pidnsMu     sync.Mutex
	pidnsBroken error
)

// Run is one reviewer process started through the launcher.
type Run struct {
	Cmd    *exec.Cmd
	status *os.File
	lines  chan []string
	proc   string // the process part of the record
	direct string // set when the reviewer runs without the launcher
	net    string // Report.Network
}

// Report is what the launcher said once the process ended.
type Report struct {
	Sandbox string // what was applied, or "none: <why>"
	// Network is what a policy with NoNetwork got: "closed: …" or
	// "open: <why>" ("" for a policy that keeps the network).
	Network  string
	StartErr error          // the launcher could not start the reviewer
	Signal   syscall.Signal // the signal that ended the reviewer (0: none)
}

// Start starts argv under policy p. mk returns a new, unstarted command for
// the given path and arguments with its folder, standard files and
// SysProcAttr (Setpgid) set; Start adds the launcher, the namespaces and the
// parent-death signal. The caller waits on Run.Cmd, then calls Finish.
func Start(p Policy, argv []string, mk func(path string, args []string) *exec.Cmd) (*Run, error) {
	mode := CurrentMode()
	direct := func(why string) (*Run, error) {
		r, err := startDirect(argv, mk, why)
		if r != nil && p.NoNetwork {
			r.net = "open: no sandbox (" + why + ")"
		}
		return r, err
	}
	if mode == Off {
		return direct(OffReason)
	}
	if !hooked {
		return direct("none: this program does not carry the sandbox launcher (sandbox.Main)")
	}
	spec, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	args := append([]string{os.Args[0], LaunchArg, string(spec)}, argv...)
	try := func(ns bool) (*Run, error) {
		r, w, err := os.Pipe()
		if err != nil {
			return nil, err
		}
		cmd := mk("/proc/self/exe", args)
		cmd.ExtraFiles = []*os.File{w}
		attr := cmd.SysProcAttr
		if attr == nil {
			attr = &syscall.SysProcAttr{}
		}
		attr.Pdeathsig = syscall.SIGKILL
		// A session of its own, without a controlling terminal: the
		// reviewer cannot open /dev/tty and push keystrokes (TIOCSTI)
		// into the user's shell. Its process group is the session's,
		// the launcher's pid, as Setpgid made it.
		attr.Setsid, attr.Setpgid = true, false
		if ns {
			// The user namespace maps the user to itself, so that the
			// files the reviewer writes stay the user's and the CLIs see
			// their own uid; the PID namespace ends the reviewer's whole
			// tree with the launcher, its first process.
			attr.Cloneflags = syscall.CLONE_NEWUSER | syscall.CLONE_NEWPID
			if p.NoNetwork {
				// A network namespace of its own; the launcher brings
				// its loopback up with the one capability it keeps for
				// that (then drops it, launch).
				attr.Cloneflags |= syscall.CLONE_NEWNET
				attr.AmbientCaps = []uintptr{unix.CAP_NET_ADMIN}
			}
			attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getuid(), HostID: os.Getuid(), Size: 1}}
			attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getgid(), HostID: os.Getgid(), Size: 1}}
			attr.GidMappingsEnableSetgroups = false
		}
		cmd.SysProcAttr = attr
		err = cmd.Start()
		w.Close()
		if err != nil {
			r.Close()
			return nil, err
		}
		run := &Run{Cmd: cmd, status: r, lines: make(chan []string, 1)}
		go func() {
			var ls []string
			sc := bufio.NewScanner(r)
			for sc.Scan() {
				ls = append(ls, sc.Text())
			}
			run.lines <- ls
		}()
		return run, nil
	}
	pidnsMu.Lock()
	broken := pidnsBroken
	pidnsMu.Unlock()
	why := ""
	switch {
	case mode == NoPIDNS:
		why = "turned off by " + EnvVar + "=nopidns"
	case broken != nil:
		why = broken.Error()
	default:
		run, err := try(true)
		if err == nil {
			run.proc = "pid namespace"
			if p.NoNetwork {
				run.net = "closed: a network namespace of its own"
			}
			return run, nil
		}
		if !errors.Is(err, syscall.EPERM) && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOSPC) &&
			!errors.Is(err, syscall.EACCES) && !errors.Is(err, syscall.EUSERS) {
			return nil, err
		}
		pidnsMu.Lock()
		pidnsBroken = fmt.Errorf("the kernel refused a user and PID namespace: %v", err)
		why = pidnsBroken.Error()
		pidnsMu.Unlock()
	}
	run, err := try(false)
	if err != nil {
		return nil, err
	}
	run.proc = "process group and parent-death signal (no pid namespace: " + why + ")"
	if p.NoNetwork {
		run.net = "open: no network namespace (" + why + ")"
	}
	return run, nil
}

func startDirect(argv []string, mk func(string, []string) *exec.Cmd, why string) (*Run, error) {
	cmd := mk(argv[0], argv)
	// Without the launcher too: a session of its own, no terminal.
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setsid, cmd.SysProcAttr.Setpgid = true, false
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &Run{Cmd: cmd, direct: why}, nil
}

// Finish reads what the launcher reported; call it after Cmd.Wait.
func (r *Run) Finish() Report {
	if r.direct != "" {
		return Report{Sandbox: r.direct, Network: r.net}
	}
	rep := Report{Network: r.net}
	var lines []string
	select {
	case lines = <-r.lines:
	case <-time.After(5 * time.Second):
		// Only the launcher holds the pipe; it is gone after Wait.
	}
	r.status.Close()
	fs := "none: the launcher ended before it applied anything"
	for _, l := range lines {
		k, v, _ := strings.Cut(l, " ")
		switch k {
		case "sandbox":
			fs = v
		case "start":
			rep.StartErr = errors.New(v)
		case "loopback":
			if rep.Network != "" {
				rep.Network += " (loopback " + v + ")"
			}
		case "signal":
			if n, err := strconv.Atoi(v); err == nil {
				rep.Signal = syscall.Signal(n)
			}
		}
	}
	rep.Sandbox = fs + "; " + r.proc
	return rep
}

// FollowParent makes the running program get SIGTERM when its parent dies
// (PR_SET_PDEATHSIG): spar-exec, whose parent is the driver, stops its
// reviewers when `spar run` is killed, SIGKILL included (docs/sandbox.md).
// Call it after the SIGTERM handler is in place.
func FollowParent() {
	ppid := os.Getppid()
	if err := unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(syscall.SIGTERM), 0, 0, 0); err != nil {
		return
	}
	if os.Getppid() != ppid {
		// The parent died before the request took hold.
		syscall.Kill(os.Getpid(), syscall.SIGTERM)
	}
}

// loopbackUp brings the loopback interface of the launcher's network
// namespace up (a new one has it down: a check's own server on 127.0.0.1
// could not listen) and says how it went: "up" or "down: <why>".
func loopbackUp() string {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return "down: " + err.Error()
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return "down: " + err.Error()
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return "down: " + err.Error()
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
		return "down: " + err.Error()
	}
	return "up"
}
