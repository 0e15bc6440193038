package gate

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jaekit/spar/lib/config"
	"github.com/jaekit/spar/lib/fixcheck"
	"github.com/jaekit/spar/lib/round"
)

const (
	testHead = "1111111111111111111111111111111111111111"
	testFix  = "2222222222222222222222222222222222222222"
)

// checkedRound is a round folder holding the four outputs of a verified
// check, and its fixed line as spar triage --check writes it.
func checkedRound(t *testing.T) (string, *round.LedgerEntry) {
	t.Helper()
	dir := t.TempDir()
	out := filepath.Join(dir, round.ChecksDir, "codex-F1-1")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	run := func(name, text string, exit int) round.CheckRun {
		if err := os.WriteFile(filepath.Join(out, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256([]byte(text))
		return round.CheckRun{Exit: exit, DurationMS: 12, Output: round.ChecksDir + "/codex-F1-1/" + name, SHA256: hex.EncodeToString(sum[:]), Bytes: int64(len(text))}
	}
	e := &round.LedgerEntry{Finding: "codex-F1", Disposition: "fixed", Commit: testFix, At: "2026-01-01T00:00:00Z",
		Check: &round.FixCheck{
			Command: "go test ./ratio", Head: testHead, Fix: testFix,
			Files:      []round.CheckFile{{Path: "ratio/ratio_test.go", AtHead: "", AtFix: "aaaa"}, {Path: "ratio/helper_test.go", AtHead: "bbbb", AtFix: "cccc"}},
			CheckPaths: []string{"**/*_test.go"}, TimeoutSeconds: 300, Sandbox: "bwrap", Network: "closed: a network namespace of its own",
			Before: []round.CheckRun{run("before-1.txt", "--- FAIL: TestRatio\n", 1), run("before-2.txt", "--- FAIL: TestRatio\n", 1)},
			After:  []round.CheckRun{run("after-1.txt", "ok\n", 0), run("after-2.txt", "ok\n", 0)},
		}}
	return dir, e
}

// blobsOf answers CheckProblem's blob lookups from a table per commit.
func blobsOf(tables map[string]map[string]string) func(string) (func(string) string, error) {
	return func(commit string) (func(string) string, error) {
		m, ok := tables[commit]
		if !ok {
			return nil, errors.New("no such commit")
		}
		return func(p string) string { return m[p] }, nil
	}
}

var testBlobs = map[string]map[string]string{
	testHead: {"ratio/helper_test.go": "bbbb"},
	testFix:  {"ratio/ratio_test.go": "aaaa", "ratio/helper_test.go": "cccc"},
}

// The gate re-derives a check record from the round's files and the
// commits: the record spar wrote passes; each hand edit is named.
func TestVerifiedFix_Rederive(t *testing.T) {
	dir, e := checkedRound(t)
	if p := fixcheck.Rederive(dir, testHead, e, blobsOf(testBlobs)); p != "" {
		t.Fatalf("the record spar wrote: %s", p)
	}
	cases := []struct {
		name string
		edit func(dir string, e *round.LedgerEntry)
		want string
	}{
		{"before exit edited to 0", func(_ string, e *round.LedgerEntry) { e.Check.Before[0].Exit = 0 }, "it passed before the fix (exit 0"},
		{"after exit edited to 1", func(_ string, e *round.LedgerEntry) { e.Check.After[1].Exit = 1 }, "its two runs after the fix disagree (exit 0, then 1"},
		{"timed out", func(_ string, e *round.LedgerEntry) { e.Check.Before[1].TimedOut = true }, "run 2 before the fix passed its time limit"},
		{"one before run", func(_ string, e *round.LedgerEntry) { e.Check.Before = e.Check.Before[:1] }, "the record has 1 runs before and 2 after"},
		{"three after runs", func(_ string, e *round.LedgerEntry) {
			e.Check.After = append(e.Check.After, e.Check.After[0])
		}, "2 runs before and 3 after"},
		{"output edited", func(dir string, e *round.LedgerEntry) {
			os.WriteFile(filepath.Join(dir, filepath.FromSlash(e.Check.Before[0].Output)), []byte("--- FAIL: TestRatiX\n"), 0o644)
		}, "before run 1 exited 1, but its output .checks/codex-F1-1/before-1.txt is not the file its sha256"},
		{"output removed", func(dir string, e *round.LedgerEntry) {
			os.Remove(filepath.Join(dir, filepath.FromSlash(e.Check.After[0].Output)))
		}, "after run 1 exited 0, but its output .checks/codex-F1-1/after-1.txt cannot be read"},
		{"output grown", func(dir string, e *round.LedgerEntry) {
			e.Check.After[0].Bytes = 1
		}, "holds 3 bytes, more than the 1 the check wrote"},
		{"output a link", func(dir string, e *round.LedgerEntry) {
			p := filepath.Join(dir, filepath.FromSlash(e.Check.After[0].Output))
			os.Remove(p)
			os.Symlink(filepath.Join(dir, filepath.FromSlash(e.Check.After[1].Output)), p)
		}, "is not a regular file"},
		{"output outside .checks", func(_ string, e *round.LedgerEntry) { e.Check.After[0].Output = "../x/after-1.txt" }, `"../x/after-1.txt" is not a file of the round under .checks/`},
		{"fix is another commit", func(_ string, e *round.LedgerEntry) { e.Commit = testHead }, "its fix " + testFix + " is not the line's commit " + testHead},
		{"head is another commit", func(_ string, e *round.LedgerEntry) { e.Check.Head = testFix }, "its head " + testFix + " is not the head " + testHead},
		{"blob at the fix", func(_ string, e *round.LedgerEntry) { e.Check.Files[0].AtFix = "dddd" }, "the check file ratio/ratio_test.go is the blob dddd at the fix, but git has the blob aaaa there"},
		{"blob at the head", func(_ string, e *round.LedgerEntry) { e.Check.Files[1].AtHead = "" }, "the check file ratio/helper_test.go is absent at the head, but git has the blob bbbb there"},
		{"regression without words", func(_ string, e *round.LedgerEntry) {
			e.Check.Regression = &round.Regression{Command: "make test", AtHead: e.Check.After[0], AtFix: e.Check.Before[0]}
		}, "passed on the round's head and fails on the fix (exit 1)"},
		{"not a fixed line", func(_ string, e *round.LedgerEntry) { e.Disposition = "rejected" }, "a check on a rejected line"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir, e := checkedRound(t)
			c.edit(dir, e)
			got := fixcheck.Rederive(dir, testHead, e, blobsOf(testBlobs))
			if !strings.Contains(got, c.want) {
				t.Errorf("got %q, want it to hold %q", got, c.want)
			}
		})
	}
	// A regression the user allowed, with its outputs in place, passes.
	dir, e = checkedRound(t)
	e.Check.Regression = &round.Regression{Command: "make test", AtHead: e.Check.After[0], AtFix: e.Check.Before[0], Allowed: "the old API goes"}
	if p := fixcheck.Rederive(dir, testHead, e, blobsOf(testBlobs)); p != "" {
		t.Errorf("an allowed regression: %s", p)
	}
}

// verify_fixes is read from the project configuration the gate's head
// commit holds, never from the working tree; none there is "optional"; one
// that does not read holds fixes as "required".
func TestVerifiedFix_ConfigAtHead(t *testing.T) {
	repo := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	write := func(p, text string) {
		t.Helper()
		full := filepath.Join(repo, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("init", "-q")
	write("main.go", "package main\n")
	git("add", ".")
	git("commit", "-qm", "none")
	none := git("rev-parse", "HEAD")
	write(config.ProjectFile, "verify_fixes = \"required\"\n")
	git("add", ".")
	git("commit", "-qm", "required")
	required := git("rev-parse", "HEAD")
	write(config.ProjectFile, "verify_fixes = \"sometimes\"\n")
	git("add", ".")
	git("commit", "-qm", "bad")
	bad := git("rev-parse", "HEAD")
	// The working tree says optional: the commit decides.
	write(config.ProjectFile, "verify_fixes = \"optional\"\n")

	g := &gate{}
	defer g.closeTrees()
	for _, c := range []struct {
		head     string
		required bool
		why      string
	}{
		{none, false, ""},
		{required, true, ""},
		{bad, true, "does not read"},
	} {
		s := &seriesData{repo: repo, head: c.head}
		got, why := g.verifyRequired(s)
		if got != c.required || !strings.Contains(why, c.why) || (c.why == "" && why != "") {
			t.Errorf("head %s: required %v (%q), want %v (%q)", c.head[:7], got, why, c.required, c.why)
		}
	}
}

// The verdict line (spar-record, spar triage) and spar status judge as the
// gate: with verify_fixes = "required" at the repository's HEAD, a fixed
// line without a check leaves its defect open in all three.
func TestVerifiedFix_EveryJudgement(t *testing.T) {
	series, c := statusSeries(t)
	repo := filepath.Join(filepath.Dir(filepath.Dir(series)), "repo")
	code1 := filepath.Join(series, "code-1")
	before, err := RoundVerdict(code1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(repo, ".jaekit"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, config.ProjectFile), []byte("verify_fixes = \"required\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false", "commit", "-qm", "verify fixes"}} {
		if out, err := exec.Command("git", append([]string{"-C", repo}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	after, err := RoundVerdict(code1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if after.Open.Defect != before.Open.Defect+1 {
		t.Errorf("verdict line: %d open defects, want %d (codex-F2's fix is the agent's words)", after.Open.Defect, before.Open.Defect+1)
	}
	rec := Decide(Options{Rounds: []string{code1, filepath.Join(series, "code-2")}})
	var found bool
	for _, d := range rec.ReasonDetails {
		if d.Code == "10v" {
			found = true
			if !strings.Contains(d.Problem, "defect codex-F2 is open (fixed by the commit "+c[2]) || !strings.HasSuffix(d.Clear, "codex-F2 --as fixed --commit "+c[2]+" --check 'CMD'") {
				t.Errorf("10v: %+v", d)
			}
		}
	}
	if !found {
		t.Errorf("no 10v among %q", rec.Reasons)
	}
	if len(rec.FixClaims) != 1 || rec.FixClaims[0].Finding != "codex-F2" || rec.FixClaims[0].Verified {
		t.Errorf("fix_claims %+v", rec.FixClaims)
	}
	st := mustStatus(t, series)
	for _, f := range st.Findings {
		if f.ID == "codex-F2" && (!f.Open || !f.Blocks || !strings.Contains(f.Why, "no check verified it")) {
			t.Errorf("status: %+v", f)
		}
	}
	if len(st.UnverifiedFixes) != 0 {
		t.Errorf("status notes where a reason blocks: %q", st.UnverifiedFixes)
	}
}
