// Package sandbox confines each reviewer process (docs/sandbox.md): spar-exec
// re-executes itself through /proc/self/exe as a small launcher, which starts
// a second process of itself that applies a Landlock ruleset to itself and
// then executes the reviewer, which keeps it; the launcher stays outside it.
// The reviewer reads the workspace, the system folders, its own install folder
// and its inputs, and writes only a scratch folder (TMPDIR) and its CLI's state
// folders; the round's records, other rounds, the repository and the rest of
// the home folder are out of reach. The launcher runs as the first process of
// a new PID namespace inside a user namespace where the kernel allows it, so
// that the reviewer's whole tree (setsid included) dies with it; else it stays
// in the reviewer's process group with the parent-death signal, reaps what the
// reviewer leaves (a subreaper) and kills it when the reviewer ends.
//
// Where it cannot apply (not Linux, no Landlock, a kernel that refuses it, or
// SPAR_SANDBOX=off) the reviewer still runs, and the record says so
// ("none: <why>").
package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/jaekit/spar/lib/envelope"
)

// EnvVar turns the sandbox off for debugging (value "off") or keeps only its
// filesystem part ("nopidns": the fallback process containment); any other
// value, or none, is the whole sandbox (docs/sandbox.md).
const EnvVar = "SPAR_SANDBOX"

// LaunchArg is the hidden first argument that makes a spar binary the
// launcher (Main); it is not a subcommand a user types.
const LaunchArg = "__spar-sandbox-launch"

// confineArg is the hidden first argument of the launcher's second
// process, which applies the policy and executes the reviewer.
const confineArg = "__spar-sandbox-confine"

// Policy is what one reviewer process may touch. Paths are absolute; a path
// that does not exist is left out (IgnoreIfMissing): a folder is granted with
// everything beneath it, a file alone.
type Policy struct {
	Read    []string `json:"read"`    // read and execute
	Write   []string `json:"write"`   // read, write, create, remove, rename within
	Devices []string `json:"devices"` // device files: read, write and ioctl
	// List are folders whose entries may be listed, nothing more (a root
	// user's /etc, where only what every user may read is granted).
	List []string `json:"list,omitempty"`
	// Scratch is the reviewer's own folder for temporary files: writable,
	// TMPDIR, TMP and TEMP point there.
	Scratch string `json:"scratch"`
	// GraceMS is how long the launcher lets the reviewer's processes end
	// after SIGTERM before it kills them.
	GraceMS int64 `json:"grace_ms"`
	// Require, when set, makes the launcher refuse to start the reviewer
	// when it cannot apply the Landlock ruleset: the reviewer's invocation
	// relies on it (codex's --sandbox danger-full-access, chosen because
	// Confines said yes) and must never run unconfined instead.
	Require bool `json:"require,omitempty"`
	// NoNetwork gives the process a network namespace of its own (only
	// its loopback, brought up), where the kernel gives user namespaces:
	// a fix check's rule (docs/sandbox.md "Fix checks"). Reviewers keep
	// the network: the CLIs need their APIs. Report.Network says what
	// applied.
	NoNetwork bool `json:"no_network,omitempty"`
}

// Reviewer is what the policy of one reviewer process is built from.
type Reviewer struct {
	Preset    string   // claude, codex, agy, command
	Exe       string   // the resolved executable (G14)
	Workspace string   // the folder it reviews (may be a symlink)
	Inputs    []string // files it is given: prompt, schema, input files
	Scratch   string   // its TMPDIR (created by the caller)
	Home      string   // the user's home folder ("" when unknown)
	// Protect are folders the install folder must neither hold nor lie in
	// (the round folder, its series, the reviewed repository): an
	// executable that lives in one of them (a CLI in the repository's own
	// node_modules, whose install folder is the repository), or in the
	// home folder itself, gets only its own file. The reviewer reads the
	// repository's committed files through the workspace; its untracked
	// files (.env) and .git stay out of reach.
	Protect []string
	Getenv  func(string) string
	// Require: the invocation relies on the Landlock ruleset
	// (preset.Invocation.Confined); see Policy.Require.
	Require bool
	// Env are the variables (or prefixes ending in *) its configuration
	// entry names beyond its preset's (Environment).
	Env []string
	// DryRun: For only tells the policy and creates no state folder (spar
	// doctor's question, docs/sandbox.md "What the sandbox denies").
	DryRun bool
}

