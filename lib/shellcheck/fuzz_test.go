package shellcheck

import (
	"fmt"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// FuzzG11 cross-checks Check with an independent shell parser
// (mvdan.cc/sh/v3/syntax, bash dialect): every line Check accepts must parse
// to nothing but simple commands of the allowed programs joined by |, &&,
// || and ;, with no redirection other than 2>/dev/null and 2>&1, and no
// substitution, expansion (brace expansion included), subshell, compound
// command, assignment or comment. Run it with
//
//	go test ./lib/shellcheck -run '^$' -fuzz FuzzG11 -fuzztime 10m -parallel 1
func FuzzG11(f *testing.F) {
	for _, fm := range inputForms(f) {
		f.Add(fm.Line)
	}
	for _, c := range outside {
		f.Add(c.line)
	}
	f.Fuzz(func(t *testing.T, line string) {
		ok, problem := Check(line)
		if ok != (problem == "") {
			t.Fatalf("Check(%q) = %v, %q: accepted exactly when problem is empty", line, ok, problem)
		}
		if strings.Contains(line, "\n") && problem != "\n" {
			t.Fatalf("Check(%q): a line with a newline has the newline as its first problem, got %q", line, problem)
		}
		if !ok {
			return
		}
		if err := crossCheck(line); err != nil {
			t.Fatalf("Check accepted %q but mvdan.cc/sh reads it differently: %v", line, err)
		}
	})
}

// fragments are the pieces FuzzG11Fragments builds lines from: programs,
// options, quotes, escapes, operators, redirections and expansion
// characters, so that the fuzzer reaches accepted lines with every feature
// G11 reads far more often than byte mutation alone does.
var fragments = []string{
	" ", "\t", "ls", "cat", "grep", "sed", "find", "sort", "tail", "rg", "uniq", "file", "true",
	"/bin/", "/usr/bin/", "./", "head", "base", "/", "-", "--", "-n", "-e", "-i", "-f", "-o", "-z",
	"-exec", "-delete", "--pre", "--output=", "=", "x", "1p", "p", "w", "e", "'", "\"", "\\",
	"$", "$(", "`", "{", "}", ",", "..", "(", ")", "|", "||", "&", "&&", ";", ";;", "<", ">", "2",
	"2>/dev/null", "2>&1", ">&", "#", "!", "~", "*", "?", "[", "]", "@", "%", "^", ":", ".",
	"\n", "\r", "\x00", "é", "\xff", "a", "b", "0", "9", "_", "for", "if", "{ ", " }", "$'", "$\"",
}

// FuzzG11Fragments is FuzzG11 on lines joined from fragments (each input
// byte picks one).
func FuzzG11Fragments(f *testing.F) {
	f.Add([]byte{2, 0, 23, 0, 17})
	f.Add([]byte{5, 0, 22, 0, 38, 36, 38, 0, 16})
	f.Add([]byte{4, 0, 45, 33, 46, 0, 16, 0, 57, 0, 2})
	f.Fuzz(func(t *testing.T, data []byte) {
		var b strings.Builder
		for _, c := range data {
			b.WriteString(fragments[int(c)%len(fragments)])
		}
		line := b.String()
		ok, problem := Check(line)
		if ok != (problem == "") {
			t.Fatalf("Check(%q) = %v, %q: accepted exactly when problem is empty", line, ok, problem)
		}
		if !ok {
			return
		}
		if err := crossCheck(line); err != nil {
			t.Fatalf("Check accepted %q but mvdan.cc/sh reads it differently: %v", line, err)
		}
	})
}

// allowedPrograms restates the program list of docs/review-round.md "G11 agy shell lines" independently of programs.
var allowedPrograms = map[string]bool{
	"ls": true, "pwd": true, "cat": true, "head": true, "wc": true, "stat": true, "file": true,
	"true": true, "uniq": true, "cut": true, "tr": true, "nl": true, "grep": true, "egrep": true,
	"fgrep": true, "tail": true, "rg": true, "find": true, "diff": true, "sort": true, "sed": true,
}

var allowedDirs = []string{"/bin/", "/usr/bin/", "/usr/local/bin/", "/opt/homebrew/bin/"}

// forbiddenArgs restates the forbidden argument prefixes of docs/review-round.md "G11 agy shell lines": whole
// arguments, and long options with or without =value.
var forbiddenArgs = map[string][]string{
	"tail": {"-f", "-F", "--follow"},
	"rg":   {"--pre", "--pre-glob", "--hostname-bin", "--search-zip", "-z"},
	"find": {"-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf", "-fls"},
	"sort": {"-o", "--output", "--compress-program", "-T", "--temporary-directory"},
}

func crossCheck(line string) error {
	p := syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(true))
	file, err := p.Parse(strings.NewReader(line), "")
	if err != nil {
		return fmt.Errorf("does not parse: %v", err)
	}
	if len(file.Last) > 0 {
		return fmt.Errorf("comment")
	}
	for _, s := range file.Stmts {
		if err := checkStmt(s); err != nil {
			return err
		}
	}
	return nil
}

