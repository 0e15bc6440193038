package stage

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

// TestMainsHelp: every stage's Main answers --help on stdout with its
// usage and exit 0, and writes nothing to stderr.
func TestMainsHelp(t *testing.T) {
	if len(Mains) != 7 {
		t.Fatalf("%d stages, want 7", len(Mains))
	}
	for name, main := range Mains {
		var o, e bytes.Buffer
		if code := main([]string{"--help"}, strings.NewReader(""), &o, &e); code != 0 || e.Len() != 0 {
			t.Errorf("%s --help: exit %d, stderr %q", name, code, e.String())
		}
		if !strings.Contains(o.String(), "usage:") || !strings.Contains(o.String(), name) {
			t.Errorf("%s --help: stdout %q", name, o.String())
		}
	}
}

// TestStagesIndependent: no stage package imports another, directly or
// through any package it depends on.
func TestStagesIndependent(t *testing.T) {
	const prefix = "github.com/jaekit/spar/stage/spar"
	for name := range Mains {
		pkg := prefix + strings.TrimPrefix(name, "spar-")
		out, err := exec.Command("go", "list", "-deps", pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			if strings.HasPrefix(dep, prefix) && dep != pkg {
				t.Errorf("%s depends on %s", pkg, dep)
			}
		}
	}
}