// systemRead are the system folders every reviewer reads and executes from:
// programs, libraries, configuration (certificates, resolv.conf, passwd),
// and /proc and /sys for what runtimes read of themselves (/proc/self, CPU
// and memory limits). /nix/store and /snap where they exist.
var systemRead = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
	"/etc", "/opt", "/proc", "/sys", "/nix/store", "/snap", "/dev/fd"}

// systemDevices are the device files the CLIs open: read, write, ioctl.
// Not /dev/tty: the reviewer has no terminal (its own session), and its
// ioctls are how keystrokes reach the user's shell (TIOCSTI). Not
// /dev/shm either: it is shared by every process of the machine, and
// TMPDIR may point there (the driver's pipeline folder would be in reach).
var systemDevices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"}

// ClaudeWritable are the parts of claude's state folder a claude reviewer
// may write (docs/sandbox.md, "claude's state folder"): what claude 2.1.328
// writes there when spar runs it, and its credentials (a refreshed login is
// saved). The rest of the folder (settings.json, CLAUDE.md, hooks, agents,
// commands, skills, plugins: what the user's own sessions load and run)
// and ~/.claude.json (MCP servers) are read-only.
var ClaudeWritable = struct{ Dirs, Files []string }{
	Dirs:  []string{"sessions"},
	Files: []string{".credentials.json"},
}

// StateFolders are a preset's own state folders and files under the home
// folder: read (and for claude only read) are read-only, dirs and files
// read and written: authentication, settings, sessions, caches. Missing
// folders of dirs are created (0700) before the reviewer starts, since it
// could not create them itself.
func StateFolders(preset, home string, getenv func(string) string) (read, dirs, files []string) {
	if home == "" && preset != envelope.PresetCodex {
		return nil, nil, nil
	}
	switch preset {
	case envelope.PresetClaude:
		// claude keeps ~/.claude.json beside ~/.claude, or both in
		// $CLAUDE_CONFIG_DIR.
		base := filepath.Join(home, ".claude")
		read = []string{base, filepath.Join(home, ".claude.json"), filepath.Join(home, ".claude.json.backup")}
		if d := getenv("CLAUDE_CONFIG_DIR"); d != "" {
			base = d
			read = []string{d}
		}
		for _, d := range ClaudeWritable.Dirs {
			dirs = append(dirs, filepath.Join(base, d))
		}
		for _, f := range ClaudeWritable.Files {
			files = append(files, filepath.Join(base, f))
		}
		return read, dirs, files
	case envelope.PresetCodex:
		// Under Landlock codex runs with --sandbox danger-full-access: no
		// bubblewrap of its own, so no /tmp/codex-daemon-<uid> either.
		if d := getenv("CODEX_HOME"); d != "" {
			return nil, []string{d}, nil
		}
		if home == "" {
			return nil, nil, nil
		}
		return nil, []string{filepath.Join(home, ".codex")}, nil
	case envelope.PresetAgy:
		return nil, []string{filepath.Join(home, ".gemini")}, nil
	}
	return nil, nil, nil
}

// InstallFolder is the folder a reviewer executable comes with, after its
// symlinks: for a program of an npm install the folder that holds the
// outermost node_modules (codex's JavaScript wrapper runs a native binary of
// another package there, claude its bundled tools), else the program's own
// folder.
func InstallFolder(exe string) string {
	real, err := filepath.EvalSymlinks(exe)
	if err != nil {
		real = exe
	}
	parts := strings.Split(filepath.ToSlash(real), "/")
	for i, p := range parts {
		if p == "node_modules" && i > 0 {
			return filepath.FromSlash(strings.Join(parts[:i], "/"))
		}
	}
	return filepath.Dir(real)
}

