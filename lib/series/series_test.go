package series

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jaekit/spar/lib/atomic"
	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/pipe"
	"github.com/jaekit/spar/lib/round"
)

type fixture struct {
	name, stage, head, packet, started string
	dry, counted, finished             bool
	completed                          []string
	failed                             []string
	// argv is a reviewer's argv in the round's config.reviewers (default:
	// its name); every reviewer of the round has an entry.
	argv map[string]string
}

// entry is a command reviewer's applied entry with argv [a].
func entry(name, a string) envelope.Reviewer {
	return envelope.Reviewer{Name: name, Preset: "command", Isolation: "unverified", Argv: []string{a}, TimeoutSeconds: 60}
}

// entries are the applied entries of names, each with its name as argv.
func entries(names ...string) []envelope.Reviewer {
	var out []envelope.Reviewer
	for _, n := range names {
		out = append(out, entry(n, n))
	}
	return out
}

func writeRound(t *testing.T, series string, f fixture) {
	t.Helper()
	dir := filepath.Join(series, f.name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	rec := round.Record{Schema: round.Schema, Name: f.name, Stage: f.stage, Base: "b", Head: f.head,
		PacketSHA256: f.packet, StartedAt: f.started, DryRun: f.dry, Cap: envelope.Cap{Counted: f.counted}}
	for _, n := range f.completed {
		rec.Reviewers = append(rec.Reviewers, round.Reviewer{Name: n, Status: "completed"})
	}
	for _, n := range f.failed {
		rec.Reviewers = append(rec.Reviewers, round.Reviewer{Name: n, Status: "timed_out"})
	}
	for _, rv := range rec.Reviewers {
		a := rv.Name
		if v, ok := f.argv[rv.Name]; ok {
			a = v
		}
		rec.Config.Reviewers = append(rec.Config.Reviewers, entry(rv.Name, a))
	}
	if f.finished {
		fb, _ := pipe.MarshalIndent(round.Findings{Schema: round.Schema, Round: f.name, Findings: []envelope.Finding{}})
		if err := atomic.WriteFile(filepath.Join(dir, round.FindingsFile), fb, 0o644); err != nil {
			t.Fatal(err)
		}
		sum := round.SHA256(fb)
		at := f.started
		rec.FinishedAt, rec.FindingsSHA256 = &at, &sum
	}
	if err := round.WriteJSON(filepath.Join(dir, round.RoundFile), rec); err != nil {
		t.Fatal(err)
	}
}

var caps = envelope.Caps{Plan: 1, PlanDelta: 1, Code: 2}

func TestCaps_MissingSeriesHasNoRounds(t *testing.T) {
	d, err := Decide(filepath.Join(t.TempDir(), "nope"), "code", "b", "h1", "p1", false, caps, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !d.Cap.Counted || d.Cap.Number != 1 || d.Cap.Limit != 2 || d.Cap.Stage != "code" || d.Refusal != "" || d.Cap.RerunOf != nil {
		t.Fatalf("%+v", d)
	}
}

func TestCaps_CountsAndRefusesPastLimit(t *testing.T) {
	s := t.TempDir()
	writeRound(t, s, fixture{name: "code-1", stage: "code", head: "h1", packet: "p1", started: "2026-01-01T00:00:01Z", counted: true, finished: true})
	writeRound(t, s, fixture{name: "dry", stage: "code", head: "h2", packet: "p2", started: "2026-01-01T00:00:02Z", dry: true, finished: true})
	writeRound(t, s, fixture{name: "stopped", stage: "code", head: "h3", packet: "p3", started: "2026-01-01T00:00:03Z", counted: true})
	writeRound(t, s, fixture{name: "plan-1", stage: "plan", head: "h0", packet: "p0", started: "2026-01-01T00:00:00Z", counted: true, finished: true})
	writeRound(t, s, fixture{name: "code-2", stage: "code", head: "h4", packet: "p4", started: "2026-01-01T00:00:04Z", counted: true, finished: true})
	d, err := Decide(s, "code", "b", "h5", "p5", false, caps, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !d.Cap.Counted || d.Cap.Number != 3 || d.Cap.Limit != 2 {
		t.Fatalf("%+v", d.Cap)
	}
	for _, want := range []string{`"code"`, "round 3", "limit is 2", "spar extend " + s + " --stage code --by 1 --cause"} {
		if !strings.Contains(d.Refusal, want) {
			t.Errorf("refusal %q lacks %q", d.Refusal, want)
		}
	}
	// An extension of the stage allows it; one of another stage does not.
	if err := atomic.AppendLine(filepath.Join(s, round.ExtensionFile), []byte(`{"stage":"plan","by":3,"at":"x"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if d, _ := Decide(s, "code", "b", "h5", "p5", false, caps, nil, nil, nil); d.Refusal == "" {
		t.Fatal("plan extension allowed a code round")
	}
	if err := atomic.AppendLine(filepath.Join(s, round.ExtensionFile), []byte(`{"stage":"code","by":1,"cause":"churn","at":"x"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err = Decide(s, "code", "b", "h5", "p5", false, caps, nil, nil, nil)
	if err != nil || d.Refusal != "" || d.Cap.Limit != 3 || d.Cap.Number != 3 {
		t.Fatalf("%+v %v", d, err)
	}
	// plan-delta is its own stage with key plan_delta.
	d, _ = Decide(s, "plan-delta", "b", "h5", "p5", false, caps, nil, nil, nil)
	if d.Cap.Stage != "plan_delta" || d.Cap.Number != 1 || d.Refusal != "" {
		t.Fatalf("%+v", d)
	}
	// The plan extension counts for plan: round 2 of plan within 1+3.
	d, _ = Decide(s, "plan", "b", "h5", "p5", false, caps, nil, nil, nil)
	if d.Refusal != "" || d.Cap.Number != 2 || d.Cap.Limit != 4 {
		t.Fatalf("plan %+v", d)
	}
	if c := ExtendCommand("/s s", "plan"); c != "spar extend '/s s' --stage plan --by 1" {
		t.Fatalf("plan command %q", c)
	}
}

func TestCaps_DryRunNeverCountedNorRefused(t *testing.T) {
	s := t.TempDir()
	writeRound(t, s, fixture{name: "plan-1", stage: "plan", head: "h0", packet: "p0", started: "1", counted: true, finished: true})
	d, err := Decide(s, "plan", "b", "h1", "p1", true, caps, nil, nil, nil)
	if err != nil || d.Cap.Counted || d.Cap.Number != 0 || d.Refusal != "" || d.Cap.RerunOf != nil {
		t.Fatalf("%+v %v", d, err)
	}
}

func TestCaps_RerunRunsOnlyUnfinishedReviewers(t *testing.T) {
	s := t.TempDir()
	writeRound(t, s, fixture{name: "code-1", stage: "code", head: "h1", packet: "p1", started: "1", counted: true, finished: true, completed: []string{"claude"}, failed: []string{"codex", "agy"}})
	writeRound(t, s, fixture{name: "code-1b", stage: "code", head: "h1", packet: "p1", started: "2", finished: true, completed: []string{"codex"}, failed: []string{"agy"}})
	writeRound(t, s, fixture{name: "code-2", stage: "code", head: "h2", packet: "p2", started: "3", counted: true, finished: true})
	d, err := Decide(s, "code", "b", "h1", "p1", false, caps, entries("claude", "codex", "agy"), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.Cap.Counted || d.Cap.Number != 0 || d.Cap.RerunOf == nil || *d.Cap.RerunOf != "code-1" || d.Refusal != "" {
		t.Fatalf("%+v", d.Cap)
	}
	if len(d.Completed) != 2 || d.Completed["claude"] != "code-1" || d.Completed["codex"] != "code-1b" {
		t.Fatalf("completed %v", d.Completed)
	}
	// A changed packet (for example other standpoints) is a new input: counted, and here refused.
	d, _ = Decide(s, "code", "b", "h1", "p1x", false, caps, nil, nil, nil)
	if !d.Cap.Counted || d.Refusal == "" {
		t.Fatalf("%+v", d)
	}
	// A different base is a new input too.
	d, _ = Decide(s, "code", "b2", "h1", "p1", false, caps, nil, nil, nil)
	if !d.Cap.Counted {
		t.Fatalf("%+v", d)
	}
}

// TestTrust_ReuseOnlySignedRounds: with a trust function (review in CI:
// the job's signature, lib/sign), a completed review in a round it refuses
// is reviewed again, naming why; one in a round it accepts is kept. A
// rerun of a trusted counted round stays a rerun.
func TestTrust_ReuseOnlySignedRounds(t *testing.T) {
	s := t.TempDir()
	writeRound(t, s, fixture{name: "code-1", stage: "code", head: "h1", packet: "p1", started: "1", counted: true, finished: true, completed: []string{"claude"}, failed: []string{"codex"}})
	writeRound(t, s, fixture{name: "code-1b", stage: "code", head: "h1", packet: "p1", started: "2", finished: true, completed: []string{"codex"}})
	trusted := func(dir string) error {
		if filepath.Base(dir) == "code-1b" {
			return errors.New("round code-1 is not signed")
		}
		return nil
	}
	d, err := Decide(s, "code", "b", "h1", "p1", false, caps, entries("claude", "codex"), nil, trusted)
	if err != nil {
		t.Fatal(err)
	}
	if d.Cap.Counted || d.Cap.RerunOf == nil || *d.Cap.RerunOf != "code-1" {
		t.Fatalf("%+v", d.Cap)
	}
	if len(d.Completed) != 1 || d.Completed["claude"] != "code-1" {
		t.Errorf("completed %v, want claude from code-1 alone", d.Completed)
	}
	if d.Again["codex"] != "round code-1 is not signed" {
		t.Errorf("again %v", d.Again)
	}
}

// TestTrust_RerunNeverOfAnUnsignedRound: a counted round of the same input
// that the trust function refuses (the agent's round, published before the
// job ran) is no round the job's round repeats: the job's round is counted,
// and is the series' latest input, with none of the agent's reviews.
func TestTrust_RerunNeverOfAnUnsignedRound(t *testing.T) {
	s := t.TempDir()
	writeRound(t, s, fixture{name: "code-1", stage: "code", head: "h1", packet: "p1", started: "1", counted: true, finished: true, completed: []string{"claude"}})
	trusted := func(dir string) error { return errors.New("not signed") }
	d, err := Decide(s, "code", "b", "h1", "p1", false, caps, entries("claude"), nil, trusted)
	if err != nil {
		t.Fatal(err)
	}
	if !d.Cap.Counted || d.Cap.RerunOf != nil || d.Cap.Number != 2 || len(d.Completed) != 0 {
		t.Fatalf("%+v %v", d.Cap, d.Completed)
	}
}

// A reviewer whose applied entry changed since the round where it completed
// (its argv fixed) reviews the same input again; a round where it completed
// with today's entry keeps it; --rerun runs a completed reviewer again. The
// round stays a rerun, not counted, either way.
func TestRerun_CompletedOnlyWithTheSameEntry(t *testing.T) {
	s := t.TempDir()
	writeRound(t, s, fixture{name: "code-1", stage: "code", head: "h1", packet: "p1", started: "1", counted: true, finished: true,
		completed: []string{"vet", "example"}, argv: map[string]string{"vet": "old-vet"}})
	cur := entries("vet", "example")
	d, err := Decide(s, "code", "b", "h1", "p1", false, caps, cur, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.Cap.Counted || d.Cap.RerunOf == nil || *d.Cap.RerunOf != "code-1" {
		t.Fatalf("%+v", d.Cap)
	}
	if len(d.Completed) != 1 || d.Completed["example"] != "code-1" {
		t.Fatalf("completed %v", d.Completed)
	}
	if d.Again["vet"] != "its configuration changed since round code-1 (argv)" || len(d.Again) != 1 {
		t.Fatalf("again %v", d.Again)
	}
	// Any key of the entry counts: the model, the time limit.
	m := "other-model"
	for _, change := range []func(*envelope.Reviewer){
		func(r *envelope.Reviewer) { r.Model = &m },
		func(r *envelope.Reviewer) { r.TimeoutSeconds = 61 },
		func(r *envelope.Reviewer) { r.Preset = "claude" },
	} {
		c := entries("vet", "example")
		change(&c[1])
		d, _ = Decide(s, "code", "b", "h1", "p1", false, caps, c, nil, nil)
		if _, ok := d.Completed["example"]; ok || d.Again["example"] == "" {
			t.Fatalf("a changed entry %+v kept the review: %v %v", c[1], d.Completed, d.Again)
		}
	}
	// The rerun where vet completed with today's argv is the one it keeps.
	writeRound(t, s, fixture{name: "code-1b", stage: "code", head: "h1", packet: "p1", started: "2", finished: true, completed: []string{"vet"}})
	d, _ = Decide(s, "code", "b", "h1", "p1", false, caps, cur, nil, nil)
	if d.Completed["vet"] != "code-1b" || d.Completed["example"] != "code-1" || len(d.Again) != 0 {
		t.Fatalf("completed %v again %v", d.Completed, d.Again)
	}
	// --rerun example: it runs again, vet keeps code-1b.
	d, _ = Decide(s, "code", "b", "h1", "p1", false, caps, cur, []string{"example"}, nil)
	if d.Cap.Counted || len(d.Completed) != 1 || d.Completed["vet"] != "code-1b" || d.Again["example"] != "--rerun (it completed in round code-1)" {
		t.Fatalf("%+v completed %v again %v", d.Cap, d.Completed, d.Again)
	}
	if err := CheckRerun([]string{"example", "vet"}, cur); err != nil {
		t.Fatal(err)
	}
	if err := CheckRerun([]string{"Vet"}, cur); err == nil || err.Error() != `--rerun "Vet": not a reviewer of this round (its reviewers: vet, example)` {
		t.Fatalf("%v", err)
	}
}

func TestCaps_StoppedRoundIsNotRerunBase(t *testing.T) {
	s := t.TempDir()
	writeRound(t, s, fixture{name: "code-1", stage: "code", head: "h1", packet: "p1", started: "1", counted: true, completed: []string{"claude"}})
	d, err := Decide(s, "code", "b", "h1", "p1", false, caps, nil, nil, nil)
	if err != nil || !d.Cap.Counted || d.Cap.Number != 1 || d.Cap.RerunOf != nil || len(d.Completed) != 0 {
		t.Fatalf("%+v %v", d, err)
	}
}

func TestG32_UnreadableRecordIsAnError(t *testing.T) {
	s := t.TempDir()
	os.MkdirAll(filepath.Join(s, "r1"), 0o755)
	os.WriteFile(filepath.Join(s, "r1", round.RoundFile), []byte(`{"schema":"other/v9"}`), 0o644)
	if _, err := Decide(s, "code", "b", "h", "p", false, caps, nil, nil, nil); err == nil {
		t.Fatal("no error for a foreign schema")
	}
	s2 := t.TempDir()
	os.WriteFile(filepath.Join(s2, round.ExtensionFile), []byte("not json\n"), 0o644)
	if _, err := Decide(s2, "code", "b", "h", "p", false, caps, nil, nil, nil); err == nil {
		t.Fatal("no error for an unreadable extensions.jsonl")
	}
	if _, err := Decide(s2, "review", "b", "h", "p", false, caps, nil, nil, nil); err == nil {
		t.Fatal("no error for an unknown stage")
	}
}

// docs/review-round.md §8.6, "A round in which no reviewer could start":
// a counted round whose every reviewer is unavailable before reaching a
// model is recorded not counted; a reviewer that started (any other
// status, or unavailable after a tool, a model or usage) keeps it
// counted; settling again gives the same cap (a re-recording), and a
// settled cap whose round now has a reviewer that started is counted
// again. Dry runs and reruns are left as decided.
func TestCaps_NoReviewerStartedIsNotCounted(t *testing.T) {
	model, n := "m", int64(5)
	gone := round.Reviewer{Name: "a", Status: envelope.StatusUnavailable}
	refused := round.Reviewer{Name: "b", Status: envelope.StatusUnavailable, Attempts: []envelope.Attempt{{Status: envelope.StatusUnavailable}}}
	decided := envelope.Cap{Stage: "code", Counted: true, Number: 3, Limit: 3}
	why := NoReviewerStarted
	notCounted := envelope.Cap{Stage: "code", Counted: false, Number: 3, Limit: 3, NotCounted: &why}
	rerunOf := "code-1"
	cases := []struct {
		name string
		cap  envelope.Cap
		dry  bool
		rs   []round.Reviewer
		want envelope.Cap
	}{
		{"every reviewer unavailable", decided, false, []round.Reviewer{gone, refused}, notCounted},
		{"settled again", notCounted, false, []round.Reviewer{gone, refused}, notCounted},
		{"one failed", decided, false, []round.Reviewer{gone, {Name: "c", Status: envelope.StatusFailed}}, decided},
		{"one completed", decided, false, []round.Reviewer{gone, {Name: "c", Status: envelope.StatusCompleted}}, decided},
		{"one pending (the host's subagent)", decided, false, []round.Reviewer{gone, {Name: "n", Status: envelope.StatusPending}}, decided},
		{"refused after a tool", decided, false, []round.Reviewer{gone, {Name: "c", Status: envelope.StatusUnavailable, Tools: []string{"Read"}}}, decided},
		{"refused after the model answered", decided, false, []round.Reviewer{gone, {Name: "c", Status: envelope.StatusUnavailable, ObservedModel: &model}}, decided},
		{"an attempt stated usage", decided, false, []round.Reviewer{gone, {Name: "c", Status: envelope.StatusUnavailable,
			Attempts: []envelope.Attempt{{Status: envelope.StatusUnavailable, Usage: &envelope.Usage{OutputTokens: &n}}}}}, decided},
		{"an attempt stated a cost of 0 (claude's refusal)", decided, false, []round.Reviewer{gone, {Name: "c", Status: envelope.StatusUnavailable,
			Attempts: []envelope.Attempt{{Status: envelope.StatusUnavailable, Usage: &envelope.Usage{CostUSD: new(float64)}}}}}, notCounted},
		{"an attempt stated a model", decided, false, []round.Reviewer{gone, {Name: "c", Status: envelope.StatusUnavailable,
			Attempts: []envelope.Attempt{{Status: envelope.StatusUnavailable}, {Status: envelope.StatusUnavailable, ObservedModel: &model}}}}, decided},
		{"settled, now a reviewer started", notCounted, false, []round.Reviewer{gone, {Name: "n", Status: envelope.StatusCompleted}}, decided},
		{"no reviewers", decided, false, nil, decided},
		{"dry run", envelope.Cap{Stage: "code", Limit: 3}, true, []round.Reviewer{gone}, envelope.Cap{Stage: "code", Limit: 3}},
		{"rerun", envelope.Cap{Stage: "code", Limit: 3, RerunOf: &rerunOf}, false, []round.Reviewer{gone}, envelope.Cap{Stage: "code", Limit: 3, RerunOf: &rerunOf}},
	}
	for _, c := range cases {
		got := Settle(c.cap, c.dry, c.rs)
		if got.Counted != c.want.Counted || got.Number != c.want.Number || got.Limit != c.want.Limit ||
			(got.NotCounted == nil) != (c.want.NotCounted == nil) || (got.NotCounted != nil && *got.NotCounted != *c.want.NotCounted) ||
			(got.RerunOf == nil) != (c.want.RerunOf == nil) {
			t.Errorf("%s: Settle = %+v, want %+v", c.name, got, c.want)
		}
	}

	// The next decision reads the settled record: a round not counted
	// leaves the count where it was, and is no round to rerun.
	s := t.TempDir()
	writeRound(t, s, fixture{name: "code-1", stage: "code", head: "h1", packet: "p1", started: "2026-01-01T00:00:01Z", counted: true, finished: true})
	writeRound(t, s, fixture{name: "code-2", stage: "code", head: "h2", packet: "p2", started: "2026-01-01T00:00:02Z", counted: false, finished: true})
	d, err := Decide(s, "code", "b", "h2", "p2", false, caps, nil, nil, nil)
	if err != nil || !d.Cap.Counted || d.Cap.Number != 2 || d.Cap.RerunOf != nil || d.Refusal != "" {
		t.Fatalf("after a round not counted: %+v %v", d, err)
	}
}
