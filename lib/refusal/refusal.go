// Package refusal recognizes the usage, rate-limit and authentication
// refusals of docs/review-round.md "Refusal phrases" (G13) in a reviewer's standard
// error and in the error messages of its output, and the reset phrases that
// say when the limit lifts. Any other message is not a refusal.
package refusal

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/jaekit/spar/lib/escape"
)

// Kind is the refusal a text shows.
type Kind string

const (
	None             Kind = ""
	QuotaOrRateLimit Kind = "quota_or_rate_limit"
	Authentication   Kind = "authentication"
)

// Match is what Scan finds in one text.
type Match struct {
	Kind Kind
	// Phrase is the matched text as it appears in the text ("" for None).
	Phrase string
	// Line is the line of the text that holds Phrase, trimmed.
	Line string
	// Resets is the text a reset phrase keeps, "" when there is none.
	Resets string
}

// Refused reports whether the text is a refusal (G13).
func (m Match) Refused() bool { return m.Kind != None }

// Reason is the reviewer's reason for an unavailable status (docs/review-round.md "Refusal phrases",
// "Record": "quota or rate limit: …", "authentication: …"): the kind and
// the line that holds the phrase, cut to 300 bytes.
func (m Match) Reason() string {
	var label string
	switch m.Kind {
	case QuotaOrRateLimit:
		label = "quota or rate limit"
	case Authentication:
		label = "authentication"
	default:
		return ""
	}
	return label + ": " + cut(m.Line, 300)
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return escape.Prefix(s, n) + "…"
}

// The phrases of docs/review-round.md "Refusal phrases", ignoring case. "code 429" and "status 429" (and
// 401) allow up to four symbols (characters that are neither letters nor
// digits, blanks included) between the word and the number; the number must
// not go on with another digit (code 4290 is not code 429).
var (
	quota = phrases(`429`,
		"RESOURCE_EXHAUSTED", "429 Too Many Requests", "too many requests",
		"rate limit", "rate_limit", "rate-limit", "ratelimit",
		"quota reached", "quota exceeded", "quota exhausted", "insufficient_quota",
		"hit your limit", "hit your usage limit", "usage limit reached")
	auth = phrases(`401`,
		"UNAUTHENTICATED", "401 Unauthorized", "not logged in",
		"authentication required", "authentication failed",
		"login again", "log in again", "sign in again",
		"codex login", "agy login", "claude login", "run /login",
		"oauth token expired", "oauth token has expired",
		"invalid api key", "incorrect api key")
)

// phrases compiles one kind's phrases: group 1 is the code/status form
// without the character after the number, group 2 any literal phrase.
func phrases(code string, lits ...string) *regexp.Regexp {
	q := make([]string, len(lits))
	for i, l := range lits {
		q[i] = regexp.QuoteMeta(l)
	}
	re := regexp.MustCompile(`(?i)((?:code|status)[^\p{L}\p{N}]{0,4}` + code + `)(?:[^0-9]|$)|(` + strings.Join(q, "|") + `)`)
	re.Longest()
	return re
}

// Scan looks for the refusal phrases and the reset phrase in text. When the
// text holds phrases of both kinds, it is an authentication refusal: the
// fallback model is never used for one (G13), and a retry with the
// same credentials would be refused again.
func Scan(text string) Match {
	var m Match
	for _, k := range []struct {
		kind Kind
		re   *regexp.Regexp
	}{{Authentication, auth}, {QuotaOrRateLimit, quota}} {
		loc := k.re.FindStringSubmatchIndex(text)
		if loc == nil {
			continue
		}
		start, end := loc[4], loc[5]
		if loc[2] >= 0 {
			start, end = loc[2], loc[3]
		}
		m.Kind, m.Phrase, m.Line = k.kind, text[start:end], lineAt(text, start)
		break
	}
	m.Resets = Resets(text)
	return m
}

func lineAt(text string, i int) string {
	s := strings.LastIndexByte(text[:i], '\n') + 1
	e := strings.IndexByte(text[i:], '\n')
	if e < 0 {
		e = len(text)
	} else {
		e += i
	}
	return strings.TrimSpace(text[s:e])
}

// resetPhrases: reset or resets followed by in, at or neither, then try
// again in, try again at (docs/review-round.md "Refusal phrases"). Longer forms first, so that "resets
// in 5 minutes" keeps "5 minutes", not nothing.
var resetPhrases = []string{"resets in", "resets at", "resets", "reset in", "reset at", "reset", "try again in", "try again at"}

// Resets returns the text the first reset phrase of text keeps: after the
// phrase, whitespace, then from a word containing a digit up to a period or
// the end of the line (docs/review-round.md "Refusal phrases"). A phrase must start a word (presets is
// not resets). It returns "" when no phrase keeps any text.
func Resets(text string) string {
	for i := 0; i < len(text); i++ {
		c := text[i] | 0x20
		if c != 'r' && c != 't' {
			continue
		}
		if i > 0 {
			if r, _ := utf8.DecodeLastRuneInString(text[:i]); unicode.IsLetter(r) {
				continue
			}
		}
		for _, p := range resetPhrases {
			if len(text)-i < len(p) || !strings.EqualFold(text[i:i+len(p)], p) {
				continue
			}
			if kept := keep(text[i+len(p):]); kept != "" {
				return kept
			}
		}
	}
	return ""
}

// keep reads what follows a reset phrase: whitespace, then a word with a
// digit, kept up to a period or the end of the line.
func keep(rest string) string {
	ws := strings.TrimLeftFunc(rest, unicode.IsSpace)
	if len(ws) == len(rest) || ws == "" {
		return ""
	}
	word := ws
	if j := strings.IndexFunc(ws, unicode.IsSpace); j >= 0 {
		word = ws[:j]
	}
	if !strings.ContainsAny(word, "0123456789") {
		return ""
	}
	end := strings.IndexAny(ws, ".\n\r")
	if end < 0 {
		end = len(ws)
	}
	return strings.TrimRightFunc(ws[:end], unicode.IsSpace)
}
