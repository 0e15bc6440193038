package disposition

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/exitcode"
	"github.com/jaekit/spar/lib/round"
)

func code(err error) int {
	if err == nil {
		return 0
	}
	var ee *exitcode.Error
	if errors.As(err, &ee) {
		return ee.Code
	}
	return exitcode.Internal
}

type triageSeries struct {
	repo, head, series, plan, code1, code2 string
}

// newSeries: a plan round and two code rounds, each with a defect, a
// requirement-question, a hardening and a note of the reviewer "claude".
func newSeries(t *testing.T) triageSeries {
	t.Helper()
	repo, head := gitRepo(t)
	s := triageSeries{repo: repo, head: head, series: filepath.Join(t.TempDir(), "login")}
	fs := func() []envelope.Finding {
		return []envelope.Finding{finding("claude-F1", "defect"), finding("claude-F2", "requirement-question"),
			finding("claude-F3", "hardening"), finding("claude-F4", "note")}
	}
	s.plan = writeRound(t, s.series, roundFixture{name: "plan-1", stage: "plan", repo: repo, started: "2026-01-01T00:00:00Z", findings: fs()})
	s.code1 = writeRound(t, s.series, roundFixture{name: "code-1", stage: "code", repo: repo, started: "2026-01-02T00:00:00Z", findings: fs()})
	s.code2 = writeRound(t, s.series, roundFixture{name: "code-2", stage: "code", repo: repo, started: "2026-01-03T00:00:00Z",
		findings: []envelope.Finding{finding("codex-F1", "defect"), finding("claude-F1", "note")}})
	return s
}

func opts(kv ...string) map[string]string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

