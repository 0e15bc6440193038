package config

import "bytes"

// MaxFileSize and MaxDepth bound every configuration file spar reads (the
// user's spar.toml or SPAR_CONFIG, the project's .jaekit/spar.toml in the
// working tree and in a commit, clean-review's config.json): a larger file,
// or one whose arrays and inline tables (JSON: arrays and objects) nest
// deeper, is a configuration error before it is parsed (docs/pipeline.md
// "TOML files and configuration errors"). A real configuration is a few KB
// and three levels deep; past these bounds the parsers' cost is what a
// planted file makes it.
const (
	MaxFileSize = 256 << 10
	MaxDepth    = 32
)

// checkBounds refuses b, the bytes of file, when it is larger than
// MaxFileSize or nests deeper than MaxDepth, with the line where the bound
// is crossed. One pass over b, its strings (and TOML's comments) skipped:
// a bracket inside them does not count.
func checkBounds(file string, b []byte, json bool) error {
	if len(b) > MaxFileSize {
		line := 1 + bytes.Count(b[:MaxFileSize], []byte("\n"))
		return cfgErr(file, line, "the configuration file is larger than %d bytes, the most spar reads: refused before parsing", MaxFileSize)
	}
	line, depth := 1, 0
	for i := 0; i < len(b); i++ {
		switch c := b[i]; c {
		case '\n':
			line++
		case '#':
			if json {
				continue
			}
			for i+1 < len(b) && b[i+1] != '\n' {
				i++
			}
		case '"', '\'':
			if json && c == '\'' {
				continue
			}
			i, line = skipString(b, i, line, !json)
		case '[', '{':
			depth++
			if depth > MaxDepth {
				return cfgErr(file, line, "arrays and tables nest deeper than spar reads (at most %d levels): refused before parsing", MaxDepth)
			}
		case ']', '}':
			if depth > 0 {
				depth--
			}
		}
	}
	return nil
}

// skipString returns the index of the last byte of the string that opens
// at b[i] (a quote) and the line it ends on. A basic string ('"') honours
// backslash escapes; TOML's literal strings (') do not, and three quotes
// open a multi-line string closed by the same three. A string left open
// runs to the end (the parser reports it).
func skipString(b []byte, i, line int, toml bool) (int, int) {
	q := b[i]
	if toml && i+2 < len(b) && b[i+1] == q && b[i+2] == q {
		for j := i + 3; j < len(b); j++ {
			switch {
			case b[j] == '\n':
				line++
			case b[j] == '\\' && q == '"':
				if j+1 < len(b) && b[j+1] == '\n' {
					line++
				}
				j++
			case b[j] == q && j+2 < len(b) && b[j+1] == q && b[j+2] == q:
				// Up to two more quotes may end the content ("""a"""").
				j += 2
				for j+1 < len(b) && b[j+1] == q {
					j++
				}
				return j, line
			}
		}
		return len(b), line
	}
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\n':
			return j - 1, line // a single-line string ends at the line's end
		case '\\':
			if q == '"' && j+1 < len(b) && b[j+1] != '\n' {
				j++
			}
		case q:
			return j, line
		}
	}
	return len(b), line
}
