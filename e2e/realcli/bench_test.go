package realcli

import (
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// gaps holds the refusal-to-fallback times the scripts' openai-gap and
// anthropic fallback-time commands measured, for BenchmarkRefusalToFallback.
var (
	gapMu sync.Mutex
	gaps  []time.Duration
)

func noteGap(d time.Duration) {
	gapMu.Lock()
	gaps = append(gaps, d)
	gapMu.Unlock()
}

// stops holds the crossing-to-stop times anthropic stop-time measured, for
// BenchmarkBudgetStop.
var stops []time.Duration

func noteStop(d time.Duration) {
	gapMu.Lock()
	stops = append(stops, d)
	gapMu.Unlock()
}

func takeStops() []time.Duration {
	gapMu.Lock()
	defer gapMu.Unlock()
	s := stops
	stops = nil
	return s
}

func takeGaps() []time.Duration {
	gapMu.Lock()
	defer gapMu.Unlock()
	g := gaps
	gaps = nil
	return g
}

// benchT runs testscript scripts one after the other inside a benchmark
// (testscript.RunT): a script's failure fails the benchmark with the
// script's log; a passing script's log is dropped (a benchmark prints
// every log line, and bench.txt is read for figures).
type benchT struct {
	b   *testing.B
	log *[]any
}

func (t benchT) Skip(a ...any) { t.b.Skip(a...) }
func (t benchT) Fatal(a ...any) {
	t.b.Log(*t.log...)
	t.b.Fatal(a...)
}
func (t benchT) Parallel()     {}
func (t benchT) Log(a ...any)  { *t.log = append(*t.log, a...) }
func (t benchT) FailNow()      { t.Fatal("script failed") }
func (t benchT) Verbose() bool { return testing.Verbose() }
func (t benchT) Run(name string, f func(testscript.T)) {
	f(t)
}

// BenchmarkRefusalToFallback measures, with the real CLIs against their
// mocks, the time from a quota refusal (the mock's first 429) to the first
// request of the fallback model (G13: the fallback starts at once): codex's
// usage limit (codex/usagelimit.txtar) and claude's rate limit
// (claude/ratelimit.txtar). It reports the slower of the two in seconds
// (`s/codex`, `s/claude`, `s/worst`); scripts/benchtable judges it against
// 5 s. The tests only log the figure: on a loaded machine it grows with
// the CLI's own start.
func BenchmarkRefusalToFallback(b *testing.B) {
	cases := []struct{ cli, script string }{
		{"codex", "usagelimit.txtar"},
		{"claude", "ratelimit.txtar"},
	}
	exes := map[string]string{}
	for _, c := range cases {
		p, why := "", ""
		for _, cl := range clis {
			if cl.Name == c.cli {
				p, why = exePath(cl)
			}
		}
		if p == "" {
			// A skipped benchmark prints no line; this one says why
			// it measured nothing (scripts/benchtable: "not run").
			b.Logf("real-CLI benchmark did not run: %s", why)
			b.ReportMetric(0, "clis-installed")
			return
		}
		exes[c.cli] = p
	}
	worst := map[string]time.Duration{}
	for i := 0; i < b.N; i++ {
		for _, c := range cases {
			p := params("", exes[c.cli])
			p.Files = []string{filepath.Join("testdata", c.cli, c.script)}
			takeGaps()
			testscript.RunT(benchT{b, new([]any)}, p)
			for _, g := range takeGaps() {
				worst[c.cli] = max(worst[c.cli], g)
			}
		}
	}
	all := time.Duration(0)
	for _, c := range cases {
		d, ok := worst[c.cli]
		if !ok {
			b.Fatalf("%s/%s measured no refusal-to-fallback time", c.cli, c.script)
		}
		b.ReportMetric(d.Seconds(), "s/"+c.cli)
		all = max(all, d)
	}
	b.ReportMetric(all.Seconds(), "s/worst")
	b.ReportMetric(1, "clis-installed")
}

// BenchmarkBudgetStop measures, with the real claude CLI against its mock,
// the time from the answer whose usage passes the reviewer's budget_usd
// (the mock's crossing answer, claude/budget.txtar) to the CLI's stop (its
// last connection to the mock closed): spar reads the assistant event,
// prices it and stops the process group (docs/review-round.md "Spend and
// budgets"). It reports seconds (`s/claude`); scripts/benchtable judges it
// against 2 s. The test only logs the figure.
func BenchmarkBudgetStop(b *testing.B) {
	var p string
	for _, cl := range clis {
		if cl.Name == "claude" {
			var why string
			if p, why = exePath(cl); p == "" {
				b.Logf("real-CLI benchmark did not run: %s", why)
				b.ReportMetric(0, "clis-installed")
				return
			}
		}
	}
	worst := time.Duration(0)
	measured := false
	for i := 0; i < b.N; i++ {
		ps := params("", p)
		ps.Files = []string{filepath.Join("testdata", "claude", "budget.txtar")}
		takeStops()
		testscript.RunT(benchT{b, new([]any)}, ps)
		for _, d := range takeStops() {
			worst, measured = max(worst, d), true
		}
	}
	if !measured {
		b.Fatal("claude/budget.txtar measured no crossing-to-stop time")
	}
	b.ReportMetric(worst.Seconds(), "s/claude")
	b.ReportMetric(1, "clis-installed")
}
