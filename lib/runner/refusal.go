package runner

import "github.com/jaekit/spar/lib/refusal"

const quotaKind = string(refusal.QuotaOrRateLimit)

// findRefusal scans stderr and the output's error messages in that order
// (G13, docs/review-round.md "Refusal phrases"): the first text holding a refusal phrase decides the
// kind and the reason ("quota or rate limit: …" or "authentication: …",
// with the line holding the phrase). resets is the text the first reset
// phrase found in any of them keeps, or nil.
func findRefusal(texts []string) (found *refusal.Match, resets *string) {
	for _, t := range texts {
		m := refusal.Scan(t)
		if resets == nil && m.Resets != "" {
			r := m.Resets
			resets = &r
		}
		if found == nil && m.Refused() {
			found = &m
		}
	}
	return found, resets
}
