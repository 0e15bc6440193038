package summary

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/round"
)

// NotStated is how summary.md and cap-report show a usage figure the
// reviewer's output did not state (null in round.json).
const NotStated = "not stated"

// UsageColumns are the headers of the usage columns, in round.UsageFields
// order.
var UsageColumns = []string{"input tokens", "output tokens", "cache read tokens", "cache write tokens", "cost (USD)"}

// usageNames are the short names of the fields in an attempt's line.
var usageNames = []string{"input", "output", "cache read", "cache write"}

// ExecutableText is an attempt's provenance line (G14): the resolved path,
// the first 12 hex digits of its sha256 (as commits are shown; round.json
// keeps all 64) and its version line.
func ExecutableText(x *envelope.Executable) string {
	if x == nil {
		return "executable: none found"
	}
	v := "no version line"
	if x.Version != "" {
		v = "version " + line(x.Version)
	}
	return fmt.Sprintf("executable: %s, sha256 %s, %s", line(x.Path), short(x.SHA256), v)
}

// AttemptUsageText is an attempt's usage line: each token count and the
// cost as the output stated them, "not stated" for a null.
func AttemptUsageText(a envelope.Attempt) string {
	if a.Usage == nil {
		return "usage: " + NotStated
	}
	t := round.UsageTotal{Usage: *a.Usage}
	parts := make([]string, 0, 4)
	for i, f := range round.UsageFields[:4] {
		parts = append(parts, usageNames[i]+" "+figure(&t, f))
	}
	cost := figure(&t, round.FieldCostUSD)
	if cost != NotStated {
		cost += " USD"
	}
	return "usage: tokens " + strings.Join(parts, ", ") + "; cost " + cost
}

// figure is one field of a total as text: the number, "not stated" when
// null.
func figure(t *round.UsageTotal, field string) string {
	n, c, ok := t.Of(field)
	switch {
	case !ok:
		return NotStated
	case field == round.FieldCostUSD:
		return strconv.FormatFloat(c, 'f', -1, 64)
	default:
		return strconv.FormatInt(n, 10)
	}
}

// UsageCells are a total's five table cells (round.UsageFields order): "-"
// when no attempt ran a program, "not stated" when no summed attempt
// stated the field, the sum otherwise, with " (partial)" when some summed
// attempt did not state it.
func UsageCells(t round.UsageTotal) []string {
	out := make([]string, len(round.UsageFields))
	for i, f := range round.UsageFields {
		switch v := figure(&t, f); {
		case t.Attempts == 0:
			out[i] = "-"
		case v == NotStated:
			out[i] = v
		case t.IsUnstated(f):
			out[i] = v + " (partial)"
		default:
			out[i] = v
		}
	}
	return out
}

// UsageHeader is the header and alignment rows of a usage table whose first
// column is first.
func UsageHeader(first string) string {
	return "| " + first + " | attempts | " + strings.Join(UsageColumns, " | ") + " |\n| --- | ---: |" + strings.Repeat(" ---: |", len(UsageColumns)) + "\n"
}

// UsageRow is one row of a usage table.
func UsageRow(name string, t round.UsageTotal) string {
	return fmt.Sprintf("| %s | %d | %s |\n", cell(name), t.Attempts, strings.Join(UsageCells(t), " | "))
}

// renderUsage writes `## Usage`: one row per reviewer and the round's
// total, computed from the attempts round.json holds (round.AttemptsUsage,
// the same sums as its `usage` keys).
func renderUsage(w func(string, ...any), rec *round.Record) {
	w("\n## Usage\n\n")
	total := round.RecordUsage(rec)
	if total.Attempts == 0 {
		w("No attempt ran a program.\n")
		return
	}
	w("What each reviewer's output stated, summed over its attempts; %s: the output did not state it; (partial): some attempts did not state it; -: no attempt ran a program.\n\n", NotStated)
	w("%s", UsageHeader("reviewer"))
	for _, r := range rec.Reviewers {
		w("%s", UsageRow(r.Name, round.AttemptsUsage(r.Attempts)))
	}
	w("%s", UsageRow("all reviewers", total))
	if s, ok := round.RecordSpend(rec); ok {
		w("\nBudget: %s (what spar counted while the reviewers ran, docs/review-round.md \"Spend and budgets\").\n", SpendText(s))
	}
}
