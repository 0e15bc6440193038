package round

import (
	"encoding/json"
	"testing"

	"github.com/jaekit/spar/lib/envelope"
)

func i64(n int64) *int64        { return &n }
func f64(f float64) *float64    { return &f }
func exe() *envelope.Executable { return &envelope.Executable{Path: "/bin/x", SHA256: "ab"} }

func js(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The sums of docs/review-round.md §7.1: a field sums what the attempts
// state (null when none does), unstated names each field some summed
// attempt left null, an attempt without an executable ran nothing and is
// not summed, and costs sum as decimals.
func TestAttemptsUsage(t *testing.T) {
	cases := []struct {
		name     string
		attempts []envelope.Attempt
		want     string
	}{
		{"none", nil,
			`{"input_tokens":null,"output_tokens":null,"cache_read_tokens":null,"cache_write_tokens":null,"cost_usd":null,"attempts":0,"unstated":[]}`},
		{"no program found", []envelope.Attempt{{Status: "unavailable"}},
			`{"input_tokens":null,"output_tokens":null,"cache_read_tokens":null,"cache_write_tokens":null,"cost_usd":null,"attempts":0,"unstated":[]}`},
		{"nothing stated", []envelope.Attempt{{Executable: exe()}},
			`{"input_tokens":null,"output_tokens":null,"cache_read_tokens":null,"cache_write_tokens":null,"cost_usd":null,"attempts":1,"unstated":["input_tokens","output_tokens","cache_read_tokens","cache_write_tokens","cost_usd"]}`},
		{"all stated", []envelope.Attempt{{Executable: exe(), Usage: &envelope.Usage{InputTokens: i64(10), OutputTokens: i64(2), CacheReadTokens: i64(0), CacheWriteTokens: i64(5), CostUSD: f64(0.1)}},
			{Executable: exe(), Usage: &envelope.Usage{InputTokens: i64(1), OutputTokens: i64(1), CacheReadTokens: i64(3), CacheWriteTokens: i64(0), CostUSD: f64(0.2)}}},
			`{"input_tokens":11,"output_tokens":3,"cache_read_tokens":3,"cache_write_tokens":5,"cost_usd":0.3,"attempts":2,"unstated":[]}`},
		{"partial", []envelope.Attempt{{Executable: exe(), Usage: &envelope.Usage{InputTokens: i64(1200), OutputTokens: i64(300), CostUSD: f64(0.12)}},
			{Executable: exe()}, {Status: "unavailable"}},
			`{"input_tokens":1200,"output_tokens":300,"cache_read_tokens":null,"cache_write_tokens":null,"cost_usd":0.12,"attempts":2,"unstated":["input_tokens","output_tokens","cache_read_tokens","cache_write_tokens","cost_usd"]}`},
		{"tokens without cost", []envelope.Attempt{{Executable: exe(), Usage: &envelope.Usage{InputTokens: i64(7), OutputTokens: i64(1), CacheReadTokens: i64(4)}}},
			`{"input_tokens":7,"output_tokens":1,"cache_read_tokens":4,"cache_write_tokens":null,"cost_usd":null,"attempts":1,"unstated":["cache_write_tokens","cost_usd"]}`},
	}
	for _, c := range cases {
		if got := js(t, AttemptsUsage(c.attempts)); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
}

// SumUsage fills each reviewer's usage and the round's, and the round's is
// the sum of the reviewers' (unstated: the union).
func TestSumUsage(t *testing.T) {
	rec := &Record{Reviewers: []Reviewer{
		{Name: "claude", Attempts: []envelope.Attempt{{Executable: exe(), Usage: &envelope.Usage{InputTokens: i64(1200), OutputTokens: i64(300), CostUSD: f64(0.12)}}}},
		{Name: "cmd", Attempts: []envelope.Attempt{{Executable: exe()}}},
		{Name: "native", Attempts: []envelope.Attempt{}},
		{Name: "codex", Attempts: []envelope.Attempt{{Executable: exe(), Usage: &envelope.Usage{InputTokens: i64(24763), OutputTokens: i64(122), CacheReadTokens: i64(24448)}}}},
	}}
	rec.SumUsage()
	if got := js(t, rec.Reviewers[0].Usage); got != `{"input_tokens":1200,"output_tokens":300,"cache_read_tokens":null,"cache_write_tokens":null,"cost_usd":0.12,"attempts":1,"unstated":["cache_read_tokens","cache_write_tokens"]}` {
		t.Error(got)
	}
	if got := js(t, rec.Reviewers[2].Usage); got != `{"input_tokens":null,"output_tokens":null,"cache_read_tokens":null,"cache_write_tokens":null,"cost_usd":null,"attempts":0,"unstated":[]}` {
		t.Error(got)
	}
	want := `{"input_tokens":25963,"output_tokens":422,"cache_read_tokens":24448,"cache_write_tokens":null,"cost_usd":0.12,"attempts":3,"unstated":["input_tokens","output_tokens","cache_read_tokens","cache_write_tokens","cost_usd"]}`
	if got := js(t, rec.Usage); got != want {
		t.Errorf("round:\n got %s\nwant %s", got, want)
	}
	if got := js(t, RecordUsage(rec)); got != want {
		t.Errorf("RecordUsage:\n got %s\nwant %s", got, want)
	}
	// Without the command reviewer nothing but cache write and cost (codex
	// states none) is partial.
	rec.Reviewers = append(rec.Reviewers[:1], rec.Reviewers[2:]...)
	rec.SumUsage()
	if got := js(t, rec.Usage.Unstated); got != `["cache_read_tokens","cache_write_tokens","cost_usd"]` {
		t.Error(got)
	}
}
