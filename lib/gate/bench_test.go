package gate

// The gate's scale (docs/review-gate.md §7): a generated series of rounds of 50 findings
// each, with ledgers, gated whole. Target: 1,000 rounds under 1 s, cost
// linear in rounds (BenchmarkGateRatio reports the 1000/100 ratio).

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/jaekit/spar/lib/gate/fixture"
)

var (
	benchMu   sync.Mutex
	benchRoot string
	benchSets = map[int][]string{}
)

func TestMain(m *testing.M) {
	code := m.Run()
	if benchRoot != "" {
		os.RemoveAll(benchRoot)
	}
	os.Exit(code)
}

// benchSeries writes (once per size) a series of n counted code rounds of 50
// findings each: 10 defects fixed by their round's head, 5 questions
// answered, 25 hardening deferred automatically, 10 notes; the required
// reviewer completed; two documents.
func benchSeries(tb testing.TB, n int) []string {
	benchMu.Lock()
	defer benchMu.Unlock()
	if dirs, ok := benchSets[n]; ok {
		return dirs
	}
	if benchRoot == "" {
		d, err := os.MkdirTemp("", "spar-gate-bench-")
		if err != nil {
			tb.Fatal(err)
		}
		benchRoot = d
	}
	dirs := fixture.Series(tb, filepath.Join(benchRoot, fmt.Sprint(n)), n)
	benchSets[n] = dirs
	return dirs
}

// benchEnv is the environment of the gate's own configuration in the
// benchmark and the tests: a user configuration whose one reviewer, codex,
// is required (docs/review-gate.md §3: the gate adds the reviewers its own
// configuration requires).
func benchEnv(tb testing.TB) func(string) string {
	path := filepath.Join(tb.TempDir(), "spar.toml")
	if err := os.WriteFile(path, []byte("[[reviewers]]\nname = \"codex\"\npreset = \"codex\"\n"), 0o644); err != nil {
		tb.Fatal(err)
	}
	return func(k string) string {
		if k == "SPAR_CONFIG" {
			return path
		}
		return ""
	}
}

func gateOnce(tb testing.TB, dirs []string) {
	gateEnv(tb, dirs, nil)
}

func gateEnv(tb testing.TB, dirs []string, getenv func(string) string) {
	if getenv == nil {
		getenv = benchEnv(tb)
	}
	rec := Decide(Options{Rounds: dirs, Getenv: getenv})
	if rec.State != Passed {
		tb.Fatalf("benchmark series blocked: %q", rec.Reasons[:min(3, len(rec.Reasons))])
	}
	if len(rec.Growth) != len(dirs) || rec.AutoDeferred != 25*len(dirs) {
		tb.Fatalf("growth %d, auto_deferred %d", len(rec.Growth), rec.AutoDeferred)
	}
}

func BenchmarkGate(b *testing.B) {
	for _, n := range []int{100, 1000} {
		b.Run(fmt.Sprintf("rounds=%d", n), func(b *testing.B) {
			dirs := benchSeries(b, n)
			env := benchEnv(b)
			b.ResetTimer()
			c0 := fixture.CPUTime()
			for i := 0; i < b.N; i++ {
				gateEnv(b, dirs, env)
			}
			b.ReportMetric((fixture.CPUTime()-c0).Seconds()/float64(b.N), "cpu-s/op")
		})
	}
}

// BenchmarkGateRatio gates 100 and 1,000 rounds in each iteration and
// reports both times and their ratio (10 means linear).
func BenchmarkGateRatio(b *testing.B) {
	small, large := benchSeries(b, 100), benchSeries(b, 1000)
	env := benchEnv(b)
	b.ResetTimer()
	var ts, tl, cs, cl time.Duration
	for i := 0; i < b.N; i++ {
		t0, c0 := time.Now(), fixture.CPUTime()
		gateEnv(b, small, env)
		t1, c1 := time.Now(), fixture.CPUTime()
		gateEnv(b, large, env)
		ts += t1.Sub(t0)
		tl += time.Since(t1)
		cs += c1 - c0
		cl += fixture.CPUTime() - c1
	}
	b.ReportMetric(ts.Seconds()/float64(b.N), "s/100rounds")
	b.ReportMetric(tl.Seconds()/float64(b.N), "s/1000rounds")
	b.ReportMetric(float64(tl)/float64(ts), "ratio_1000/100")
	b.ReportMetric(cl.Seconds()/float64(b.N), "cpu-s/1000rounds")
	b.ReportMetric(float64(cl)/float64(cs), "cpu-ratio_1000/100")
}

// TestGateScale keeps the benchmark's series honest in `make test`: a small
// generated series passes and its counts add up.
func TestGateScale(t *testing.T) {
	gateOnce(t, benchSeries(t, 20))
}
