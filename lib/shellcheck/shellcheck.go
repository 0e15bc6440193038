// Package shellcheck decides G11: whether one shell line
// that an agy reviewer ran stays inside the read-only programs of
// docs/review-round.md "G11 agy shell lines", and if not, which part of
// the line is its first problem.
//
// The line is read by a small lexer that knows exactly the shell syntax G11
// accepts (words, quotes, backslash escapes and the four operators |, &&, ||
// and ;) and recognises every other construct only to name it. It is not a
// shell parser: anything it does not positively understand is a violation.
// The fuzz test cross-checks every accepted line with mvdan.cc/sh/v3/syntax.
package shellcheck

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Check reports whether line passes G11. When it does not, problem is the
// line's first problem exactly as the contract's representative forms (testdata/input-forms.json) names it in
// parentheses: a shell construct anywhere in the line (the leftmost one; a
// newline always wins), else the first part from the left that breaks the
// rule. problem is "" when ok.
func Check(line string) (ok bool, problem string) {
	// G11 and its representative forms: a line with a newline is a violation and the newline is
	// its first problem, wherever it stands (quoted or after \ included).
	if strings.Contains(line, "\n") {
		return false, "\n"
	}
	// A NUL ends the C string the shell is given: what follows it would not
	// run, so the text after it could hide what does. Never accepted.
	if strings.Contains(line, "\x00") {
		return false, "\x00"
	}
	// A carriage return is a plain character to bash but a line end to other
	// readers of the same line (and it hides text on a terminal).
	if strings.Contains(line, "\r") {
		return false, "\r"
	}
	// Lines reach spar as JSON strings, so they are UTF-8; a line that is not
	// cannot be read the same way by every shell. Its first bad byte.
	if !utf8.ValidString(line) {
		for i, r := range line {
			if r == utf8.RuneError {
				if _, n := utf8.DecodeRuneInString(line[i:]); n == 1 {
					return false, line[i : i+1]
				}
			}
		}
	}
	lx := lex(line)
	if lx.construct != nil {
		return false, lx.construct.text
	}
	if p := checkParts(lx.toks); p != "" {
		return false, p
	}
	if len(lx.toks) == 0 && lx.removedText != "" {
		// Only a removed redirection: a redirection with no command.
		return false, lx.removedText
	}
	return true, ""
}

// Reason is the reviewer's reason for a tool_violation caused by a shell line
// (G11: "the reason shows the line and its first problem").
func Reason(line, problem string) string {
	return fmt.Sprintf("agy shell line %q breaks G11: first problem %q", line, problem)
}

// Problem pairs a line with its verdict: one item of `spar-exec check-shell`.
type Problem struct {
	Line     string `json:"line"`
	Accepted bool   `json:"accepted"`
	Problem  string `json:"problem"`
}

// Verdict checks line and returns it with its verdict.
func Verdict(line string) Problem {
	ok, p := Check(line)
	return Problem{Line: line, Accepted: ok, Problem: p}
}

// ---------------------------------------------------------------------------
// Lexing

type tokKind int

const (
	tokWord tokKind = iota
	tokOp           // one of the four operators G11 allows: | && || ;
)

type token struct {
	kind tokKind
	pos  int
	raw  string // the text as written
	// val is the word after quote removal: what the program receives.
	val string
}

// construct is a shell construct G11 does not allow, at its byte offset.
type construct struct {
	pos  int
	text string
}

type lexer struct {
	s         string
	i         int
	toks      []token
	construct *construct // the leftmost one
	cmdPos    bool       // the next word is in command position
	// removedText is the first of 2>/dev/null and 2>&1 removed.
	removedText string
}

func (lx *lexer) found(pos int, text string) {
	if lx.construct == nil || pos < lx.construct.pos {
		lx.construct = &construct{pos: pos, text: text}
	}
}

// removed reports the length of "2>/dev/null" or "2>&1" at offset i when one
// of them stands there as a whole redirection: at the start of a word and
// followed by the end of the line, a blank or a metacharacter. G11: these two
// are removed before checking.
func (lx *lexer) removed(i int) int {
	for _, r := range [...]string{"2>/dev/null", "2>&1"} {
		if strings.HasPrefix(lx.s[i:], r) {
			j := i + len(r)
			if j == len(lx.s) || isMeta(lx.s[j]) {
				return len(r)
			}
		}
	}
	return 0
}

