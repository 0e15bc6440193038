package gate

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/jaekit/spar/lib/convergence"
	"github.com/jaekit/spar/lib/gate/fixture"
	"github.com/jaekit/spar/lib/round"
	"github.com/jaekit/spar/lib/summary"
)

// statusSeries writes a series of two counted code rounds on a repository
// of four commits (HEAD is the last): code-1 reviewed c1 and has an open
// defect, a defect fixed by c2 and an automatically deferred hardening;
// code-2 reviewed c2 and has claude's defect at the same place as code-1's
// open one (corroborated). It returns the series folder and the commits.
// statusRepo makes a repository "repo" of n+1 commits (fixture.Repo) in a
// new folder, and points SPAR_CONFIG at a configuration there holding
// config; it returns the folder and the commits.
func statusRepo(t *testing.T, n int, config string) (string, []string) {
	t.Helper()
	root := t.TempDir()
	repo := filepath.Join(root, "repo")
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	c := fixture.Repo(t, repo, n)
	cfg := filepath.Join(root, "spar.toml")
	if err := os.WriteFile(cfg, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SPAR_CONFIG", cfg)
	return root, c
}

func statusSeries(t *testing.T) (string, []string) {
	t.Helper()
	root, c := statusRepo(t, 3, "[[reviewers]]\nname = \"codex\"\npreset = \"codex\"\n")
	specs := []fixture.Spec{
		{Dir: "reviews/s/code-1", Repo: "repo", Base: c[0], Head: c[1], Number: 1, StartedAt: "2026-01-01T00:00:01Z",
			Required: []string{"codex"}, Reviewers: []string{"codex=completed", "claude=completed"},
			Findings: []fixture.Finding{{ID: "codex-F1", Class: "defect"}, {ID: "codex-F2", Class: "defect", Location: "head/src/f1.go:1"}, {ID: "codex-F3", Class: "hardening", Location: "head/src/f0.go:1"}},
			Ledger: []round.LedgerEntry{
				{Finding: "codex-F2", Disposition: "fixed", Commit: c[2], FailedBefore: "go test ./x failed", PassedAfter: "go test ./x passed"},
				{Finding: "codex-F3", Disposition: "deferred", Auto: true, To: "automatic deferral of hardening at record"},
			}},
		{Dir: "reviews/s/code-2", Repo: "repo", Base: c[0], Head: c[2], Number: 2, StartedAt: "2026-01-01T00:00:02Z",
			Required: []string{"codex"}, Reviewers: []string{"codex=completed", "claude=completed"},
			Findings: []fixture.Finding{{ID: "claude-F1", Class: "defect"}}},
	}
	for _, s := range specs {
		if err := fixture.Write(root, s); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(root, "reviews", "s"), c
}

func appendLedger(t *testing.T, dir string, e round.LedgerEntry) {
	t.Helper()
	e.At = "2026-01-02T00:00:00Z"
	b, _ := json.Marshal(e)
	f, err := os.OpenFile(filepath.Join(dir, round.LedgerFile), os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(append(b, '\n')); err != nil {
		t.Fatal(err)
	}
}

type brief struct {
	name   string
	open   bool
	blocks bool
}

func briefs(s SeriesStatus) []brief {
	var out []brief
	for _, f := range s.Findings {
		out = append(out, brief{f.Round + "/" + f.ID, f.Open, f.Blocks})
	}
	return out
}

// Status asks the gate what is open, follows the series through triage,
// and names one next command at each step: a triage, the duplicate triage
// of a corroborating finding, a new round for the moved HEAD, spar gate.
func TestStatusFollowsTheGate(t *testing.T) {
	series, c := statusSeries(t)
	st, err := StatusOf([]string{series})
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Series) != 1 || st.Schema != StatusSchema {
		t.Fatalf("%+v", st)
	}
	s := st.Series[0]
	if s.State != Blocked || s.Latest == nil || s.Latest.Name != "code-2" {
		t.Fatalf("state %s, latest %+v", s.State, s.Latest)
	}
	if s.Head.Relation != HeadBehind || s.Head.Behind != 1 || *s.Head.Commit != c[3] {
		t.Errorf("head %+v", s.Head)
	}
	want := []brief{{"code-1/codex-F1", true, true}, {"code-1/codex-F2", false, false}, {"code-1/codex-F3", false, false}, {"code-2/claude-F1", true, true}}
	if got := briefs(s); !reflect.DeepEqual(got, want) {
		t.Fatalf("findings %+v, want %+v", got, want)
	}
	if f := s.Findings[0]; f.Why != "no disposition" || !strings.HasPrefix(f.Clear, "spar triage "+series+"/code-1 codex-F1 --as fixed --commit REV") || !strings.HasPrefix(f.ClassReason, "rule ") {
		t.Errorf("open finding %+v", f)
	}
	if d := s.Findings[1].Disposition; d != "fixed (by the commit "+c[2]+"; failed before: go test ./x failed; passed after: go test ./x passed)" {
		t.Errorf("fixed disposition %q", d)
	}
	dup := "spar triage " + series + "/code-2 claude-F1 --as duplicate --of code-1/codex-F1"
	wantC := []Corroboration{{Class: "defect", Place: "checks/t0.sh:1", Findings: []string{"code-1/codex-F1", "code-2/claude-F1"}, Duplicates: []string{dup}}}
	if !reflect.DeepEqual(s.Corroborated, wantC) {
		t.Errorf("corroborated %+v", s.Corroborated)
	}
	if s.Next != "spar triage "+series+"/code-1 codex-F1 --as fixed --commit REV --check CMD" {
		t.Errorf("next %q", s.Next)
	}
	if len(s.RequiredReviewers) != 1 || s.RequiredReviewers[0].Status != ReviewerCompleted {
		t.Errorf("required %+v", s.RequiredReviewers)
	}
	if len(s.Caps) != 3 || s.Caps[2].Stage != "code" || s.Caps[2].Used != 2 || s.Caps[2].Limit == nil || *s.Caps[2].Limit != 3 {
		t.Errorf("caps %+v", s.Caps)
	}
	// The verdict line of code-1: its own findings, and code-2's open one.
	tally, err := RoundVerdict(filepath.Join(series, "code-1"), nil)
	if err != nil {
		t.Fatal(err)
	}
	wantT := summary.Tally{Open: round.Counts{Defect: 1}, Closed: round.Counts{Defect: 1, Hardening: 1}, Others: []summary.RoundOpen{{Round: "code-2", Open: 1}}}
	if !reflect.DeepEqual(tally, wantT) {
		t.Errorf("tally %+v, want %+v", tally, wantT)
	}

	// The first open finding rejected: next is the duplicate triage of the
	// finding that corroborates it.
	appendLedger(t, filepath.Join(series, "code-1"), round.LedgerEntry{Finding: "codex-F1", Disposition: "rejected", Evidence: "the handler saves first"})
	s = mustStatus(t, series)
	if s.Next != dup {
		t.Errorf("next %q, want %q", s.Next, dup)
	}
	// Triaged as that duplicate: every finding closed, HEAD moved past the
	// reviewed head: next is a new round of HEAD.
	appendLedger(t, filepath.Join(series, "code-2"), round.LedgerEntry{Finding: "claude-F1", Disposition: "duplicate", Of: "code-1/codex-F1", OfRound: "code-1"})
	s = mustStatus(t, series)
	for _, f := range s.Findings {
		if f.Open {
			t.Errorf("%s/%s open: %s", f.Round, f.ID, f.Why)
		}
	}
	if !strings.HasPrefix(s.Next, "spar run --repo ") || !strings.Contains(s.Next, " --head "+c[3]+" --out "+series+"/code-3") || s.State != Blocked {
		t.Errorf("state %s, next %q", s.State, s.Next)
	}
	// HEAD back at the reviewed head: the gate passes; next is spar gate.
	if out, err := exec.Command("git", "-C", filepath.Join(filepath.Dir(filepath.Dir(series)), "repo"), "update-ref", "refs/heads/main", c[2]).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	s = mustStatus(t, series)
	if s.State != Passed || s.Head.Relation != HeadSame || s.Next != "spar gate "+series+"/code-1 "+series+"/code-2" {
		t.Errorf("state %s, head %+v, next %q, reasons %q", s.State, s.Head, s.Next, s.Reasons)
	}
	// A round folder stands for its series; the text names the next command.
	st, err = StatusOf([]string{filepath.Join(series, "code-1")})
	if err != nil || len(st.Series) != 1 || st.Series[0].Series != series {
		t.Fatalf("%+v %v", st, err)
	}
	if txt := st.Text(); !strings.Contains(txt, "series "+series+": passed\n") || !strings.Contains(txt, "  next: spar gate ") {
		t.Errorf("text:\n%s", txt)
	}
}

func mustStatus(t *testing.T, series string) SeriesStatus {
	t.Helper()
	st, err := StatusOf([]string{series})
	if err != nil {
		t.Fatal(err)
	}
	return st.Series[0]
}

func TestStatusRefusesNoSeries(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "file"), nil, 0o644)
	os.Mkdir(filepath.Join(dir, "empty"), 0o755)
	os.WriteFile(filepath.Join(dir, "empty", "notes.txt"), nil, 0o644)
	for p, want := range map[string]string{
		filepath.Join(dir, "none"):  "no such folder",
		filepath.Join(dir, "file"):  "is not a folder",
		filepath.Join(dir, "empty"): "is not a series or a round",
	} {
		_, err := StatusOf([]string{p})
		var r *RefusalError
		if !asRefusal(err, &r) || !strings.Contains(r.Msg, want) {
			t.Errorf("%s: %v, want %q", p, err, want)
		}
	}
}

