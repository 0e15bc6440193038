package spend

import (
	"math"
	"testing"
)

// Money writes cents, more decimals only where the cents would hide the
// amount; Against never shows a crossing as equal to its budget.
func TestMoney(t *testing.T) {
	for _, c := range []struct {
		usd  float64
		want string
	}{
		{0.52, "$0.52"}, {0.5, "$0.50"}, {1, "$1.00"}, {12.3, "$12.30"}, {0, "$0.00"},
		{0.0042, "$0.0042"}, {0.52341, "$0.5234"}, {0.00001, "$0.00"}, {1234.567, "$1234.57"},
		{math.Inf(1), "$?"},
	} {
		if got := Money(c.usd); got != c.want {
			t.Errorf("Money(%v) = %q, want %q", c.usd, got, c.want)
		}
	}
	if got := Against(0.52, 0.5); got != "$0.52 of $0.50" {
		t.Errorf("Against = %q", got)
	}
	if got := Against(0.500001, 0.5); got != "$0.500001 of $0.50" {
		t.Errorf("Against just past = %q", got)
	}
	if got := Reason(0.52, 0.5); got != "budget: spent $0.52 of $0.50" {
		t.Errorf("Reason = %q", got)
	}
	if got := RoundReason(0.61, 0.5, 0.3); got != "budget: spent $0.61 of $0.50 for the round (this reviewer $0.30)" {
		t.Errorf("RoundReason = %q", got)
	}
}

// Lookup takes the model's ID or a dated ID of it, nothing else: an alias
// or an unknown model has no price.
func TestLookup(t *testing.T) {
	for _, c := range []struct {
		model string
		ok    bool
		input float64
	}{
		{"claude-sonnet-4-5", true, 3}, {"claude-sonnet-4-5-20250929", true, 3},
		{"claude-opus-4", true, 15}, {"claude-opus-4-20250514", true, 15},
		{"claude-opus-4-5", true, 5}, {"gpt-5", true, 1.25}, {"gpt-5-2025-08-07", true, 1.25},
		{"sonnet", false, 0}, {"gpt-5-mini", false, 0}, {"claude-sonnet-4-5-x", false, 0}, {"", false, 0},
	} {
		r, ok := Lookup(c.model)
		if ok != c.ok || r.Input != c.input {
			t.Errorf("Lookup(%q) = %v, %v; want input %v, %v", c.model, r, ok, c.input, c.ok)
		}
	}
	for _, r := range Table {
		if !Valid(r.Rates.Input) || !Valid(r.Rates.Output) || r.Source == "" {
			t.Errorf("row %s: rates %v, source %q", r.Model, r.Rates, r.Source)
		}
	}
}

// Cost: a million tokens of each kind at the rates; a cache write of
// unstated duration is priced at the 1-hour rate.
func TestCost(t *testing.T) {
	r, _ := Lookup("claude-sonnet-4-5")
	got := r.Cost(Tokens{Input: 1e6, Output: 1e6, CacheRead: 1e6, CacheWrite5m: 1e6, CacheWrite1h: 1e6, CacheWrite: 1e6})
	if want := 3 + 15 + 0.3 + 3.75 + 6 + 6; math.Abs(got-want) > 1e-9 {
		t.Errorf("Cost = %v, want %v", got, want)
	}
}

func TestValid(t *testing.T) {
	for v, want := range map[float64]bool{0.5: true, 1e-9: true, 0: false, -1: false, math.Inf(1): false, math.NaN(): false} {
		if Valid(v) != want {
			t.Errorf("Valid(%v) != %v", v, want)
		}
	}
}