// isMeta: the bytes that end an unquoted word in the shell.
func isMeta(c byte) bool {
	switch c {
	case ' ', '\t', '\n', ';', '&', '|', '(', ')', '<', '>':
		return true
	}
	return false
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' }

func lex(s string) *lexer {
	lx := &lexer{s: s, cmdPos: true}
	for lx.i < len(s) {
		c := s[lx.i]
		switch {
		case isBlank(c):
			lx.i++
		case c == '|':
			switch {
			case strings.HasPrefix(s[lx.i:], "||"):
				lx.op("||")
			case strings.HasPrefix(s[lx.i:], "|&"):
				lx.other("|&")
			default:
				lx.op("|")
			}
		case c == '&':
			switch {
			case strings.HasPrefix(s[lx.i:], "&&"):
				lx.op("&&")
			case strings.HasPrefix(s[lx.i:], "&>>"):
				lx.other("&>>")
			case strings.HasPrefix(s[lx.i:], "&>"):
				lx.other("&>")
			default:
				lx.other("&")
			}
		case c == ';':
			switch {
			case strings.HasPrefix(s[lx.i:], ";;&"):
				lx.other(";;&")
			case strings.HasPrefix(s[lx.i:], ";;"):
				lx.other(";;")
			case strings.HasPrefix(s[lx.i:], ";&"):
				lx.other(";&")
			default:
				lx.op(";")
			}
		case c == '(' || c == ')':
			lx.other(string(c))
		case c == '<' || c == '>':
			lx.other(redirection(s[lx.i:]))
		default:
			if n := lx.removed(lx.i); n > 0 {
				if lx.removedText == "" {
					lx.removedText = s[lx.i : lx.i+n]
				}
				lx.i += n
				continue
			}
			lx.word()
		}
	}
	return lx
}

// redirection returns the redirection operator (or process substitution) at
// the start of s, as the reason names it.
func redirection(s string) string {
	for _, op := range [...]string{"<<<", "<<-", "&>>", ">>", "<<", "<>", "<&", ">&", ">|", "<(", ">("} {
		if strings.HasPrefix(s, op) {
			return op
		}
	}
	return s[:1]
}

func (lx *lexer) op(text string) {
	lx.toks = append(lx.toks, token{kind: tokOp, pos: lx.i, raw: text})
	lx.i += len(text)
	lx.cmdPos = true
}

// other records an operator or redirection G11 does not allow.
func (lx *lexer) other(text string) {
	lx.found(lx.i, text)
	lx.i += len(text)
	lx.cmdPos = true
}

// reserved are the shell's reserved words: in command position they start a
// compound command, a shell construct.
var reserved = map[string]bool{
	"!": true, "[[": true, "]]": true, "{": true, "}": true, "case": true, "coproc": true,
	"do": true, "done": true, "elif": true, "else": true, "esac": true, "fi": true,
	"for": true, "function": true, "if": true, "in": true, "select": true, "then": true,
	"time": true, "until": true, "while": true,
}

// word lexes one word from lx.i: unquoted text, backslash escapes, '…' and
// "…". Expansions and substitutions are recorded as constructs; the lexer then
// goes on as if their characters were plain text, which can only find further
// constructs to the right of the first.
func (lx *lexer) word() {
	s := lx.s
	start := lx.i
	var val strings.Builder
	quoted := false
	// Brace expansion: unquoted { … } with an unquoted , or .. at its level.
	type brace struct {
		pos      int
		expanded bool
	}
	var braces []brace
	if s[lx.i] == '#' {
		lx.found(lx.i, "#") // a comment
	}
	for lx.i < len(s) && !isMeta(s[lx.i]) {
		c := s[lx.i]
		switch c {
		case '\\':
			quoted = true
			if lx.i+1 < len(s) {
				val.WriteByte(s[lx.i+1])
				lx.i += 2
			} else {
				val.WriteByte('\\')
				lx.i++
			}
		case '\'':
			quoted = true
			end := strings.IndexByte(s[lx.i+1:], '\'')
			if end < 0 {
				lx.found(lx.i, "'") // unterminated quote
				val.WriteString(s[lx.i+1:])
				lx.i = len(s)
				continue
			}
			val.WriteString(s[lx.i+1 : lx.i+1+end])
			lx.i += end + 2
		case '"':
			quoted = true
			lx.dquote(&val)
		case '`':
			lx.found(lx.i, "`")
			val.WriteByte(c)
			lx.i++
		case '$':
			if t := dollar(s[lx.i+1:], false); t != "" {
				lx.found(lx.i, t)
			}
			val.WriteByte(c)
			lx.i++
		case '{':
			braces = append(braces, brace{pos: lx.i})
			val.WriteByte(c)
			lx.i++
		case ',':
			if len(braces) > 0 {
				braces[len(braces)-1].expanded = true
			}
			val.WriteByte(c)
			lx.i++
		case '.':
			if len(braces) > 0 && strings.HasPrefix(s[lx.i:], "..") {
				braces[len(braces)-1].expanded = true
			}
			val.WriteByte(c)
			lx.i++
		case '}':
			if n := len(braces); n > 0 {
				if braces[n-1].expanded {
					lx.found(braces[n-1].pos, "{")
				}
				braces = braces[:n-1]
			}
			val.WriteByte(c)
			lx.i++
		default:
			val.WriteByte(c)
			lx.i++
		}
	}
	raw := s[start:lx.i]
	if lx.cmdPos && !quoted && reserved[raw] {
		lx.found(start, raw)
	}
	lx.cmdPos = false
	lx.toks = append(lx.toks, token{kind: tokWord, pos: start, raw: raw, val: val.String()})
}

// dquote lexes "…" from lx.i (at the opening quote).
func (lx *lexer) dquote(val *strings.Builder) {
	s := lx.s
	open := lx.i
	lx.i++
	for lx.i < len(s) {
		c := s[lx.i]
		switch c {
		case '"':
			lx.i++
			return
		case '\\':
			if lx.i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[lx.i+1]) >= 0 {
				val.WriteByte(s[lx.i+1])
				lx.i += 2
				continue
			}
			val.WriteByte(c)
			lx.i++
		case '`':
			lx.found(lx.i, "`")
			val.WriteByte(c)
			lx.i++
		case '$':
			if t := dollar(s[lx.i+1:], true); t != "" {
				lx.found(lx.i, t)
			}
			val.WriteByte(c)
			lx.i++
		default:
			val.WriteByte(c)
			lx.i++
		}
	}
	lx.found(open, `"`) // unterminated quote
}