func asRefusal(err error, r **RefusalError) bool {
	re, ok := err.(*RefusalError)
	*r = re
	return ok
}

// A round being recorded is judged from memory: its own findings, with the
// series' other rounds' open ones.
func TestRoundVerdictPending(t *testing.T) {
	series, _ := statusSeries(t)
	dir := filepath.Join(series, "code-2")
	rec, f, err := round.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	f.Findings[0].Class = "note"
	tally, err := RoundVerdict(dir, &Pending{Record: rec, Findings: f.Findings})
	if err != nil {
		t.Fatal(err)
	}
	// Its finding has code-1's path, angle and claim: possibly a repeat.
	want := summary.Tally{Open: round.Counts{Note: 1}, Others: []summary.RoundOpen{{Round: "code-1", Open: 1}},
		Possible: []summary.Possible{{Finding: "claude-F1", Of: "code-1/codex-F1", Similarity: 1,
			Triage: "spar triage " + shellQuote(dir) + " claude-F1 --as duplicate --of code-1/codex-F1"}}}
	if !reflect.DeepEqual(tally, want) {
		t.Errorf("tally %+v, want %+v", tally, want)
	}
	if _, err := RoundVerdict(filepath.Join(series, "nope"), nil); err == nil {
		t.Error("a folder that is no round has a verdict")
	}
}

