// Package escape shows text from reviewers, records and libraries safely on
// one line of a terminal or a Markdown file: a control character (a terminal
// escape, a newline, NUL) is written as its Go escape (\x1b, \n, \x00),
// never raw, so it can neither act on the user's terminal nor split a line.
package escape

import (
	"strconv"
	"strings"
	"unicode"
)

// Controls returns s with every control character escaped; other text is
// kept (a byte that is not UTF-8 shows as U+FFFD).
func Controls(s string) string {
	if strings.IndexFunc(s, unicode.IsControl) < 0 {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if unicode.IsControl(r) {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