// dollar tells whether a $ followed by rest starts an expansion or a
// substitution, and how the reason names it: "$(" for a command substitution
// (arithmetic $(( included), "$" for every other expansion, "" when the $ is
// a plain character ($ at the end, before a blank, a / and so on).
func dollar(rest string, inDquote bool) string {
	if rest == "" {
		return ""
	}
	c := rest[0]
	switch {
	case c == '(':
		return "$("
	case c == '{' || c == '[':
		return "$"
	case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9':
		return "$"
	case strings.IndexByte("@*#?-$!", c) >= 0:
		return "$"
	case (c == '\'' || c == '"') && !inDquote:
		return "$" // $'…' and $"…" quoting
	}
	return ""
}

// ---------------------------------------------------------------------------
// Parts: simple commands joined by the four operators

// checkParts returns the first part from the left that breaks G11: an
// operator with no command before, after or between it, a program that is not
// allowed, or an argument its program does not allow.
func checkParts(toks []token) string {
	var cmd []token
	var last *token // the operator before cmd
	for i := range toks {
		t := &toks[i]
		if t.kind == tokWord {
			cmd = append(cmd, *t)
			continue
		}
		if len(cmd) == 0 {
			if last != nil {
				return last.raw // nothing between last and t
			}
			return t.raw // nothing before t
		}
		if p := checkCommand(cmd); p != "" {
			return p
		}
		cmd, last = nil, t
	}
	if len(cmd) > 0 {
		return checkCommand(cmd)
	}
	if last != nil {
		return last.raw // nothing after the last operator
	}
	return "" // an empty line runs nothing
}

func checkCommand(words []token) string {
	prog := words[0]
	name, ok := programName(prog.val)
	if !ok {
		return prog.raw
	}
	return programs[name](prog, words[1:])
}

// programDirs are the folders a program named by its path may be in (G11).
var programDirs = map[string]bool{
	"/bin": true, "/usr/bin": true, "/usr/local/bin": true, "/opt/homebrew/bin": true,
}

// programName returns the program a command word names, when it is allowed:
// a bare name from the list, or that name in one of programDirs.
func programName(v string) (string, bool) {
	name := v
	if i := strings.LastIndexByte(v, '/'); i >= 0 {
		if !programDirs[v[:i]] {
			return "", false
		}
		name = v[i+1:]
	}
	_, ok := programs[name]
	return name, ok
}