// TestG30_DispositionRules runs every row of the disposition rules table
// (docs/review-round.md §8.2): the accepted forms append exactly one line, every broken
// rule is refused (65) or a usage error (64) with the ledger unchanged.
func TestG30_DispositionRules(t *testing.T) {
	s := newSeries(t)
	cases := []struct {
		name, round, finding, as string
		opts                     map[string]string
		want                     int
		check                    func(t *testing.T, e round.LedgerEntry)
		msg                      string
	}{
		// fixed
		{name: "fixed code defect", round: s.code1, finding: "claude-F1", as: "fixed",
			opts: opts("commit", "HEAD", "failed-before", "go test ./x fails", "passed-after", "go test ./x passes"),
			check: func(t *testing.T, e round.LedgerEntry) {
				if e.Commit != s.head || e.FailedBefore != "go test ./x fails" || e.PassedAfter != "go test ./x passes" {
					t.Errorf("%+v", e)
				}
			}},
		{name: "fixed code defect without checks", round: s.code1, finding: "claude-F1", as: "fixed",
			opts: opts("commit", "HEAD"), want: 65, msg: "missing: --failed-before, --passed-after"},
		{name: "fixed code defect without passed-after", round: s.code1, finding: "claude-F1", as: "fixed",
			opts: opts("commit", "HEAD", "failed-before", "x"), want: 65, msg: "missing: --passed-after"},
		{name: "fixed code defect blank failed-before", round: s.code1, finding: "claude-F1", as: "fixed",
			opts: opts("commit", "HEAD", "failed-before", " \t\n", "passed-after", "y"), want: 65, msg: "missing: --failed-before"},
		{name: "fixed plan defect needs only commit", round: s.plan, finding: "claude-F1", as: "fixed",
			opts: opts("commit", s.head[:10])},
		{name: "fixed code hardening needs only commit", round: s.code1, finding: "claude-F3", as: "fixed",
			opts: opts("commit", "HEAD")},
		{name: "fixed without commit", round: s.plan, finding: "claude-F4", as: "fixed", opts: opts(), want: 65, msg: "missing: --commit"},
		{name: "fixed blank commit", round: s.plan, finding: "claude-F4", as: "fixed", opts: opts("commit", "  "), want: 65, msg: "missing: --commit"},
		{name: "fixed commit not a revision", round: s.plan, finding: "claude-F4", as: "fixed", opts: opts("commit", "nope"), want: 65, msg: `--commit "nope" does not resolve`},
		{name: "fixed commit is an option", round: s.plan, finding: "claude-F4", as: "fixed", opts: opts("commit", "--all"), want: 65, msg: `--commit "--all"`},
		{name: "fixed commit a tree", round: s.plan, finding: "claude-F4", as: "fixed", opts: opts("commit", "HEAD^{tree}"), want: 65},
		{name: "fixed with evidence", round: s.plan, finding: "claude-F4", as: "fixed", opts: opts("commit", "HEAD", "evidence", "e"), want: 64, msg: "--evidence does not apply to --as fixed"},
		// rejected
		{name: "rejected", round: s.code1, finding: "claude-F1", as: "rejected", opts: opts("evidence", "  the file is generated  "),
			check: func(t *testing.T, e round.LedgerEntry) {
				if e.Evidence != "  the file is generated  " {
					t.Errorf("evidence not kept as received: %q", e.Evidence)
				}
			}},
		{name: "rejected without evidence", round: s.code1, finding: "claude-F1", as: "rejected", opts: opts(), want: 65, msg: "missing: --evidence"},
		{name: "rejected blank evidence", round: s.code1, finding: "claude-F1", as: "rejected", opts: opts("evidence", "\u00a0 "), want: 65},
		{name: "rejected with to", round: s.code1, finding: "claude-F1", as: "rejected", opts: opts("evidence", "e", "to", "x"), want: 64},
		{name: "rejected with blank commit counts as not given", round: s.code1, finding: "claude-F1", as: "rejected", opts: opts("evidence", "e", "commit", " ")},
		// duplicate
		{name: "duplicate in this round", round: s.code1, finding: "claude-F2", as: "duplicate", opts: opts("of", "claude-F1"),
			check: func(t *testing.T, e round.LedgerEntry) {
				if e.Of != "claude-F1" || e.OfRound != "code-1" {
					t.Errorf("%+v", e)
				}
			}},
		{name: "duplicate of earlier round", round: s.code2, finding: "codex-F1", as: "duplicate", opts: opts("of", "claude-F2"),
			check: func(t *testing.T, e round.LedgerEntry) {
				if e.Of != "claude-F2" || e.OfRound != "code-1" {
					t.Errorf("nearest earlier round first: %+v", e)
				}
			}},
		{name: "duplicate this round before earlier", round: s.code2, finding: "codex-F1", as: "duplicate", opts: opts("of", "claude-F1"),
			check: func(t *testing.T, e round.LedgerEntry) {
				if e.OfRound != "code-2" {
					t.Errorf("%+v", e)
				}
			}},
		{name: "duplicate ROUND/ID", round: s.code2, finding: "codex-F1", as: "duplicate", opts: opts("of", "plan-1/claude-F1"),
			check: func(t *testing.T, e round.LedgerEntry) {
				if e.Of != "plan-1/claude-F1" || e.OfRound != "plan-1" {
					t.Errorf("%+v", e)
				}
			}},
		{name: "duplicate of itself", round: s.code1, finding: "claude-F1", as: "duplicate", opts: opts("of", "claude-F1"), want: 65, msg: "not a duplicate of itself"},
		{name: "duplicate of itself ROUND/ID", round: s.code1, finding: "claude-F1", as: "duplicate", opts: opts("of", "code-1/claude-F1"), want: 65},
		{name: "duplicate of later round", round: s.code1, finding: "claude-F1", as: "duplicate", opts: opts("of", "codex-F1"), want: 65, msg: `--of "codex-F1" is not a finding`},
		{name: "duplicate of later round ROUND/ID", round: s.code1, finding: "claude-F1", as: "duplicate", opts: opts("of", "code-2/codex-F1"), want: 65},
		{name: "duplicate of unknown", round: s.code1, finding: "claude-F1", as: "duplicate", opts: opts("of", "claude-F9"), want: 65},
		{name: "duplicate of not literal", round: s.code1, finding: "claude-F2", as: "duplicate", opts: opts("of", " claude-F1"), want: 65},
		{name: "duplicate without of", round: s.code1, finding: "claude-F1", as: "duplicate", opts: opts(), want: 65, msg: "missing: --of"},
		// deferred
		{name: "deferred hardening", round: s.code1, finding: "claude-F3", as: "deferred", opts: opts("to", "ticket 12")},
		{name: "deferred note", round: s.code1, finding: "claude-F4", as: "deferred", opts: opts("to", "ticket 12")},
		{name: "deferred defect", round: s.code1, finding: "claude-F1", as: "deferred", opts: opts("to", "ticket 12", "user-quote", "later, ok"),
			check: func(t *testing.T, e round.LedgerEntry) {
				if e.To != "ticket 12" || e.UserQuote != "later, ok" {
					t.Errorf("%+v", e)
				}
			}},
		{name: "deferred defect without quote", round: s.code1, finding: "claude-F1", as: "deferred", opts: opts("to", "ticket 12"), want: 65, msg: "missing: --user-quote"},
		{name: "deferred question without quote", round: s.code1, finding: "claude-F2", as: "deferred", opts: opts("to", "ticket 12", "user-quote", " "), want: 65},
		{name: "deferred without to", round: s.code1, finding: "claude-F3", as: "deferred", opts: opts(), want: 65, msg: "missing: --to"},
		// accepted
		{name: "accepted defect", round: s.code1, finding: "claude-F1", as: "accepted", opts: opts("user-quote", "keep it")},
		{name: "accepted question", round: s.code1, finding: "claude-F2", as: "accepted", opts: opts("user-quote", "keep it"), want: 65, msg: "only for a defect"},
		{name: "accepted hardening", round: s.code1, finding: "claude-F3", as: "accepted", opts: opts("user-quote", "keep it"), want: 65},
		{name: "accepted without quote", round: s.code1, finding: "claude-F1", as: "accepted", opts: opts(), want: 65},
		// answered
		{name: "answered question", round: s.code1, finding: "claude-F2", as: "answered", opts: opts("user-quote", "yes, both")},
		{name: "answered defect", round: s.code1, finding: "claude-F1", as: "answered", opts: opts("user-quote", "x"), want: 65, msg: "only for a requirement-question"},
		{name: "answered note", round: s.code1, finding: "claude-F4", as: "answered", opts: opts("user-quote", "x"), want: 65},
		{name: "answered blank quote", round: s.code1, finding: "claude-F2", as: "answered", opts: opts("user-quote", ""), want: 65},
		// finding and disposition
		{name: "unknown finding", round: s.code1, finding: "claude-F9", as: "rejected", opts: opts("evidence", "e"), want: 65, msg: `finding "claude-F9" is not in round`},
		{name: "finding not literal", round: s.code1, finding: "Claude-F1", as: "rejected", opts: opts("evidence", "e"), want: 65},
		{name: "finding of another round", round: s.code2, finding: "claude-F2", as: "rejected", opts: opts("evidence", "e"), want: 65},
		{name: "unknown disposition", round: s.code1, finding: "claude-F1", as: "Fixed", opts: opts("commit", "HEAD"), want: 64},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ledger := filepath.Join(c.round, round.LedgerFile)
			before := readFile(t, ledger)
			var stderr bytes.Buffer
			e, err := Triage(TriageRequest{Round: c.round, Finding: c.finding, Disposition: c.as, Options: c.opts}, &stderr)
			if got := code(err); got != c.want {
				t.Fatalf("exit %d, want %d (%v)", got, c.want, err)
			}
			after := readFile(t, ledger)
			if c.want != 0 {
				if after != before {
					t.Errorf("refused but the ledger changed:\n%s", after)
				}
				if c.msg != "" && !strings.Contains(err.Error(), c.msg) {
					t.Errorf("message %q does not contain %q", err, c.msg)
				}
				if !strings.HasPrefix(err.Error(), "triage: ") {
					t.Errorf("message %q", err)
				}
				return
			}
			if !strings.HasPrefix(after, before) || strings.Count(after[len(before):], "\n") != 1 {
				t.Fatalf("want exactly one appended line:\nbefore %q\nafter %q", before, after)
			}
			all, err := round.ReadLedger(c.round)
			if err != nil {
				t.Fatal(err)
			}
			last := all[len(all)-1]
			if last != e || e.Finding != c.finding || e.Disposition != c.as || e.At == "" || e.Auto {
				t.Errorf("appended %+v, returned %+v", last, e)
			}
			if c.check != nil {
				c.check(t, e)
			}
		})
	}
}

