package round

import (
	"math"
	"strings"
)

// Spend is a round's spend against its budgets (docs/review-round.md
// "Spend and budgets"), computed from the attempts round.json keeps, as
// usage totals are: round.json stores no total of it.
type Spend struct {
	// USD sums the spend spar counted of every attempt that had a budget.
	USD float64 `json:"usd"`
	// BudgetUSD is the round's budget (config.budget_usd), null when the
	// configuration wrote none (only reviewers' budgets applied).
	BudgetUSD *float64 `json:"budget_usd"`
	// Unpriced: some attempt's spend is partly unknown in dollars (a model
	// not in the price table): USD is less than it spent.
	Unpriced bool `json:"unpriced"`
	// Stopped names the reviewers a budget stopped, in the round's order.
	Stopped []string `json:"stopped"`
}

// BudgetReasonPrefix begins the reason of a reviewer a budget stopped.
const BudgetReasonPrefix = "budget: "

// RecordSpend is the round's spend; ok is false when no budget applied to
// it (neither config.budget_usd nor an attempt's): then there is nothing
// to show, and every reader shows what it showed before budgets existed.
func RecordSpend(rec *Record) (s Spend, ok bool) {
	s.Stopped = []string{}
	if rec.Config.BudgetUSD != nil {
		b := *rec.Config.BudgetUSD
		s.BudgetUSD, ok = &b, true
	}
	for _, r := range rec.Reviewers {
		for _, a := range r.Attempts {
			if a.Spend == nil {
				continue
			}
			ok = true
			s.USD += a.Spend.USD
			if a.Spend.Unpriced != "" {
				s.Unpriced = true
			}
		}
		if strings.HasPrefix(r.Reason, BudgetReasonPrefix) {
			s.Stopped = append(s.Stopped, r.Name)
		}
	}
	s.USD = math.Round(s.USD*1e9) / 1e9
	return s, ok
}
