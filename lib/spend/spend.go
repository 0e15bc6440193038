// Package spend owns what spar knows of money (docs/review-round.md
// "Spend and budgets"): the price table that turns the tokens a reviewer
// CLI states into US dollars, how an amount is written ($0.52), and the
// reason a reviewer stopped by its budget is recorded with.
//
// The table holds only models whose four rates (input, output, cache read,
// cache write) a vendor publishes; each row names its source. A model not
// in it is never priced by a guess: its spend is unknown in dollars and a
// budget cannot be enforced for it (the runner says so on stderr and in
// round.json).
package spend

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// Rates are a model's list prices in US dollars per million tokens. A cache
// write is priced at CacheWrite1h when the output does not say which
// duration it bought (the higher of the two: a ceiling must not be passed
// by a guess on the low side).
type Rates struct {
	Input        float64
	Output       float64
	CacheRead    float64
	CacheWrite5m float64
	CacheWrite1h float64
}

// Row is one model of the table.
type Row struct {
	Model  string // the vendor's model ID; a dated ID (-YYYYMMDD) of it matches too
	Rates  Rates
	Source string
}

// Sources of the table (docs/review-round.md "The price table").
const (
	anthropicPricing  = "https://platform.claude.com/docs/en/about-claude/pricing"
	anthropicOpus5    = "https://platform.claude.com/docs/en/models/opus-5/overview"
	anthropicSonnet5  = "https://platform.claude.com/docs/en/models/sonnet-5/overview"
	anthropicSonnet55 = "https://platform.claude.com/docs/en/models/sonnet-5-5/overview"
	openaiPricing     = "https://developers.openai.com/api/docs/pricing"
)

// Table is spar's price table. Claude's rows are Anthropic's published
// rates (base input, 5-minute and 1-hour cache writes, cache hits, output);
// OpenAI's rows its published input, cached input and output rates (OpenAI
// charges no cache write: both cache-write rates are the input rate).
var Table = []Row{
	{"claude-opus-5", Rates{5, 25, 0.50, 6.25, 10}, anthropicOpus5},
	{"claude-opus-4-8", Rates{5, 25, 0.50, 6.25, 10}, anthropicPricing},
	{"claude-opus-4-7", Rates{5, 25, 0.50, 6.25, 10}, anthropicPricing},
	{"claude-opus-4-6", Rates{5, 25, 0.50, 6.25, 10}, anthropicPricing},
	{"claude-opus-4-5", Rates{5, 25, 0.50, 6.25, 10}, anthropicPricing},
	{"claude-opus-4-1", Rates{15, 75, 1.50, 18.75, 30}, anthropicPricing},
	{"claude-opus-4", Rates{15, 75, 1.50, 18.75, 30}, anthropicPricing},
	{"claude-sonnet-5-5", Rates{2, 10, 0.20, 2.50, 4}, anthropicSonnet55},
	{"claude-sonnet-5", Rates{2, 10, 0.20, 2.50, 4}, anthropicSonnet5},
	{"claude-sonnet-4-6", Rates{3, 15, 0.30, 3.75, 6}, anthropicPricing},
	{"claude-sonnet-4-5", Rates{3, 15, 0.30, 3.75, 6}, anthropicPricing},
	{"claude-sonnet-4", Rates{3, 15, 0.30, 3.75, 6}, anthropicPricing},
	{"claude-haiku-4-5", Rates{1, 5, 0.10, 1.25, 2}, anthropicPricing},
	{"gpt-5", Rates{1.25, 10, 0.125, 1.25, 1.25}, openaiPricing},
}

var dated = regexp.MustCompile(`^-(\d{8}|\d{4}-\d{2}-\d{2})$`)

// Lookup returns the rates of a model: a row whose ID is the model, or the
// model without a date suffix (claude-sonnet-4-5-20250929, gpt-5-2025-08-07).
func Lookup(model string) (Rates, bool) {
	for _, r := range Table {
		if model == r.Model {
			return r.Rates, true
		}
		if rest, ok := strings.CutPrefix(model, r.Model); ok && dated.MatchString(rest) {
			return r.Rates, true
		}
	}
	return Rates{}, false
}

// Tokens are one statement's token counts. CacheWrite is a cache write
// whose duration the output does not state; CacheWrite5m and CacheWrite1h
// those it does.
type Tokens struct {
	Input, Output, CacheRead               int64
	CacheWrite, CacheWrite5m, CacheWrite1h int64
}

// Cost prices t at r, in US dollars.
func (r Rates) Cost(t Tokens) float64 {
	m := float64(t.Input)*r.Input + float64(t.Output)*r.Output + float64(t.CacheRead)*r.CacheRead +
		float64(t.CacheWrite5m)*r.CacheWrite5m + float64(t.CacheWrite1h+t.CacheWrite)*r.CacheWrite1h
	return m / 1e6
}

// Money writes an amount of US dollars for people: "$" and the amount
// rounded to the cent, with up to four decimals when the cents alone would
// hide it ($0.0042), never fewer than two: $0.52, $1.00, $12.30.
func Money(usd float64) string {
	if math.IsNaN(usd) || math.IsInf(usd, 0) {
		return "$?"
	}
	cents := math.Round(usd*100) / 100
	if cents == math.Round(usd*1e4)/1e4 || math.Abs(usd) >= 1 {
		return "$" + strconv.FormatFloat(cents, 'f', 2, 64)
	}
	s := strconv.FormatFloat(math.Round(usd*1e4)/1e4, 'f', 4, 64)
	s = strings.TrimRight(s, "0")
	if i := strings.IndexByte(s, '.'); len(s)-i-1 < 2 {
		s += strings.Repeat("0", 2-(len(s)-i-1))
	}
	return "$" + s
}

// Against is spend against a budget: "$0.52 of $0.50".
// A spend past the budget that rounds to it is written with as many
// decimals as show it past (up to nine): "$0.500001 of $0.50".
func Against(spent, budget float64) string {
	s, b := Money(spent), Money(budget)
	if s == b && spent > budget {
		for d := 5; d <= 9; d++ {
			if p := math.Pow10(d); math.Round(spent*p)/p > budget || d == 9 {
				s = "$" + strconv.FormatFloat(math.Round(spent*p)/p, 'f', -1, 64)
				break
			}
		}
	}
	return s + " of " + b
}

// Reason is the reason of an attempt its own budget stopped:
// "budget: spent $0.52 of $0.50".
func Reason(spent, budget float64) string {
	return "budget: spent " + Against(spent, budget)
}

// RoundReason is the reason of an attempt the round's budget stopped:
// "budget: spent $0.61 of $0.50 for the round (this reviewer $0.30)".
func RoundReason(roundSpent, budget, own float64) string {
	return fmt.Sprintf("budget: spent %s for the round (this reviewer %s)", Against(roundSpent, budget), Money(own))
}

// RoundSpentReason is the reason of an attempt that did not start because
// the round's budget was already spent.
func RoundSpentReason(roundSpent, budget float64) string {
	return fmt.Sprintf("budget: spent %s for the round before this attempt started", Against(roundSpent, budget))
}

// Valid says whether v is a budget: a finite number above 0.
func Valid(v float64) bool { return v > 0 && !math.IsInf(v, 0) && !math.IsNaN(v) }
