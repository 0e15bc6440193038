// Package glob implements the check path globs of G24.
//
// G24: segments split by "/". A segment that is entirely "**" matches zero
// or more folders; any other segment matches within one name by Go's
// path.Match syntax (a "**" inside a segment is two "*"). A trailing "/" is
// ignored. Repository-relative paths only.
package glob

import (
	"errors"
	"fmt"
	"path"
	"strings"
)

// Pattern is one validated check path glob.
type Pattern struct {
	text string
	segs []string
}

// String returns the glob as written.
func (p Pattern) String() string { return p.text }

// Compile validates a glob by G24. The error says what is wrong with it; the
// caller adds where it came from (a check_paths line, or --check-path).
func Compile(s string) (Pattern, error) {
	if strings.TrimSpace(s) == "" {
		return Pattern{}, errors.New("empty glob")
	}
	if strings.HasPrefix(s, "/") {
		return Pattern{}, fmt.Errorf("absolute path %q (check paths are repository-relative)", s)
	}
	t := strings.TrimSuffix(s, "/")
	if t == "" {
		return Pattern{}, fmt.Errorf("glob %q names no path", s)
	}
	segs := strings.Split(t, "/")
	for _, seg := range segs {
		if seg == ".." {
			return Pattern{}, fmt.Errorf("glob %q has a .. segment", s)
		}
		if seg == "**" {
			continue
		}
		// path.Match reports ErrBadPattern only for the syntax it meets, so
		// check the whole segment against a name that cannot end the scan early.
		if _, err := path.Match(seg, ""); err != nil {
			return Pattern{}, fmt.Errorf("glob %q: segment %q: %v", s, seg, err)
		}
		if err := validSegment(seg); err != nil {
			return Pattern{}, fmt.Errorf("glob %q: segment %q: %v", s, seg, err)
		}
	}
	return Pattern{text: s, segs: segs}, nil
}

// validSegment finds the syntax errors path.Match would only report when the
// scan reaches them (an unclosed "[" or a trailing "\" late in the segment).
func validSegment(seg string) error {
	for i := 0; i < len(seg); i++ {
		switch seg[i] {
		case '\\':
			if i+1 >= len(seg) {
				return path.ErrBadPattern
			}
			i++
		case '[':
			j := i + 1
			if j < len(seg) && seg[j] == '^' {
				j++
			}
			closed := false
			first := true
			for ; j < len(seg); j++ {
				c := seg[j]
				if c == ']' && !first {
					closed = true
					break
				}
				first = false
				if c == '\\' {
					j++
					if j >= len(seg) {
						return path.ErrBadPattern
					}
				}
			}
			if !closed {
				return path.ErrBadPattern
			}
			// Let path.Match judge the class itself (ranges, escapes).
			if _, err := path.Match(seg[i:j+1], "x"); err != nil {
				return err
			}
			i = j
		}
	}
	return nil
}

// Match reports whether the repository path p (no leading "/") matches.
func (p Pattern) Match(name string) bool {
	name = strings.TrimSuffix(name, "/")
	if name == "" {
		return false
	}
	return match(p.segs, strings.Split(name, "/"))
}

// segMatch matches one pattern segment against one name; a variable so
// that tests can count the comparisons.
var segMatch = path.Match

// match decides the segments by dynamic programming over (pattern segment,
// name segment) positions: reach[j] says the pattern read so far can end
// just before name[j]. Each pair is decided once, so the work is linear in
// len(pat) × len(name) comparisons: a pattern of many "**" segments can no
// longer backtrack exponentially (docs/trust.md, bounded work: a
// `--check-path` of twelve `**/a` against a 40-deep path ran for minutes).
func match(pat, name []string) bool {
	n := len(name)
	reach := make([]bool, n+1)
	next := make([]bool, n+1)
	reach[0] = true
	for _, seg := range pat {
		clear(next)
		any := false
		if seg == "**" {
			// Zero or more folders: every position at or after a reached one.
			on := false
			for j := 0; j <= n; j++ {
				on = on || reach[j]
				next[j] = on
				any = any || on
			}
		} else {
			for j := 0; j < n; j++ {
				if !reach[j] {
					continue
				}
				if ok, err := segMatch(seg, name[j]); err == nil && ok {
					next[j+1] = true
					any = true
				}
			}
		}
		if !any {
			return false
		}
		reach, next = next, reach
	}
	return reach[n]
}

// Set is an ordered list of patterns.
type Set []Pattern

// CompileAll compiles every glob, stopping at the first invalid one.
func CompileAll(globs []string) (Set, error) {
	s := make(Set, 0, len(globs))
	for _, g := range globs {
		p, err := Compile(g)
		if err != nil {
			return nil, err
		}
		s = append(s, p)
	}
	return s, nil
}

// Match returns the first pattern matching name, and whether one did.
func (s Set) Match(name string) (Pattern, bool) {
	for _, p := range s {
		if p.Match(name) {
			return p, true
		}
	}
	return Pattern{}, false
}
