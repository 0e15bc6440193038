package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// Needs follows a command's #! interpreter, `/usr/bin/env NAME` on the
// PATH given, a pyenv-like shim's exec line and its path arguments;
// Unreachable keeps those the policy grants nothing of; DeniedIn reads the
// paths of "Permission denied" lines.
func TestNeedsAndUnreachable(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, text string) string {
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	pyenv := write("pyenv/libexec/pyenv", "#!/bin/sh\nexit 0\n")
	shim := write("pyenv/shims/python3", "#!/usr/bin/env bash\nset -e\nexport PYENV_ROOT=x\nexec \""+pyenv+"\" exec \"$program\" \"$@\"\n")
	script := write("tools/review.py", "#!/usr/bin/env python3\nprint(1)\n")
	data := write("data/input.txt", "x")
	direct := write("tools/direct", "#!"+filepath.Join(dir, "interp", "python3")+"\n")
	interp := write("interp/python3", "")

	pathEnv := filepath.Join(dir, "pyenv", "shims") + ":/usr/bin:/bin"
	got := Needs([]string{script, "{prompt}", data, "relative"}, pathEnv)
	for _, want := range []string{script, "/usr/bin/env", shim, pyenv, data} {
		if !slices.Contains(got, want) {
			t.Errorf("Needs: %q missing from %q", want, got)
		}
	}
	if got := Needs([]string{direct}, pathEnv); !slices.Equal(got, []string{direct, interp}) {
		t.Errorf("Needs of a script with its own interpreter: %q", got)
	}

	p := Policy{Read: []string{"/usr", "/bin", filepath.Join(dir, "tools"), filepath.Join(dir, "pyenv", "shims")}}
	miss := Unreachable(p, got)
	if !slices.Equal(miss, []string{pyenv, data}) {
		t.Errorf("Unreachable: %q, want %q", miss, []string{pyenv, data})
	}

	den := DeniedIn("Traceback\n/usr/bin/python3: can't open file '/x/review.py': [Errno 13] Permission denied\nexited with status 126: /root/.pyenv/libexec/pyenv: Permission denied\nother /y line\n")
	if !slices.Equal(den, []string{"/usr/bin/python3", "/x/review.py", "/root/.pyenv/libexec/pyenv"}) {
		t.Errorf("DeniedIn: %q", den)
	}
}

// envProgram reads the program of a `#!/usr/bin/env …` line past env's
// options and assignments; Needs then looks that program up, so that
// `#!/usr/bin/env -S python3 -u` needs python3 (not "-S").
func TestEnvProgram(t *testing.T) {
	for arg, want := range map[string]string{
		"python3":                        "python3",
		"-S python3 -u":                  "python3",
		"-S python3 -u -X dev":           "python3",
		"-Spython3 -u":                   "python3",
		"--split-string=python3 -u":      "python3",
		"-i PYTHONPATH=/x python3":       "python3",
		"-u HOME -C /tmp python3":        "python3",
		"--unset=HOME --chdir=/tmp node": "node",
		"-S A=1 B=2 python3":             "python3",
		"-- python3":                     "python3",
		"-v -S /opt/py/bin/python3 -E":   "/opt/py/bin/python3",
		"-i":                             "",
		"-S":                             "",
	} {
		if got := envProgram(arg); got != want {
			t.Errorf("envProgram(%q) = %q, want %q", arg, got, want)
		}
	}

	dir := t.TempDir()
	py := filepath.Join(dir, "bin", "python3")
	if err := os.MkdirAll(filepath.Dir(py), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(py, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "review.py")
	if err := os.WriteFile(script, []byte("#!/usr/bin/env -S python3 -u\nprint(1)\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := Needs([]string{script}, filepath.Dir(py)+":/usr/bin:/bin"); !slices.Equal(got, []string{script, "/usr/bin/env", py}) {
		t.Errorf("Needs of an env -S script: %q, want %q", got, []string{script, "/usr/bin/env", py})
	}
}
