package spargate

// The gate as its user runs it: `spar gate SERIES` over the benchmark's
// series of 1,000 rounds of 50 findings (lib/gate/fixture.Series), in
// process: listing the series, reading and re-deriving every round,
// deciding, writing the record to stdout and the verdict to stderr. Beside
// lib/gate's BenchmarkGateRatio (the gate's decision alone), this is the
// figure a person waits for.

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jaekit/spar/lib/gate/fixture"
)

func BenchmarkGateCommand(b *testing.B) {
	root := b.TempDir()
	dirs := fixture.Series(b, root, 1000)
	cfg := filepath.Join(root, "spar.toml")
	if err := os.WriteFile(cfg, []byte("[[reviewers]]\nname = \"codex\"\npreset = \"codex\"\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	b.Setenv("SPAR_CONFIG", cfg)
	b.Setenv("SPAR_COMMAND", "")
	series := filepath.Dir(dirs[0])
	b.ResetTimer()
	var wall, cpu time.Duration
	for i := 0; i < b.N; i++ {
		var out, errs bytes.Buffer
		t0, c0 := time.Now(), fixture.CPUTime()
		code := Main([]string{"gate", series}, bytes.NewReader(nil), &out, &errs)
		wall += time.Since(t0)
		cpu += fixture.CPUTime() - c0
		if code != 0 {
			b.Fatalf("spar gate exit %d: %s", code, errs.Bytes()[:min(errs.Len(), 2000)])
		}
	}
	b.ReportMetric(wall.Seconds()/float64(b.N), "s/1000rounds")
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/1000rounds")
}
