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
