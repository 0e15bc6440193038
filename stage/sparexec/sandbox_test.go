package sparexec

import (
	"os"
	"testing"
	"time"

	"github.com/jaekit/spar/lib/sandbox"
)

// TestMain lets this test binary be the sandbox launcher, as spar-exec's
// main is (docs/sandbox.md): the in-process rounds of the benchmarks run
// their reviewers through it.
func TestMain(m *testing.M) {
	sandbox.Main()
	os.Exit(m.Run())
}

// BenchmarkSandbox (docs/sandbox.md "Tests"): the launcher's cost on a round: one fake
// reviewer taking 1 s, its round's wall time with the sandbox over the same
// round with SPAR_SANDBOX=off (target: at most 1.05). Each iteration times
// three rounds of each, interleaved, and keeps the fastest of each.
func BenchmarkSandbox(b *testing.B) {
	b.Setenv("FAKE_SLEEP", "1")
	dir := b.TempDir()
	var on, off time.Duration
	for i := 0; i < b.N; i++ {
		bestOn, bestOff := time.Duration(1<<62), time.Duration(1<<62)
		for j := 0; j < 3; j++ {
			os.Setenv(sandbox.EnvVar, "off")
			bestOff = min(bestOff, timeRound(b, dir, []string{"claude"}))
			os.Unsetenv(sandbox.EnvVar)
			bestOn = min(bestOn, timeRound(b, dir, []string{"claude"}))
		}
		on += bestOn
		off += bestOff
	}
	b.ReportMetric(float64(on)/float64(off), "ratio")
	b.ReportMetric(float64(on.Milliseconds())/float64(b.N), "ms/sandboxed")
	b.ReportMetric(float64(off.Milliseconds())/float64(b.N), "ms/unsandboxed")
}
