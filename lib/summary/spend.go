package summary

import (
	"strings"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/round"
	"github.com/jaekit/spar/lib/spend"
)

// SpendText is a round's spend against its budget as the verdict line,
// summary.md, cap-report and spar status write it (docs/review-round.md
// "Spend and budgets"): "spend $0.40 of $0.35", "spend $0.12" without a
// round budget, then ", partly unpriced" when a model had no price and
// ", stopped: a, b" for the reviewers a budget stopped.
func SpendText(s round.Spend) string {
	t := "spend " + spend.Money(s.USD)
	if s.BudgetUSD != nil {
		t = "spend " + spend.Against(s.USD, *s.BudgetUSD)
	}
	if s.Unpriced {
		t += ", partly unpriced"
	}
	if len(s.Stopped) > 0 {
		t += ", stopped: " + strings.Join(s.Stopped, ", ")
	}
	return t
}

// AttemptSpendText is an attempt's spend line in summary.md: "spend: $0.30
// of $0.25", "spend: $0.30 (the round's budget only)", then "; not priced:
// <why>" when part of it has no price.
func AttemptSpendText(a envelope.Attempt) string {
	sp := a.Spend
	t := "spend: " + spend.Money(sp.USD) + " (the round's budget only)"
	if sp.BudgetUSD != nil {
		t = "spend: " + spend.Against(sp.USD, *sp.BudgetUSD)
	}
	if sp.Unpriced != "" {
		t += "; not priced: " + line(sp.Unpriced)
	}
	return t
}
