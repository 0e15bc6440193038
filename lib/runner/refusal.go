package runner

import (
	"strings"

	"github.com/jaekit/spar/lib/refusal"
)

// The two refusal kinds of section 5.
const (
	quotaKind = "quota_or_rate_limit"
	authKind  = "authentication"
)

type refusalFound struct {
	kind   string
	phrase string // as it appears in the text
	line   string // the line of the text holding it
}

// reason is the section 5 record: "quota or rate limit: …" or
// "authentication: …", followed by the line that holds the phrase.
func (r *refusalFound) reason() string {
	label := "quota or rate limit"
	if r.kind == authKind {
		label = "authentication"
	}
	return label + ": " + r.line
}

// findRefusal scans stderr and the output's error messages in that order
// (G13): the first text holding a refusal phrase decides the kind. resets
// is the first reset text found in any of them (section 5), or nil.
func findRefusal(texts []string) (*refusalFound, *string) {
	var found *refusalFound
	var resets *string
	for _, t := range texts {
		m := refusal.Scan(t)
		if resets == nil && m.Resets != "" {
			r := m.Resets
			resets = &r
		}
		if found == nil && m.Kind != refusal.None {
			found = &refusalFound{kind: string(m.Kind), phrase: m.Phrase, line: lineOf(t, m.Phrase)}
		}
	}
	return found, resets
}

// lineOf returns the line of text holding phrase, trimmed and at most 300
// bytes, or the phrase itself.
func lineOf(text, phrase string) string {
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, phrase) {
			l = strings.TrimSpace(l)
			if len(l) > 300 {
				l = l[:300] + "…"
			}
			return l
		}
	}
	return phrase
}