// TestG32_TriageRefusesUnreadableRecords: the round's records that triage
// reads (round.json, findings.json, ledger.jsonl, earlier rounds for --of)
// must read back; otherwise refused with nothing written.
func TestG32_TriageRefusesUnreadableRecords(t *testing.T) {
	try := func(t *testing.T, dir string, as string, o map[string]string, msg string) {
		t.Helper()
		before := readFile(t, filepath.Join(dir, round.LedgerFile))
		_, err := Triage(TriageRequest{Round: dir, Finding: "claude-F1", Disposition: as, Options: o}, &bytes.Buffer{})
		if code(err) != 65 || !strings.Contains(err.Error(), msg) {
			t.Fatalf("got %v, want 65 with %q", err, msg)
		}
		if after := readFile(t, filepath.Join(dir, round.LedgerFile)); after != before {
			t.Fatalf("ledger changed: %q", after)
		}
	}
	rej := opts("evidence", "e")
	t.Run("missing round folder", func(t *testing.T) {
		try(t, filepath.Join(t.TempDir(), "s", "r"), "rejected", rej, "is not a round folder")
	})
	t.Run("missing round.json", func(t *testing.T) {
		s := newSeries(t)
		os.Remove(filepath.Join(s.code1, round.RoundFile))
		try(t, s.code1, "rejected", rej, "round.json")
	})
	t.Run("round.json not JSON", func(t *testing.T) {
		s := newSeries(t)
		os.WriteFile(filepath.Join(s.code1, round.RoundFile), []byte("{"), 0o644)
		try(t, s.code1, "rejected", rej, "not a review-round/v1 record")
	})
	t.Run("other schema", func(t *testing.T) {
		s := newSeries(t)
		b := readFile(t, filepath.Join(s.code1, round.RoundFile))
		os.WriteFile(filepath.Join(s.code1, round.RoundFile), []byte(strings.Replace(b, "review-round/v1", "review-round/v2", 1)), 0o644)
		try(t, s.code1, "rejected", rej, `schema "review-round/v2"`)
	})
	t.Run("stopped before recording", func(t *testing.T) {
		repo, _ := gitRepo(t)
		dir := writeRound(t, filepath.Join(t.TempDir(), "s"), roundFixture{name: "code-1", stage: "code", repo: repo, unfinished: true,
			findings: []envelope.Finding{finding("claude-F1", "defect")}})
		try(t, dir, "rejected", rej, "stopped before recording")
	})
	t.Run("findings.json changed", func(t *testing.T) {
		s := newSeries(t)
		os.WriteFile(filepath.Join(s.code1, round.FindingsFile), []byte(`{"schema":"review-round/v1","round":"code-1","findings":[]}`), 0o644)
		try(t, s.code1, "rejected", rej, "stopped before recording")
	})
	t.Run("findings.json missing", func(t *testing.T) {
		s := newSeries(t)
		os.Remove(filepath.Join(s.code1, round.FindingsFile))
		try(t, s.code1, "rejected", rej, "findings.json is missing")
	})
	t.Run("ledger line not JSON", func(t *testing.T) {
		s := newSeries(t)
		os.WriteFile(filepath.Join(s.code1, round.LedgerFile), []byte("{\"finding\":\"claude-F3\",\"disposition\":\"deferred\",\"auto\":true,\"at\":\"x\"}\nnot json\n"), 0o644)
		try(t, s.code1, "rejected", rej, "ledger.jsonl: line 2: not JSON")
	})
	t.Run("ledger line without disposition", func(t *testing.T) {
		s := newSeries(t)
		os.WriteFile(filepath.Join(s.code1, round.LedgerFile), []byte("{\"finding\":\"claude-F3\",\"at\":\"x\"}\n"), 0o644)
		try(t, s.code1, "rejected", rej, "missing finding or disposition")
	})
	t.Run("earlier round unreadable for --of", func(t *testing.T) {
		s := newSeries(t)
		os.WriteFile(filepath.Join(s.code1, round.RoundFile), []byte("garbage"), 0o644)
		_, err := Triage(TriageRequest{Round: s.code2, Finding: "codex-F1", Disposition: "duplicate", Options: opts("of", "claude-F2")}, &bytes.Buffer{})
		if code(err) != 65 || !strings.Contains(err.Error(), `round "code-1" of the series`) {
			t.Fatalf("%v", err)
		}
	})
	t.Run("earlier round stopped before recording is skipped", func(t *testing.T) {
		s := newSeries(t)
		b := readFile(t, filepath.Join(s.code1, round.RoundFile))
		b = strings.Replace(b, `"finished_at": "2026-01-02T00:00:00Z"`, `"finished_at": null`, 1)
		os.WriteFile(filepath.Join(s.code1, round.RoundFile), []byte(b), 0o644)
		e, err := Triage(TriageRequest{Round: s.code2, Finding: "codex-F1", Disposition: "duplicate", Options: opts("of", "claude-F2")}, &bytes.Buffer{})
		if err != nil || e.OfRound != "plan-1" {
			t.Fatalf("%+v %v", e, err)
		}
	})
}

