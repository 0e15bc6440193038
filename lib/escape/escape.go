// Package escape shows text from reviewers, records and libraries safely on
// one line of a terminal or a Markdown file: a control character (a terminal
// escape, a newline, NUL) is written as its Go escape (\x1b, \n, \x00),
// never raw, so it can neither act on the user's terminal nor split a line.
package escape

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Controls returns s with every control character escaped, and every
// bidirectional formatting character (U+202E RIGHT-TO-LEFT OVERRIDE and
// its kin): a reviewer's text that holds one would show the
// characters after it in another order than they are written, on a
// terminal, in a step summary or in a code host's comment ("Trojan
// Source"). Other text is kept (a byte that is not UTF-8 shows as U+FFFD).
func Controls(s string) string {
	if strings.IndexFunc(s, Escaped) < 0 {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if Escaped(r) {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Lines is Controls of each line of s: its line breaks are kept, every
// other control or bidirectional formatting character escaped. For text of
// several lines that holds text from records: a report, a message.
func Lines(s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return r != '\n' && Escaped(r) }) < 0 {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = Controls(l)
	}
	return strings.Join(lines, "\n")
}

// Prefix is the longest start of s of at most n bytes that ends where a
// character starts: s cut for a line, never inside a UTF-8 sequence.
func Prefix(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Escaped reports whether Controls escapes r: a control character, or a
// bidirectional formatting character: the marks (U+200E, U+200F, U+061C),
// the embeddings and overrides (U+202A–U+202E) and the isolates
// (U+2066–U+2069).
func Escaped(r rune) bool {
	switch {
	case unicode.IsControl(r):
		return true
	case r == '\u200e', r == '\u200f', r == '\u061c':
		return true
	case r >= '\u202a' && r <= '\u202e', r >= '\u2066' && r <= '\u2069':
		return true
	}
	return false
}

// Shell quotes s for a POSIX shell when it needs it. A value with a
// control character (a decision of several lines, G35) is written as
// $'...' (POSIX.1-2024 dollar-single-quotes) so that the reason stays one
// line and the value comes back byte for byte.
func Shell(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+=:,@^") == "" {
		return s
	}
	if strings.IndexFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) < 0 {
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' || c == '\'':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\t':
			b.WriteString(`\t`)
		case c == '\r':
			b.WriteString(`\r`)
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('\'')
	return b.String()
}
