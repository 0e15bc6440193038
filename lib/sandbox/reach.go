package sandbox

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// What a reviewer needs from the file system to start, and which of it a
// policy leaves out of reach (docs/sandbox.md "What the sandbox denies"):
// spar doctor says it before any round, and a reviewer that fails in the
// sandbox for want of it gets a reason that names it.

// maxHops bounds the chain of interpreters and shims followed.
const maxHops = 4

// Needs lists what starting argv reads and executes beyond the system
// folders' programs: argv[0]; the interpreter its #! line names
// (`/usr/bin/env NAME`, with env's options and assignments before NAME as
// in `/usr/bin/env -S python3 -u`: NAME looked up in pathEnv), and that one's in
// turn; the program a shim (a shell script whose line `exec "/abs/path"`
// hands over, as pyenv's and asdf's do) runs; each later argument that is
// the absolute path of an existing file or folder. Each path once, in that
// order.
func Needs(argv []string, pathEnv string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(p string) bool {
		if p == "" || !filepath.IsAbs(p) || seen[p] {
			return false
		}
		seen[p] = true
		out = append(out, p)
		return true
	}
	if len(argv) == 0 {
		return nil
	}
	exe := argv[0]
	if !strings.Contains(exe, "/") {
		if p, err := lookPath(exe, pathEnv); err == nil {
			exe = p
		}
	}
	for hop := 0; hop < maxHops && add(exe); hop++ {
		next := ""
		interp, arg := shebang(exe)
		switch {
		case interp == "":
		case filepath.Base(interp) == "env" && arg != "":
			add(interp)
			switch prog := envProgram(arg); {
			case prog == "":
			case strings.Contains(prog, "/"):
				next = prog
			default:
				if p, err := lookPath(prog, pathEnv); err == nil {
					next = p
				}
			}
		default:
			next = interp
		}
		if shim := shimTarget(exe); shim != "" {
			if next != "" {
				add(next)
			}
			next = shim
		}
		if next == "" {
			break
		}
		exe = next
	}
	for _, a := range argv[1:] {
		if filepath.IsAbs(a) {
			if _, err := os.Stat(a); err == nil {
				add(a)
			}
		}
	}
	return out
}

// shebang is the interpreter a script's #! line names and its argument
// ("" when the file is no script or cannot be read).
func shebang(path string) (interp, arg string) {
	f, err := os.Open(path)
	if err != nil {
		return "", ""
	}
	defer f.Close()
	line, _ := bufio.NewReader(f).ReadString('\n')
	if !strings.HasPrefix(line, "#!") {
		return "", ""
	}
	fields := strings.Fields(strings.TrimPrefix(line, "#!"))
	if len(fields) == 0 {
		return "", ""
	}
	return fields[0], strings.Join(fields[1:], " ")
}

// envProgram is the program a `#!/usr/bin/env …` line runs, from the
// rest of the line: past env's options (-S and --split-string, whose
// value is split into the words that follow; -i, -0, -v and the like;
// -u NAME, -C DIR and their joined forms), its NAME=VALUE assignments and
// a `--`. "" when none is named.
func envProgram(arg string) string {
	words := strings.Fields(arg)
	for i := 0; i < len(words); i++ {
		w := words[i]
		switch {
		case w == "--":
			if i+1 < len(words) {
				return words[i+1]
			}
			return ""
		case w == "-S" || w == "--split-string":
			// Its value is the words that follow.
		case w == "-u" || w == "--unset" || w == "-C" || w == "--chdir":
			i++ // the option's value
		case strings.HasPrefix(w, "--split-string="):
			words = append(append(words[:i+1:i+1], strings.Fields(strings.TrimPrefix(w, "--split-string="))...), words[i+1:]...)
		case strings.HasPrefix(w, "-S"):
			// -Spython3: the value joined to the option.
			words = append(append(words[:i+1:i+1], strings.Fields(w[2:])...), words[i+1:]...)
		case strings.HasPrefix(w, "-"):
			// -i, -0, -v, --ignore-environment, -uNAME, --unset=NAME,
			// -CDIR, --chdir=DIR, a lone "-": nothing to skip beyond it.
		case strings.Contains(w, "="):
			// NAME=VALUE
		default:
			return w
		}
	}
	return ""
}

// shimLine is a shim's hand-over: `exec "/abs/path" …` (pyenv, rbenv,
// asdf, nodenv).
var shimLine = regexp.MustCompile(`^\s*exec\s+"?(/[^"\s]+)"?`)

// shimTarget is the program a small shell script hands over to with exec
// and an absolute path, or "".
func shimTarget(path string) string {
	interp, arg := shebang(path)
	shell := filepath.Base(interp)
	if shell == "env" {
		shell = filepath.Base(envProgram(arg))
	}
	switch shell {
	case "sh", "bash", "dash", "zsh", "ksh":
	default:
		return ""
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Size() > 64<<10 {
		return ""
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	for _, l := range strings.Split(string(b), "\n") {
		if m := shimLine.FindStringSubmatch(l); m != nil {
			return m[1]
		}
	}
	return ""
}

// lookPath finds name on pathEnv as exec.LookPath does on PATH.
func lookPath(name, pathEnv string) (string, error) {
	for _, dir := range filepath.SplitList(pathEnv) {
		if dir == "" {
			continue
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}

// Unreachable lists those of paths that p grants nothing of: neither the
// path nor the file or folder it resolves to lies in a path p reads or
// writes. A path that does not exist is left out.
func Unreachable(p Policy, paths []string) []string {
	grants := append(append(append([]string(nil), p.Read...), p.Write...), p.Devices...)
	if p.Scratch != "" {
		grants = append(grants, p.Scratch)
	}
	var out []string
	for _, path := range paths {
		real, err := filepath.EvalSymlinks(path)
		if err != nil {
			continue
		}
		if !inAny(real, grants) {
			out = append(out, path)
		}
	}
	return out
}

// deniedPath is an absolute path in a message on a line that says access
// was denied ("…/pyenv: Permission denied", "can't open file
// '/x/review.py': [Errno 13] Permission denied").
var deniedPath = regexp.MustCompile(`(/[^\s:'"]+)`)

// DeniedIn lists the absolute paths that the lines of text saying
// "Permission denied" (any case) name, each once.
func DeniedIn(text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, l := range strings.Split(text, "\n") {
		if !strings.Contains(strings.ToLower(l), "permission denied") {
			continue
		}
		for _, m := range deniedPath.FindAllString(l, -1) {
			if !seen[m] {
				seen[m] = true
				out = append(out, m)
			}
		}
	}
	return out
}