// TestG30_LastLineDecidesAppendOnly: later triage appends; nothing is
// rewritten, and an automatic deferral stays before it.
func TestG30_LastLineDecidesAppendOnly(t *testing.T) {
	s := newSeries(t)
	auto := "{\"finding\":\"claude-F3\",\"disposition\":\"deferred\",\"auto\":true,\"at\":\"2026-01-02T00:00:00Z\"}\n"
	os.WriteFile(filepath.Join(s.code1, round.LedgerFile), []byte(auto), 0o644)
	for _, as := range []struct{ as, k, v string }{{"rejected", "evidence", "e"}, {"fixed", "commit", "HEAD"}} {
		if _, err := Triage(TriageRequest{Round: s.code1, Finding: "claude-F3", Disposition: as.as, Options: opts(as.k, as.v)}, &bytes.Buffer{}); err != nil {
			t.Fatal(err)
		}
	}
	got := readFile(t, filepath.Join(s.code1, round.LedgerFile))
	if !strings.HasPrefix(got, auto) || strings.Count(got, "\n") != 3 {
		t.Fatalf("%s", got)
	}
	l, _ := round.ReadLedger(s.code1)
	if l[2].Disposition != "fixed" || l[2].Commit != s.head {
		t.Fatalf("%+v", l[2])
	}
}

// TestCutPartialTail: a line a crash cut short (no newline) is what readers
// skip; the next append removes it instead of gluing a line to it.
func TestCutPartialTail(t *testing.T) {
	s := newSeries(t)
	whole := "{\"finding\":\"claude-F3\",\"disposition\":\"deferred\",\"auto\":true,\"at\":\"x\"}\n"
	os.WriteFile(filepath.Join(s.code1, round.LedgerFile), []byte(whole+`{"finding":"claude-F1","dispo`), 0o644)
	if _, err := Triage(TriageRequest{Round: s.code1, Finding: "claude-F4", Disposition: "rejected", Options: opts("evidence", "e")}, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	l, err := round.ReadLedger(s.code1)
	if err != nil || len(l) != 2 || l[1].Finding != "claude-F4" {
		t.Fatalf("%+v %v\n%s", l, err, readFile(t, filepath.Join(s.code1, round.LedgerFile)))
	}
	if got := readFile(t, filepath.Join(s.code1, round.LedgerFile)); !strings.HasPrefix(got, whole+"{\"finding\":\"claude-F4\"") {
		t.Fatalf("%q", got)
	}
}
