package script

// Custom testscript commands of the triage, waive and extend scripts
// (registered in cmds_test.go).

import (
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/jaekit/spar/lib/pipe"
	"github.com/jaekit/spar/lib/round"
	"github.com/rogpeppe/go-internal/testscript"
)

// round-publish DIR REPO: finish a hand-written round fixture the way
// spar-record publishes a round (docs/review-round.md §1): round.json gets repo (the
// absolute path of REPO), finished_at (when null) and the sha256 of
// DIR/findings.json's bytes. Every other key of round.json is kept.
func cmdRoundPublish(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: round-publish DIR REPO")
	}
	dir := ts.MkAbs(args[0])
	fb, err := os.ReadFile(filepath.Join(dir, round.FindingsFile))
	ts.Check(err)
	rb, err := os.ReadFile(filepath.Join(dir, round.RoundFile))
	ts.Check(err)
	var rec map[string]any
	ts.Check(json.Unmarshal(rb, &rec))
	rec["repo"] = ts.MkAbs(args[1])
	rec["series"] = filepath.Dir(dir)
	if rec["finished_at"] == nil {
		rec["finished_at"] = rec["started_at"]
	}
	rec["findings_sha256"] = round.SHA256(fb)
	out, err := pipe.MarshalIndent(rec)
	ts.Check(err)
	ts.Check(os.WriteFile(filepath.Join(dir, round.RoundFile), out, 0o644))
}
