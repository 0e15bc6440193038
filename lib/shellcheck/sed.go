package shellcheck

import "strings"

// sed (G11, docs/review-round.md §4): only sed -n, no option after its first operand,
// and scripts that only print. -i and -f are not among the options read
// here, so they are violations wherever they stand; --expression and -e are
// allowed with a script that only prints.

// sedFlags are the short options that take no value and do nothing but
// change how sed reads or prints.
const sedFlags = "nErszu"

// sedLongFlags are the long options that take no value.
var sedLongFlags = map[string]bool{
	"quiet": true, "silent": true, "regexp-extended": true, "separate": true,
	"null-data": true, "zero-terminated": true, "unbuffered": true, "posix": true,
	"sandbox": true, "debug": true, "help": true, "version": true,
}

// checkSed returns the first part of a sed command that breaks G11: the
// program word when the command has no -n before its first operand, an
// option that is not allowed or stands after the first operand, then the
// first script that does more than print.
func checkSed(prog token, args []token) string {
	if !sedQuiet(args) {
		return prog.raw
	}
	var scripts []string
	first := -1 // index of the first operand
	optsDone := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		v := a.val
		switch {
		case optsDone || v == "-" || !strings.HasPrefix(v, "-"):
			if first < 0 {
				first = i
			}
			continue
		case v == "--":
			optsDone = true
			continue
		}
		if first >= 0 {
			return a.raw // an option after the first operand
		}
		if strings.HasPrefix(v, "--") {
			name, value, eq := strings.Cut(v[2:], "=")
			switch {
			case sedLongFlags[name] && !eq:
			case name == "expression":
				if !eq {
					if i+1 >= len(args) {
						continue
					}
					i++
					value = args[i].val
				}
				if !printOnly(value) {
					return value
				}
				scripts = append(scripts, value)
			case name == "line-length":
				if !eq {
					i++
				}
			default:
				return a.raw
			}
			continue
		}
		for j := 1; j < len(v); j++ {
			c := v[j]
			switch {
			case strings.IndexByte(sedFlags, c) >= 0:
				continue
			case c == 'e':
				script := v[j+1:]
				if script == "" {
					if i+1 >= len(args) {
						break
					}
					i++
					script = args[i].val
				}
				if !printOnly(script) {
					return script
				}
				scripts = append(scripts, script)
			case c == 'l':
				if j == len(v)-1 {
					i++
				}
			default:
				return a.raw
			}
			break
		}
	}
	// Without -e or --expression the first operand is the script.
	if len(scripts) == 0 && first >= 0 && !printOnly(args[first].val) {
		return args[first].val
	}
	return ""
}

// sedQuiet reports whether -n (or --quiet, --silent) stands among the
// options before the first operand.
func sedQuiet(args []token) bool {
	for i := 0; i < len(args); i++ {
		v := args[i].val
		switch {
		case v == "--" || v == "-" || !strings.HasPrefix(v, "-"):
			return false
		case v == "--quiet" || v == "--silent":
			return true
		case v == "--expression" || v == "--line-length":
			i++
		case strings.HasPrefix(v, "--"):
		default:
			for j := 1; j < len(v); j++ {
				c := v[j]
				if c == 'n' {
					return true
				}
				if c == 'e' || c == 'l' {
					if j == len(v)-1 {
						i++
					}
					break
				}
			}
		}
	}
	return false
}

// printOnly reports whether a sed script only prints: commands p, P, l, =,
// q and Q, each with an optional address or range and an optional !,
// grouped with { } and separated by ; (GNU sed syntax). Everything else
// (s, y, e, w, W, r, R, a, i, c, …) is more than printing.
func printOnly(s string) bool {
	p := &sedParser{s: s}
	return p.script()
}

type sedParser struct {
	s string
	i int
}

func (p *sedParser) more() bool { return p.i < len(p.s) }
func (p *sedParser) peek() byte { return p.s[p.i] }

func (p *sedParser) blanks() {
	for p.more() && (p.peek() == ' ' || p.peek() == '\t') {
		p.i++
	}
}

func (p *sedParser) digits() bool {
	start := p.i
	for p.more() && p.peek() >= '0' && p.peek() <= '9' {
		p.i++
	}
	return p.i > start
}

func (p *sedParser) script() bool {
	depth := 0
	for {
		p.blanks()
		for p.more() && p.peek() == ';' {
			p.i++
			p.blanks()
		}
		if !p.more() {
			return depth == 0
		}
		if p.peek() == '}' {
			if depth == 0 {
				return false
			}
			depth--
			p.i++
			if !p.end() {
				return false
			}
			continue
		}
		if p.address(true) {
			p.blanks()
			if p.more() && p.peek() == ',' {
				p.i++
				p.blanks()
				if !p.address(false) {
					return false
				}
			}
		}
		p.blanks()
		if p.more() && p.peek() == '!' {
			p.i++
			p.blanks()
		}
		if !p.more() {
			return false
		}
		switch p.peek() {
		case '{':
			depth++
			p.i++
			continue
		case 'p', 'P', '=':
			p.i++
		case 'l', 'q', 'Q':
			p.i++
			p.blanks()
			p.digits()
		default:
			return false
		}
		if !p.end() {
			return false
		}
	}
}

// end: after a command only blanks, then ;, } or the end.
func (p *sedParser) end() bool {
	p.blanks()
	return !p.more() || p.peek() == ';' || p.peek() == '}'
}

// address reads one address; first tells whether it is the first of a range
// (only the second may be +N or ~N). It returns false, reading nothing, when
// no address stands at p.i, and false with p.i moved past the text when the
// address is malformed (the caller then fails on what follows).
func (p *sedParser) address(first bool) bool {
	if !p.more() {
		return false
	}
	switch c := p.peek(); {
	case c >= '0' && c <= '9':
		p.digits()
		if p.more() && p.peek() == '~' {
			p.i++
			return p.digits()
		}
		return true
	case c == '$':
		p.i++
		return true
	case (c == '+' || c == '~') && !first:
		p.i++
		return p.digits()
	case c == '/':
		p.i++
		return p.regex('/')
	case c == '\\':
		if p.i+1 >= len(p.s) || p.s[p.i+1] == '\\' || p.s[p.i+1] == '\n' {
			return false
		}
		d := p.s[p.i+1]
		p.i += 2
		return p.regex(d)
	}
	return false
}

// regex reads a regular expression up to the unescaped delimiter d and the
// flags I and M after it.
func (p *sedParser) regex(d byte) bool {
	for p.more() {
		c := p.peek()
		switch {
		case c == '\\':
			p.i += 2
			continue
		case c == d:
			p.i++
			for p.more() && (p.peek() == 'I' || p.peek() == 'M') {
				p.i++
			}
			return true
		}
		p.i++
	}
	return false
}