func TestFirstClear(t *testing.T) {
	for reason, want := range map[string]string{
		"s: round r is unreadable (x); to clear: restore its records as spar wrote them, or remove the round folder s/r":                            "restore its records as spar wrote them, or remove the round folder s/r",
		"s: defect F1 is open (no disposition); to clear: spar triage s/r F1 --as fixed --commit REV (or --as rejected --evidence TEXT)":            "spar triage s/r F1 --as fixed --commit REV",
		"s: required reviewer codex has no review; to clear: rerun it: spar run --stage code --out s/r-2, or with the user's words: spar waive s/r": "spar run --stage code --out s/r-2",
		"no advice": "no advice",
	} {
		if got := firstClear([]string{reason}); got != want {
			t.Errorf("%q: %q, want %q", reason, got, want)
		}
	}
	if firstClear(nil) != "" {
		t.Error("no reasons")
	}
}

// spar status of a series of 100 rounds of 50 findings (the gate's
// benchmark series): one gate run, the findings read whole, cap-report.
func BenchmarkStatus100(b *testing.B) {
	dirs := benchSeries(b, 100)
	env := benchEnv(b)
	b.Setenv("SPAR_CONFIG", env("SPAR_CONFIG"))
	series := filepath.Dir(dirs[0])
	b.ResetTimer()
	c0 := fixture.CPUTime()
	for i := 0; i < b.N; i++ {
		st, err := StatusOf([]string{series})
		if err != nil || len(st.Series[0].Findings) != 5000 {
			b.Fatal(err)
		}
	}
	b.ReportMetric((fixture.CPUTime()-c0).Seconds()/float64(b.N), "cpu-s/op")
}

