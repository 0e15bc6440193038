package gate

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/jaekit/spar/lib/gate/fixture"
	"github.com/jaekit/spar/lib/sign"
)

// signedSeries is a generated series of n rounds (benchSeries' shape), each
// round signed by a throwaway Ed25519 key, and the signers that trust it.
func signedSeries(tb testing.TB, n int) ([]string, *sign.Signers) {
	tb.Helper()
	key, _, line, err := sign.NewKey("ci")
	if err != nil {
		tb.Fatal(err)
	}
	dirs := fixture.Series(tb, filepath.Join(tb.TempDir(), "signed"), n)
	for _, d := range dirs {
		if err := sign.Sign(key, d, filepath.Base(filepath.Dir(d)), filepath.Base(d)); err != nil {
			tb.Fatal(err)
		}
	}
	signers, err := sign.ParseSigners([]byte(line + "\n"))
	if err != nil {
		tb.Fatal(err)
	}
	return dirs, signers
}

// BenchmarkGateSigned100 (make bench): gating 100 signed rounds with their
// signatures verified (--signers) against the same rounds gated without
// signers, in the same iterations; target ratio <= 1.1.
func BenchmarkGateSigned100(b *testing.B) {
	dirs, signers := signedSeries(b, 100)
	env := benchEnv(b)
	b.ResetTimer()
	var plain, signed time.Duration
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		gateEnv(b, dirs, env)
		t1 := time.Now()
		rec := Decide(Options{Rounds: dirs, Getenv: env, Signers: signers, SignersPath: "ci"})
		signed += time.Since(t1)
		plain += t1.Sub(t0)
		if rec.State != Passed {
			b.Fatalf("signed series blocked: %q", rec.Reasons[:min(3, len(rec.Reasons))])
		}
	}
	b.ReportMetric(plain.Seconds()*1000/float64(b.N), "ms/plain")
	b.ReportMetric(signed.Seconds()*1000/float64(b.N), "ms/signed")
	b.ReportMetric(float64(signed)/float64(plain), "signed-ratio")
}

// TestGateSigned: the benchmark's signed series passes with its signers,
// and blocks (15) with signers that trust another key.
func TestGateSigned(t *testing.T) {
	dirs, signers := signedSeries(t, 3)
	env := benchEnv(t)
	if rec := Decide(Options{Rounds: dirs, Getenv: env, Signers: signers, SignersPath: "ci"}); rec.State != Passed {
		t.Fatalf("blocked: %q", rec.Reasons)
	}
	_, other := signedSeries(t, 1)
	rec := Decide(Options{Rounds: dirs, Getenv: env, Signers: other, SignersPath: "other"})
	if rec.State != Blocked || len(rec.ReasonDetails) == 0 || rec.ReasonDetails[len(rec.ReasonDetails)-1].Code != "15" {
		t.Fatalf("with another key's signers: %s %+v", rec.State, rec.ReasonDetails)
	}
}
