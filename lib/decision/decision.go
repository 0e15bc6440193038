// Package decision pairs the user's decisions of G35.
//
// G35: one --decision (what the decision settles) and one --decision-quote
// (the user's words) after it, before the next --decision, are a pair. Both
// texts are valid UTF-8 that is not empty after leading and trailing
// whitespace is trimmed. Every other text is accepted and kept as received,
// nothing trimmed or changed, in the order received. Outside: refused (65),
// the message names which decision and which option.
package decision

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/jaekit/spar/lib/envelope"
)

// Option names.
const (
	OptDecision = "--decision"
	OptQuote    = "--decision-quote"
)

// Arg is one occurrence of --decision or --decision-quote on the command
// line, in order. Missing is true when the option was the last argument and
// had no value.
type Arg struct {
	Opt     string
	Value   string
	Missing bool
}

// Pair turns the occurrences into pairs, or returns the first refusal. The
// refusal message names the decision by its number (1-based, in the order of
// --decision) and the option.
func Pair(args []Arg) ([]envelope.Decision, error) {
	out := []envelope.Decision{}
	open := false // a --decision waits for its words
	n := 0
	for _, a := range args {
		switch a.Opt {
		case OptDecision:
			if open {
				return nil, fmt.Errorf("decision %d %q has no %s before the next %s", n, out[n-1].Decision, OptQuote, OptDecision)
			}
			n++
			if a.Missing {
				return nil, fmt.Errorf("decision %d: %s has no value at the end of the command line", n, OptDecision)
			}
			if err := text(a.Value); err != nil {
				return nil, fmt.Errorf("decision %d: %s %q %v", n, OptDecision, a.Value, err)
			}
			out = append(out, envelope.Decision{Decision: a.Value})
			open = true
		case OptQuote:
			if !open {
				if a.Missing {
					return nil, fmt.Errorf("%s has no value at the end of the command line, and no %s before it", OptQuote, OptDecision)
				}
				if n == 0 {
					return nil, fmt.Errorf("%s %q has no %s before it", OptQuote, a.Value, OptDecision)
				}
				return nil, fmt.Errorf("%s %q has no %s before it (decision %d already has its words)", OptQuote, a.Value, OptDecision, n)
			}
			if a.Missing {
				return nil, fmt.Errorf("decision %d: %s has no value at the end of the command line", n, OptQuote)
			}
			if err := text(a.Value); err != nil {
				return nil, fmt.Errorf("decision %d: %s %q %v", n, OptQuote, a.Value, err)
			}
			out[n-1].Quote = a.Value
			open = false
		default:
			return nil, fmt.Errorf("internal: not a decision option: %s", a.Opt)
		}
	}
	if open {
		return nil, fmt.Errorf("decision %d %q has no %s", n, out[n-1].Decision, OptQuote)
	}
	return out, nil
}

func text(s string) error {
	if !utf8.ValidString(s) {
		return fmt.Errorf("is not valid UTF-8")
	}
	if strings.TrimSpace(s) == "" {
		return fmt.Errorf("is empty after trimming whitespace")
	}
	return nil
}
