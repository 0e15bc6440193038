package refusal

import (
	"strings"
	"testing"
)

// FuzzG13 checks that Scan never panics and that what it reports comes from
// the text: the phrase and the kept reset text are parts of it, and a text
// is a refusal exactly when it has a phrase.
//
//	go test ./lib/refusal -run '^$' -fuzz FuzzG13 -fuzztime 1m -parallel 1
func FuzzG13(f *testing.F) {
	for _, fm := range inputForms(f) {
		f.Add(fm.Text)
	}
	f.Add("code\u212a 429")
	f.Add("resets in \xff5")
	f.Fuzz(func(t *testing.T, text string) {
		m := Scan(text)
		if m.Refused() != (m.Phrase != "") || m.Refused() != (m.Reason() != "") {
			t.Fatalf("Scan(%q) = %+v: refused exactly when a phrase is found", text, m)
		}
		if !strings.Contains(text, m.Phrase) || !strings.Contains(text, m.Line) || !strings.Contains(text, m.Resets) {
			t.Fatalf("Scan(%q) = %+v: phrase, line and resets come from the text", text, m)
		}
		if m.Refused() && !strings.Contains(m.Line, m.Phrase) && !strings.Contains(m.Phrase, "\n") {
			t.Fatalf("Scan(%q) = %+v: the line holds the phrase", text, m)
		}
		if strings.ContainsAny(m.Resets, ".\n") {
			t.Fatalf("Resets(%q) = %q: the kept text stops at a period or the line end", text, m.Resets)
		}
	})
}
