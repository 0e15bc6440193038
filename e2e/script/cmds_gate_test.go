package script

// Custom testscript commands of the gate and cap-report scripts
// (registered in cmds_test.go).

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"strings"

	"github.com/jaekit/spar/lib/config"
	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/gate/fixture"
	"github.com/jaekit/spar/lib/gitx"
	"github.com/rogpeppe/go-internal/testscript"
)

// sha256 FILE NAME: sets NAME to the sha256 of FILE's bytes (lowercase hex).
func cmdSHA256(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: sha256 FILE NAME")
	}
	sum := sha256.Sum256([]byte(ts.ReadFile(args[0])))
	ts.Setenv(args[1], hex.EncodeToString(sum[:]))
}

// revs DIR NAME=REV...: sets each NAME to the full commit ID that REV
// resolves to in the repository DIR.
func cmdRevs(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: revs DIR NAME=REV...")
	}
	for _, a := range args[1:] {
		name, rev, ok := strings.Cut(a, "=")
		if !ok {
			ts.Fatalf("revs: %q is not NAME=REV", a)
		}
		id, err := gitx.ResolveCommit(ts.MkAbs(args[0]), rev)
		ts.Check(err)
		ts.Setenv(name, id)
	}
}

// mkround FILE...: each FILE holds one fixture.Spec or an array of them
// (JSON); each round is written as a published round (or as the spec says)
// with paths relative to $WORK and revisions resolved in the spec's repo.
func cmdMkround(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("mkround does not take !")
	}
	if len(args) == 0 {
		ts.Fatalf("usage: mkround FILE...")
	}
	for _, a := range args {
		data := strings.TrimSpace(ts.ReadFile(a))
		var specs []fixture.Spec
		if strings.HasPrefix(data, "[") {
			ts.Check(json.Unmarshal([]byte(data), &specs))
		} else {
			var s fixture.Spec
			ts.Check(json.Unmarshal([]byte(data), &s))
			specs = append(specs, s)
		}
		for _, s := range specs {
			ts.Check(fixture.Write(ts.Getenv("WORK"), s))
		}
	}
}

// config-edit FILE KEY JSON: what an agent running the stages by hand can
// do to an envelope between stages: sets config.KEY of the envelope in
// FILE to the JSON value and recomputes config.digest (lib/config Digest,
// which anyone can run), so that no stage sees a digest that does not fit.
func cmdConfigEdit(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: config-edit FILE KEY JSON")
	}
	var env map[string]any
	ts.Check(json.Unmarshal([]byte(ts.ReadFile(args[0])), &env))
	cfg, ok := env["config"].(map[string]any)
	if !ok {
		ts.Fatalf("config-edit: %s has no config object", args[0])
	}
	var v any
	ts.Check(json.Unmarshal([]byte(args[2]), &v))
	cfg[args[1]] = v
	raw, err := json.Marshal(cfg)
	ts.Check(err)
	var c envelope.Config
	ts.Check(json.Unmarshal(raw, &c))
	d, err := config.Digest(&c)
	ts.Check(err)
	cfg["digest"] = d
	out, err := json.MarshalIndent(env, "", "  ")
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), append(out, '\n'), 0o644))
}
