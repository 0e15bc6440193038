package round

import (
	"math"

	"github.com/jaekit/spar/lib/envelope"
)

// Usage field names, in the order round.json, summary.md and cap-report
// list them (envelope.Usage's JSON keys).
const (
	FieldInputTokens      = "input_tokens"
	FieldOutputTokens     = "output_tokens"
	FieldCacheReadTokens  = "cache_read_tokens"
	FieldCacheWriteTokens = "cache_write_tokens"
	FieldCostUSD          = "cost_usd"
)

// UsageFields are the five usage fields in their order.
var UsageFields = []string{FieldInputTokens, FieldOutputTokens, FieldCacheReadTokens, FieldCacheWriteTokens, FieldCostUSD}

// UsageTotal is a sum of attempts' usage (docs/review-round.md §7.4;
// docs/review-round.md §7.1): round.json's `usage` of each reviewer and of
// the round, and cap-report's of each stage and of the series.
//
// A field is the sum of what the summed attempts state of it, null when
// none of them states it. Attempts counts the attempts summed: those that
// ran a program (an `executable` was resolved); an attempt that found no
// program spent nothing and is left out. Unstated names, in UsageFields
// order, each field that at least one summed attempt did not state: its
// sum is partial (a timed-out stream, a command reviewer, a CLI that states
// no cost). Costs are rounded to 1e-9 USD so that sums of decimal figures
// read as decimals (0.1 + 0.2 is 0.3, not 0.30000000000000004).
type UsageTotal struct {
	envelope.Usage
	Attempts int      `json:"attempts"`
	Unstated []string `json:"unstated"`
}

// Of reports the value of one usage field as text-free parts: the integer
// for a token field, the float for cost_usd, and whether it is stated.
func (t *UsageTotal) Of(field string) (tokens int64, cost float64, stated bool) {
	var p *int64
	switch field {
	case FieldInputTokens:
		p = t.InputTokens
	case FieldOutputTokens:
		p = t.OutputTokens
	case FieldCacheReadTokens:
		p = t.CacheReadTokens
	case FieldCacheWriteTokens:
		p = t.CacheWriteTokens
	case FieldCostUSD:
		if t.CostUSD == nil {
			return 0, 0, false
		}
		return 0, *t.CostUSD, true
	}
	if p == nil {
		return 0, 0, false
	}
	return *p, 0, true
}

// IsUnstated says whether field is in Unstated (its sum is partial).
func (t *UsageTotal) IsUnstated(field string) bool {
	for _, f := range t.Unstated {
		if f == field {
			return true
		}
	}
	return false
}

// unstatedOf lists the fields u does not state (all of them for nil).
func unstatedOf(u *envelope.Usage) []string {
	if u == nil {
		return UsageFields
	}
	var out []string
	for i, p := range []bool{u.InputTokens == nil, u.OutputTokens == nil, u.CacheReadTokens == nil, u.CacheWriteTokens == nil, u.CostUSD == nil} {
		if p {
			out = append(out, UsageFields[i])
		}
	}
	return out
}

// addUnstated merges names into t.Unstated, keeping UsageFields order.
func (t *UsageTotal) addUnstated(names []string) {
	if len(names) == 0 {
		return
	}
	have := map[string]bool{}
	for _, f := range t.Unstated {
		have[f] = true
	}
	for _, f := range names {
		have[f] = true
	}
	out := []string{}
	for _, f := range UsageFields {
		if have[f] {
			out = append(out, f)
		}
	}
	t.Unstated = out
}

// roundCost rounds a sum of costs to 1e-9 USD.
func (t *UsageTotal) roundCost() {
	if t.CostUSD != nil {
		c := math.Round(*t.CostUSD*1e9) / 1e9
		t.CostUSD = &c
	}
}

// AttemptsUsage sums the usage of the attempts that ran a program.
func AttemptsUsage(attempts []envelope.Attempt) UsageTotal {
	t := UsageTotal{Unstated: []string{}}
	for i := range attempts {
		a := &attempts[i]
		if a.Executable == nil {
			continue
		}
		t.Attempts++
		t.Usage.Add(a.Usage)
		t.addUnstated(unstatedOf(a.Usage))
	}
	t.roundCost()
	return t
}

// Add sums another total into t: the fields (null only when null in both),
// the attempts, and the union of the unstated fields.
func (t *UsageTotal) Add(o UsageTotal) {
	if t.Unstated == nil {
		t.Unstated = []string{}
	}
	u := o.Usage
	t.Usage.Add(&u)
	t.Attempts += o.Attempts
	t.addUnstated(o.Unstated)
	t.roundCost()
}

// RecordUsage is the round's total: the sum of its reviewers' attempts.
// It is computed from the attempts, so a record written before the totals
// existed (G32: older records) has the same total as a new one.
func RecordUsage(rec *Record) UsageTotal {
	t := UsageTotal{Unstated: []string{}}
	for i := range rec.Reviewers {
		t.Add(AttemptsUsage(rec.Reviewers[i].Attempts))
	}
	return t
}

// SumUsage sets round.json's totals from the attempts: each reviewer's
// `usage` and the round's `usage` (docs/review-round.md §7.1). spar-exec's
// first round.json and spar-record's both call it, so the totals always
// follow from the attempts the same record holds.
func (rec *Record) SumUsage() {
	for i := range rec.Reviewers {
		t := AttemptsUsage(rec.Reviewers[i].Attempts)
		rec.Reviewers[i].Usage = &t
	}
	t := RecordUsage(rec)
	rec.Usage = &t
}
