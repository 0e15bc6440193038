package publog

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BenchmarkPublishWalk100: the walk spar fetch and the gate make of a
// series published a hundred times, each publish a round of seven records
// and a triage line appended to the round before it (make bench, "ms").
func BenchmarkPublishWalk100(b *testing.B) {
	repo, s := gitRepo(b)
	var tip string
	for i := 1; i <= 100; i++ {
		dir := filepath.Join(s, fmt.Sprintf("code-%d", i))
		for _, f := range []string{"round.json", "findings.json", "packet.md", "schema.json", "summary.md", "codex/result.json", "codex/stdout"} {
			write(b, filepath.Join(dir, f), strings.Repeat(fmt.Sprintf("%s of round %d\n", f, i), 200))
		}
		if i > 1 {
			write(b, filepath.Join(s, fmt.Sprintf("code-%d", i-1), "ledger.jsonl"), strings.Repeat("{\"finding\":\"codex-F1\"}\n", 1))
		}
		tip = publish(b, repo, s)
	}
	b.ResetTimer()
	start := time.Now()
	for n := 0; n < b.N; n++ {
		if got, err := Walk(repo, tip); err != nil || got != 100 {
			b.Fatalf("Walk: %d, %v", got, err)
		}
	}
	b.ReportMetric(float64(time.Since(start).Microseconds())/1000/float64(b.N), "ms")
}