// For builds the policy of one reviewer process (docs/sandbox.md, the rules
// table). It creates the preset's missing state folders (not with
// SPAR_SANDBOX=off: nothing is sandboxed then).
func For(r Reviewer) Policy {
	getenv := r.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	p := Policy{Scratch: r.Scratch, Require: r.Require}
	for _, d := range systemRead {
		if d == "/etc" && os.Geteuid() == 0 {
			// The reviewer of a root user is uid 0, the owner of every
			// root-only file there (/etc/shadow, private keys): it reads
			// what every user may read.
			etcOnce.Do(func() { etcRead, etcList = worldReadable("/etc") })
			p.Read = append(p.Read, etcRead...)
			p.List = append(p.List, etcList...)
			continue
		}
		p.Read = append(p.Read, d)
	}
	// The targets of /etc's symlinks that point out of it (resolv.conf into
	// /run on systemd machines), one file each.
	for _, f := range []string{"/etc/resolv.conf", "/etc/hosts", "/etc/localtime"} {
		if t, err := filepath.EvalSymlinks(f); err == nil && t != f {
			p.Read = append(p.Read, t)
		}
	}
	both := func(path string) []string {
		out := []string{path}
		if real, err := filepath.EvalSymlinks(path); err == nil && real != path {
			out = append(out, real)
		}
		return out
	}
	if r.Workspace != "" {
		p.Read = append(p.Read, both(r.Workspace)...)
	}
	// The temporary folder ($TMPDIR), where the driver keeps its pipeline
	// folder and spar-exec the scratch folders: no grant holds it, the
	// reviewer's own scratch folder inside it aside.
	private := []string{os.TempDir()}
	if real, err := filepath.EvalSymlinks(private[0]); err == nil && real != private[0] {
		private = append(private, real)
	}
	if r.Exe != "" {
		if dir := InstallFolder(r.Exe); !holdsAny(dir, append(append([]string{r.Home, "/"}, r.Protect...), private...)) && !inAny(dir, r.Protect) {
			p.Read = append(p.Read, dir)
		}
		p.Read = append(p.Read, both(r.Exe)...)
	}
	for _, f := range r.Inputs {
		p.Read = append(p.Read, both(f)...)
	}
	read, dirs, files := StateFolders(r.Preset, r.Home, getenv)
	for _, d := range read {
		if !holdsAny(d, private) {
			p.Read = append(p.Read, both(d)...)
		}
	}
	for _, d := range dirs {
		if holdsAny(d, private) {
			continue
		}
		if _, err := os.Stat(d); os.IsNotExist(err) && CurrentMode() != Off && !r.DryRun {
			os.MkdirAll(d, 0o700)
		}
		for _, g := range both(d) {
			if !holdsAny(g, private) {
				p.Write = append(p.Write, g)
			}
		}
	}
	for _, f := range files {
		p.Write = append(p.Write, both(f)...)
	}
	if r.Scratch != "" {
		p.Write = append(p.Write, r.Scratch)
	}
	p.Devices = append(p.Devices, systemDevices...)
	return p
}

// etcRead and etcList are worldReadable("/etc"), read once.
var (
	etcOnce          sync.Once
	etcRead, etcList []string
)

// worldReadable is what of dir every user may read: dir itself when all of
// it is, else each of its parts that is (a folder whole where all of it is,
// a file alone), in read; list are the folders it descended into, whose
// entries may be listed. A symbolic link is never granted itself (the
// grant would go to what it points to, wherever that is): Landlock checks
// what is read through it where that lies, so it keeps no folder from
// being granted whole either.
func worldReadable(dir string) (read, list []string) {
	var walk func(path string, fi os.FileInfo) bool
	// walk says whether all of path is world-readable; when not, it adds
	// the parts that are to read and path to list.
	walk = func(path string, fi os.FileInfo) bool {
		if fi.Mode()&os.ModeSymlink != 0 {
			return true
		}
		if !fi.IsDir() {
			return fi.Mode().Perm()&0o004 != 0
		}
		if fi.Mode().Perm()&0o005 != 0o005 {
			return false
		}
		ents, err := os.ReadDir(path)
		if err != nil {
			return false
		}
		// A child that is not all readable added its parts itself.
		var whole []string
		n := 0 // children all readable, links included
		for _, e := range ents {
			child := filepath.Join(path, e.Name())
			cfi, err := os.Lstat(child)
			if err == nil && walk(child, cfi) {
				n++
				if cfi.Mode()&os.ModeSymlink == 0 {
					whole = append(whole, child)
				}
			}
		}
		if n == len(ents) {
			return true
		}
		read = append(read, whole...)
		list = append(list, path)
		return false
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return nil, nil
	}
	if walk(dir, fi) {
		return []string{dir}, nil
	}
	sort.Strings(read)
	sort.Strings(list)
	return read, list
}

