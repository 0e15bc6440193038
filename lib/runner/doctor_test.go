package runner

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jaekit/spar/lib/envelope"
)

// The setup check's verdict and spar run's warning (docs/usage.md "Setup
// check", docs/review-round.md "No reviewer can start").
func TestDoctor_VerdictAndWarning(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "vet")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	claude := envelope.Reviewer{Name: "claude", Preset: "claude", Required: true}
	vet := envelope.Reviewer{Name: "vet", Preset: "command", Argv: []string{"vet", "{prompt}"}}
	native := envelope.Reviewer{Name: "native", Preset: "native", Required: true}
	path := dir // no claude there

	if p := Locate(vet, path); p.Exe != exe || !p.Starts() || p.Line() != "vet (command): "+exe {
		t.Fatalf("%+v %q", p, p.Line())
	}
	if p := Locate(claude, path); p.Starts() || p.Status != Unavailable {
		t.Fatalf("%+v", p)
	}
	// A required reviewer that cannot start fails the check, even when
	// another one starts.
	v := Verdict([]Probe{Locate(claude, path), Locate(vet, path)}, "/cfg.toml")
	if !strings.HasPrefix(v, "1 required reviewer cannot start (claude): ") || !strings.Contains(v, "in /cfg.toml a binary") {
		t.Fatalf("%q", v)
	}
	if v := Verdict([]Probe{Locate(vet, path), Locate(native, path)}, "/cfg.toml"); v != "" {
		t.Fatalf("%q", v)
	}
	// spar run warns only when none of the reviewers to run starts; native
	// always does (the host's subagent).
	if w := NoneStarts([]envelope.Reviewer{claude}, path); !strings.HasPrefix(w, `no reviewer of this round can start (claude: no executable "claude" on PATH)`) {
		t.Fatalf("%q", w)
	}
	for _, rs := range [][]envelope.Reviewer{{claude, vet}, {claude, native}, nil} {
		if w := NoneStarts(rs, path); w != "" {
			t.Fatalf("%v: %q", rs, w)
		}
	}
}
