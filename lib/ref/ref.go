// Package ref reads the reference grammar of docs/review-round.md §6.2,
// shared by finding locations (G7) and rule or contract links (G8). The two
// rows differ only in the prefixes they remove and in what counts as a
// target; this package knows neither tree nor document, so the caller decides
// targets and Parse hands it the candidates in the order docs/review-round.md §6.2 tries them.
//
//	reference = the text with leading and trailing whitespace removed
//	          = prefix? path (":" line (dash line)?)? (end rest)?
//	prefix    = G7: "head/" | "base/" | "./"   G8: "head/" | "./"  (the one at the front, once)
//	line      = one or more ASCII digits
//	dash      = "-" | "–" (U+2013)
//	end       = whitespace | "," | ";"  (only after a line)
//	rest      = any text
package ref

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Grammar is one use of the reference grammar: the prefixes it removes.
type Grammar struct {
	Prefixes []string
}

// Location is G7's grammar: head/, base/ and ./ are removed.
var Location = Grammar{Prefixes: []string{"head/", "base/", "./"}}

// Link is G8's grammar: head/ and ./ are removed; base/ stays a folder name.
var Link = Grammar{Prefixes: []string{"head/", "./"}}

// MaxLine is the largest line number spar records. A longer run of digits is
// still a line by the grammar, but no document has that many lines and the
// records keep lines as JSON integers: such a line is a LineErr.
const MaxLine = 1<<31 - 1

// Ref is one reading of a reference.
type Ref struct {
	// Text is the part of the reference this reading covers: the whole
	// trimmed reference, or its first word.
	Text string
	// Prefix is the prefix removed from the front of the path, or "".
	Prefix string
	// Path is the path text after the prefix, exactly as written (it may
	// be absolute or hold "..": RepoPath says whether it is a repository
	// path). A trailing "/" is still there.
	Path string
	// HasLine is true when the reference has ":line" or ":line-line".
	HasLine bool
	// Start and End are the lines; End == Start for a single line. Both
	// are 0 when HasLine is false or when LineErr is set for a number too
	// large.
	Start, End int
	// LineErr is why the lines cannot be used ("line 0", "end line 2 <
	// start line 3", "line 99999999999 too large"), "" when they can.
	// docs/review-round.md §6.2: lines are checked after the path is settled, so a
	// LineErr never changes Path.
	LineErr string
	// Rest is the text after the end character that follows the line.
	Rest string
	// Stray is set when this reading has no line but its path holds
	// ":digits" followed by a character the grammar does not allow after a
	// line (head/checks/t.py:10.): the description of that character. A
	// path like that is outside the grammar unless it happens to name a
	// target by itself.
	Stray string
}

// Parse reads text by the grammar and returns the readings to try, in the
// order docs/review-round.md §6.2 tries them:
//
//   - a reference with a line has exactly one reading: its path runs up to
//     the first ":line" or ":line-line" followed by an end or by the end of
//     the text;
//   - a reference without a line has the whole reference first and then
//     its first word (only one reading when they are the same). The caller
//     takes the first reading that is a target; when none is, the path is
//     the last reading's (the first word).
//
// Parse never fails and never returns an empty slice.
func (g Grammar) Parse(text string) []Ref {
	t := strings.TrimSpace(text) // unicode.IsSpace: Unicode whitespace
	if i, r, ok := findLine(t); ok {
		r.Text = t
		r.Prefix, r.Path = g.cut(t[:i])
		r.HasLine = true
		return []Ref{r}
	}
	whole := g.reading(t)
	w := t
	if i := strings.IndexFunc(t, unicode.IsSpace); i >= 0 {
		w = t[:i]
	}
	if w == t {
		return []Ref{whole}
	}
	return []Ref{whole, g.reading(w)}
}

func (g Grammar) reading(t string) Ref {
	r := Ref{Text: t}
	r.Prefix, r.Path = g.cut(t)
	r.Stray = stray(t)
	return r
}