// holdsAny reports whether dir is one of paths or holds one of them.
func holdsAny(dir string, paths []string) bool {
	dir = filepath.Clean(dir)
	for _, p := range paths {
		if p == "" {
			continue
		}
		p = filepath.Clean(p)
		if p == dir || dir == "/" || strings.HasPrefix(p, dir+"/") {
			return true
		}
	}
	return false
}

// inAny reports whether dir lies inside one of folders (or is one).
func inAny(dir string, folders []string) bool {
	for _, f := range folders {
		if f != "" && holdsAny(f, []string{dir}) {
			return true
		}
	}
	return false
}

// Mode is what EnvVar asks for.
type Mode int

const (
	On      Mode = iota // Landlock and, where allowed, a PID namespace
	NoPIDNS             // Landlock and the fallback process containment
	Off                 // neither: the process group only
)

// CurrentMode reads EnvVar.
func CurrentMode() Mode {
	switch strings.ToLower(strings.TrimSpace(os.Getenv(EnvVar))) {
	case "off", "0", "no", "false":
		return Off
	case "nopidns":
		return NoPIDNS
	}
	return On
}

// OffReason is the record of a reviewer run with the sandbox turned off.
var OffReason = fmt.Sprintf("none: turned off by %s=%s", EnvVar, "off")

// hooked is set by Main: this program carries the launcher, so that
// re-executing it through /proc/self/exe reaches it.
var hooked bool

// Main makes the running program the launcher when it was started as one
// (its first argument is LaunchArg) and never returns then; otherwise it
// marks the program as one that carries the launcher and returns. Every
// program that starts reviewers calls it first thing in main (spar-exec) or
// TestMain.
func Main() {
	if len(os.Args) >= 3 && os.Args[1] == LaunchArg {
		os.Exit(launch(os.Args[2], os.Args[3:]))
	}
	if len(os.Args) >= 3 && os.Args[1] == confineArg {
		os.Exit(confine(os.Args[2], os.Args[3:]))
	}
	hooked = true
}

// Confines says, before a reviewer starts, whether spar's Landlock ruleset
// will confine it: the sandbox is not turned off, this program carries the
// launcher, and the kernel offers Landlock and accepts a ruleset of the
// rights the launcher handles (probed once). A preset whose invocation
// depends on it learns it through preset.Call.Confined (codex chooses its
// own --sandbox by it); the launcher's report afterwards stays the record,
// and a reviewer started with Require never runs without the ruleset.
func Confines() bool {
	if CurrentMode() == Off || !hooked || goos != "linux" {
		return false
	}
	probeOnce.Do(func() { probed = probeLandlock() })
	return probed
}

var (
	probeOnce sync.Once
	probed    bool
)

// goos is runtime.GOOS, a variable for the tests.
var goos = runtime.GOOS

// Check is what the policy of a fix check is built from (docs/sandbox.md
// "Fix checks"): the tree it runs in (read only), its scratch folder (its
// HOME and TMPDIR, the only place it writes) and the caches it reads.
type Check struct {
	Tree    string
	Scratch string
	Caches  []string
}

// ForCheck builds the policy of a fix check: the system folders, the tree
// and the caches to read, the scratch folder to write, the device files,
// and no network. It reads no home folder and no CLI state.
func ForCheck(c Check) Policy {
	p := For(Reviewer{Preset: "check", Workspace: c.Tree, Scratch: c.Scratch, DryRun: true})
	for _, d := range c.Caches {
		p.Read = append(p.Read, d)
		if real, err := filepath.EvalSymlinks(d); err == nil && real != d {
			p.Read = append(p.Read, real)
		}
	}
	p.NoNetwork = true
	return p
}