// The verdict line of the last round of that series.
func BenchmarkRoundVerdict100(b *testing.B) {
	dirs := benchSeries(b, 100)
	env := benchEnv(b)
	b.Setenv("SPAR_CONFIG", env("SPAR_CONFIG"))
	b.ResetTimer()
	c0 := fixture.CPUTime()
	for i := 0; i < b.N; i++ {
		if _, err := RoundVerdict(dirs[len(dirs)-1], nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((fixture.CPUTime()-c0).Seconds()/float64(b.N), "cpu-s/op")
}

// A series with no recorded round (spar extend started it) is empty; the
// next command starts its first round.
func TestStatusEmptySeries(t *testing.T) {
	series := filepath.Join(t.TempDir(), "s")
	if err := os.MkdirAll(series, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(series, round.ExtensionFile), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	s := mustStatus(t, series)
	if s.State != StatusEmpty || s.Latest != nil || s.Next != "spar run --stage code --base REV --head HEAD --out "+series+"/code-1" || len(s.Findings) != 0 {
		t.Errorf("%+v", s)
	}
}

// A fix the gate's head does not contain and a fix commit that does not
// resolve are open, each with its own why.
func TestStatusWhyOfAFixThatDoesNotClose(t *testing.T) {
	series, c := statusSeries(t)
	repo := filepath.Join(filepath.Dir(filepath.Dir(series)), "repo")
	if out, err := exec.Command("git", "-C", repo, "update-ref", "refs/heads/main", c[1]).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	const nowhere = "0123456789abcdef0123456789abcdef01234567"
	appendLedger(t, filepath.Join(series, "code-2"), round.LedgerEntry{Finding: "claude-F1", Disposition: "fixed", Commit: nowhere, FailedBefore: "go test ./x failed", PassedAfter: "go test ./x passed"})
	why := map[string]string{}
	for _, f := range mustStatus(t, series).Findings {
		if f.Open {
			why[f.Round+"/"+f.ID] = f.Why
		}
	}
	want := map[string]string{
		"code-1/codex-F1":  "no disposition",
		"code-1/codex-F2":  "fixed by the commit " + c[2] + ", which the head " + c[1] + " does not contain",
		"code-2/claude-F1": "fixed by the commit " + nowhere + ", which does not resolve to a commit",
	}
	if !reflect.DeepEqual(why, want) {
		t.Errorf("open findings %q\nwant %q", why, want)
	}
}

// restated is one round of a series in which codex returns the same
// defect codex-F1 each time: that round's ledger, or its repeat_of.
type restated struct {
	Ledger   []round.LedgerEntry
	RepeatOf string
}

// restatedStatus writes a series reviews/s of one code round per step
// (round n: base the first commit, head the n-th, codex required and
// completed) and returns its status.
func restatedStatus(t *testing.T, steps []restated) SeriesStatus {
	t.Helper()
	root, c := statusRepo(t, len(steps), "[[reviewers]]\nname = \"codex\"\npreset = \"codex\"\n")
	for i, sp := range steps {
		n := i + 1
		f := fixture.Finding{ID: "codex-F1", Class: "defect", RepeatOf: sp.RepeatOf}
		spec := fixture.Spec{Dir: fmt.Sprintf("reviews/s/code-%d", n), Repo: "repo", Base: c[0], Head: c[n], Number: n,
			StartedAt: fmt.Sprintf("2026-01-01T00:00:0%dZ", n), Required: []string{"codex"}, Reviewers: []string{"codex=completed"},
			Findings: []fixture.Finding{f}, Ledger: sp.Ledger}
		if err := fixture.Write(root, spec); err != nil {
			t.Fatal(err)
		}
	}
	return mustStatus(t, filepath.Join(root, "reviews", "s"))
}

// A reviewer that returns a rejected claim again: its duplicates (a chain
// of two) and a repeat of it (repeat_of, not triaged) count as rejected in
// its figures (docs/review-gate.md §6), so that it does not look precise.
func TestReviewerFiguresCountRestatedRejections(t *testing.T) {
	s := restatedStatus(t, []restated{
		{Ledger: []round.LedgerEntry{{Finding: "codex-F1", Disposition: "rejected", Evidence: "the handler saves first"}}},
		{Ledger: []round.LedgerEntry{{Finding: "codex-F1", Disposition: "duplicate", Of: "code-1/codex-F1", OfRound: "code-1"}}},
		{Ledger: []round.LedgerEntry{{Finding: "codex-F1", Disposition: "duplicate", Of: "code-2/codex-F1", OfRound: "code-2"}}},
		{RepeatOf: "code-3/codex-F1"},
	})
	if s.Convergence == nil || len(s.Convergence.Reviewers) != 1 {
		t.Fatalf("convergence %+v", s.Convergence)
	}
	got := s.Convergence.Reviewers[0]
	want := convergence.ReviewerFigures{Reviewer: "codex", Findings: 4, Rejected: 4}
	if got != want {
		t.Errorf("codex's figures %+v, want %+v", got, want)
	}
	if txt := ReviewerText(got); txt != "4 findings (4 rejected)" {
		t.Errorf("text %q", txt)
	}
}

// The same wrong claim returned in three rounds, triaged once as a
// duplicate (no repeat_of) and once given repeat_of by the reviewer: the
// loop counts neither as new, and the trend says the finding was restated
// twice rather than converging (docs/review-gate.md §6).
func TestLoopCountsDuplicatesOfEarlierFindingsAsRepeats(t *testing.T) {
	s := restatedStatus(t, []restated{
		{Ledger: []round.LedgerEntry{{Finding: "codex-F1", Disposition: "rejected", Evidence: "the handler saves first"}}},
		{Ledger: []round.LedgerEntry{{Finding: "codex-F1", Disposition: "duplicate", Of: "code-1/codex-F1", OfRound: "code-1"}}},
		{RepeatOf: "code-2/codex-F1"},
	})
	if s.Convergence == nil || len(s.Convergence.Rounds) != 3 {
		t.Fatalf("convergence %+v", s.Convergence)
	}
	type figs struct{ New, NewDefects, Repeats int }
	var got []figs
	for _, r := range s.Convergence.Rounds {
		got = append(got, figs{r.New, r.NewDefects, r.Repeats})
	}
	if want := []figs{{1, 1, 0}, {0, 0, 1}, {0, 0, 1}}; !reflect.DeepEqual(got, want) {
		t.Errorf("rounds' figures %+v, want %+v", got, want)
	}
	if want := "not converging: the same finding was restated 2 times (code-1/codex-F1, in code-2, code-3)"; s.Convergence.Trend != want {
		t.Errorf("trend %q\nwant %q", s.Convergence.Trend, want)
	}
}

// A finding that restates an earlier one closed as fixed (repeat_of), at
// the same place, so that it also corroborates it: spar status's next
// command is the gate's advice for reason 9r (a triage by the restated
// finding's class), never a duplicate triage of the finding it restates,
// which the gate holds closes nothing (docs/review-gate.md §3, 9r).
// The restatement comes from the same reviewer or from another one (then
// the two findings corroborate each other).
func TestStatus_RestatedFindingAdviceMatchesGate(t *testing.T) {
	for _, by := range []string{"codex", "claude"} {
		t.Run(by, func(t *testing.T) { restatedAdviceMatchesGate(t, by) })
	}
}

func restatedAdviceMatchesGate(t *testing.T, by string) {
	root, c := statusRepo(t, 3, "[[reviewers]]\nname = \"codex\"\npreset = \"codex\"\n\n[[reviewers]]\nname = \"claude\"\npreset = \"claude\"\n")
	for _, spec := range []fixture.Spec{
		{Dir: "reviews/s/code-1", Repo: "repo", Base: c[0], Head: c[1], Number: 1, StartedAt: "2026-01-01T00:00:01Z",
			Required: []string{"codex", "claude"}, Reviewers: []string{"codex=completed", "claude=completed"},
			// An id no result numbers so: the fixture writes the finding as
			// given, at the place it gives the repeat (app/main.go:1).
			Findings: []fixture.Finding{{ID: "codex-F9", Class: "defect"}},
			Ledger: []round.LedgerEntry{{Finding: "codex-F9", Disposition: "fixed", Commit: c[2],
				FailedBefore: "go test ./app failed", PassedAfter: "go test ./app passed"}}},
		{Dir: "reviews/s/code-2", Repo: "repo", Base: c[0], Head: c[2], Number: 2, StartedAt: "2026-01-01T00:00:02Z",
			Required: []string{"codex", "claude"}, Reviewers: []string{"codex=completed", "claude=completed"},
			Findings: []fixture.Finding{{ID: by + "-F1", Class: "defect", RepeatOf: "code-1/codex-F9"}}},
	} {
		if err := fixture.Write(root, spec); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := exec.Command("git", "-C", filepath.Join(root, "repo"), "update-ref", "refs/heads/main", c[2]).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	series := filepath.Join(root, "reviews", "s")
	s := mustStatus(t, series)
	rep := Explain(Options{Series: []string{series}})
	var clear string
	for _, r := range rep.Reasons {
		if strings.Contains(r.Problem, "restates code-1/codex-F9") {
			clear = r.Clear
		}
	}
	if clear == "" {
		t.Fatalf("the gate gives no reason for the restated finding: %q", rep.Record.Reasons)
	}
	// "fix it in a new commit and review the new head, then spar triage …"
	i := strings.Index(clear, "spar triage ")
	if i < 0 || !strings.Contains(clear, "--as fixed") {
		t.Fatalf("the gate's advice %q", clear)
	}
	gateCmd := clear[i:]
	if i := strings.Index(gateCmd, " (or "); i >= 0 {
		gateCmd = gateCmd[:i]
	}
	if s.Next != gateCmd {
		t.Errorf("status's next command %q\nthe gate's %q", s.Next, gateCmd)
	}
	for _, cr := range s.Corroborated {
		if len(cr.Duplicates) > 0 {
			t.Errorf("status suggests a duplicate of the finding it restates: %q", cr.Duplicates)
		}
	}
}