// cut removes the one prefix at the front, once (head/head/x is head/x).
func (g Grammar) cut(p string) (prefix, rest string) {
	for _, pre := range g.Prefixes {
		if strings.HasPrefix(p, pre) {
			return pre, p[len(pre):]
		}
	}
	return "", p
}

// findLine finds the first ":line" or ":line dash line" followed by an end
// or the end of the text. It returns the index of the ":".
func findLine(t string) (int, Ref, bool) {
	for i := 0; i < len(t); i++ {
		if t[i] != ':' {
			continue
		}
		d1 := digits(t, i+1)
		if d1 == i+1 {
			continue
		}
		// ":line dash line" followed by an end.
		if n := dash(t, d1); n > 0 {
			d2 := digits(t, d1+n)
			if d2 > d1+n {
				if rest, ok := end(t, d2); ok {
					return i, lines(t[i+1:d1], t[d1+n:d2], rest), true
				}
			}
		}
		if rest, ok := end(t, d1); ok {
			return i, lines(t[i+1:d1], "", rest), true
		}
	}
	return 0, Ref{}, false
}

// stray describes the first ":digits" in t that is followed by a character
// the grammar does not allow after a line, or returns "".
func stray(t string) string {
	for i := 0; i < len(t); i++ {
		if t[i] != ':' {
			continue
		}
		d1 := digits(t, i+1)
		if d1 == i+1 || d1 == len(t) {
			continue
		}
		k := d1
		if n := dash(t, d1); n > 0 {
			if d2 := digits(t, d1+n); d2 > d1+n {
				if d2 == len(t) {
					continue
				}
				k = d2
			}
		}
		c, _ := utf8.DecodeRuneInString(t[k:])
		return fmt.Sprintf("%q after line %s", c, t[i+1:k])
	}
	return ""
}

func digits(t string, i int) int {
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	return i
}

// dash returns the byte length of a dash at t[i:] ("-" or U+2013), or 0.
func dash(t string, i int) int {
	switch {
	case strings.HasPrefix(t[i:], "-"):
		return 1
	case strings.HasPrefix(t[i:], "–"):
		return len("–")
	}
	return 0
}

// end reports whether t[i:] is the end of the text or starts with an end
// character, and returns the rest after that character.
func end(t string, i int) (string, bool) {
	if i == len(t) {
		return "", true
	}
	c, n := utf8.DecodeRuneInString(t[i:])
	if c == ',' || c == ';' || unicode.IsSpace(c) {
		return t[i+n:], true
	}
	return "", false
}

func lines(a, b, rest string) Ref {
	r := Ref{Rest: rest}
	s, errS := number(a)
	e, errE := s, errS
	if b != "" {
		e, errE = number(b)
	}
	switch {
	case errS != "":
		r.LineErr = errS
	case errE != "":
		r.LineErr = errE
	default:
		r.Start, r.End = s, e
		switch {
		case s == 0 || e == 0:
			r.LineErr = "line 0"
		case e < s:
			r.LineErr = fmt.Sprintf("end line %d < start line %d", e, s)
		}
	}
	return r
}

func number(d string) (int, string) {
	n, err := strconv.ParseUint(d, 10, 64)
	if err != nil || n > MaxLine {
		return 0, fmt.Sprintf("line %s too large", d)
	}
	return int(n), ""
}

// RepoPath returns the reading's path as a repository path: one trailing
// "/" removed, then either "" (the repository root, only after a prefix:
// "a prefix alone means the repository root") or "/"-separated names none of
// which is empty, "." or "..". ok is false for anything else (an absolute
// path, a ".." segment, an empty reference with no prefix): such a path can
// never name a file of a commit's tree, so it never leaves the repository.
func (r Ref) RepoPath() (string, bool) {
	p := strings.TrimSuffix(r.Path, "/")
	if p == "" {
		return "", r.Prefix != ""
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return "", false
		}
	}
	return p, true
}