func checkStmt(s *syntax.Stmt) error {
	switch {
	case s.Negated:
		return fmt.Errorf("negated pipeline")
	case s.Background:
		return fmt.Errorf("background &")
	case s.Coprocess:
		return fmt.Errorf("coprocess")
	case s.Disown:
		return fmt.Errorf("disown")
	case len(s.Comments) > 0:
		return fmt.Errorf("comment")
	}
	for _, r := range s.Redirs {
		if !removedRedirect(r) {
			return fmt.Errorf("redirection %s", r.Op)
		}
	}
	switch c := s.Cmd.(type) {
	case *syntax.CallExpr:
		return checkCall(c)
	case *syntax.BinaryCmd:
		switch c.Op {
		case syntax.AndStmt, syntax.OrStmt, syntax.Pipe:
		default:
			return fmt.Errorf("operator %s", c.Op)
		}
		if err := checkStmt(c.X); err != nil {
			return err
		}
		return checkStmt(c.Y)
	case nil:
		return fmt.Errorf("a statement with no command")
	default:
		return fmt.Errorf("compound command %T", c)
	}
}

// removedRedirect: 2>/dev/null or 2>&1, the two G11 removes.
func removedRedirect(r *syntax.Redirect) bool {
	if r.N == nil || r.N.Value != "2" || r.Hdoc != nil || r.Word == nil || len(r.Word.Parts) != 1 {
		return false
	}
	lit, ok := r.Word.Parts[0].(*syntax.Lit)
	if !ok {
		return false
	}
	return r.Op == syntax.RdrOut && lit.Value == "/dev/null" || r.Op == syntax.DplOut && lit.Value == "1"
}

func checkCall(c *syntax.CallExpr) error {
	if len(c.Assigns) > 0 {
		return fmt.Errorf("assignment")
	}
	if len(c.Args) == 0 {
		return fmt.Errorf("no command")
	}
	var vals []string
	for _, w := range c.Args {
		v, err := wordValue(w)
		if err != nil {
			return err
		}
		vals = append(vals, v)
	}
	prog := vals[0]
	for _, d := range allowedDirs {
		if rest, ok := strings.CutPrefix(prog, d); ok && !strings.Contains(rest, "/") {
			prog = rest
		}
	}
	if !allowedPrograms[prog] {
		return fmt.Errorf("program %q", vals[0])
	}
	for _, a := range vals[1:] {
		for _, f := range forbiddenArgs[prog] {
			if a == f || strings.HasPrefix(f, "--") && strings.HasPrefix(a, f+"=") {
				return fmt.Errorf("%s argument %q", prog, a)
			}
		}
	}
	if prog == "sed" {
		if !sedHasN(vals[1:]) {
			return fmt.Errorf("sed without -n")
		}
	}
	return nil
}

// sedHasN: -n (alone or in a short cluster), --quiet or --silent before the
// first operand.
func sedHasN(args []string) bool {
	for _, a := range args {
		if a == "--quiet" || a == "--silent" {
			return true
		}
		if !strings.HasPrefix(a, "-") || a == "-" || a == "--" {
			return false
		}
		if !strings.HasPrefix(a, "--") {
			if i := strings.IndexAny(a, "el"); i >= 0 {
				a = a[:i] // the rest is the option's value
			}
			if strings.Contains(a, "n") {
				return true
			}
		}
	}
	return false
}

// wordValue is the word after quote removal, or an error for any part that
// is not a literal or a plain quote.
func wordValue(w *syntax.Word) (string, error) {
	braced := &syntax.Word{Parts: append([]syntax.WordPart(nil), w.Parts...)}
	if syntax.SplitBraces(braced) {
		// SplitBraces reports any {; only a BraceExp node is an expansion.
		found := false
		syntax.Walk(braced, func(n syntax.Node) bool {
			if _, ok := n.(*syntax.BraceExp); ok {
				found = true
			}
			return !found
		})
		if found {
			return "", fmt.Errorf("brace expansion")
		}
	}
	var b strings.Builder
	for _, part := range w.Parts {
		switch x := part.(type) {
		case *syntax.Lit:
			b.WriteString(unescape(x.Value, ""))
		case *syntax.SglQuoted:
			if x.Dollar {
				return "", fmt.Errorf("$'…'")
			}
			b.WriteString(x.Value)
		case *syntax.DblQuoted:
			if x.Dollar {
				return "", fmt.Errorf(`$"…"`)
			}
			for _, q := range x.Parts {
				lit, ok := q.(*syntax.Lit)
				if !ok {
					return "", fmt.Errorf("%T in double quotes", q)
				}
				b.WriteString(unescape(lit.Value, "$`\"\\"))
			}
		default:
			return "", fmt.Errorf("%T", part)
		}
	}
	return b.String(), nil
}

// unescape removes the backslashes of a literal: before any character when
// only is "" (unquoted), before the characters of only otherwise.
func unescape(s, only string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && (only == "" || strings.IndexByte(only, s[i+1]) >= 0) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
