package main

import (
	"bufio"
	"bytes"
	"regexp"
	"strconv"

	"github.com/rogpeppe/go-internal/diff"
)

// lineDiff is what the change did to one file: the head lines it added or
// modified (1-based) and the text of the base lines it removed.
type lineDiff struct {
	added   map[int]bool
	removed []string
}

// touches reports whether any line from start to end (inclusive) is one the
// change added or modified.
func (d lineDiff) touches(start, end int) bool {
	for l := start; l <= end; l++ {
		if d.added[l] {
			return true
		}
	}
	return false
}

// removedContains reports whether a removed base line contains s.
func (d lineDiff) removedContains(s string) bool {
	for _, l := range d.removed {
		if bytes.Contains([]byte(l), []byte(s)) {
			return true
		}
	}
	return false
}

var hunkRe = regexp.MustCompile(`^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@`)

// diffLines compares the base and head text of a file line by line (an
// anchored diff, go-internal/diff, in the unified format) and returns what
// the change did: a file new in head (base nil) is added whole. This is the
// one source of "what did the change touch" for every rule of this
// reviewer: a finding is reported only on lines the change adds or modifies.
func diffLines(base, head []byte) lineDiff {
	d := lineDiff{added: map[int]bool{}}
	out := diff.Diff("base", base, "head", head)
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<30)
	line, inHunk := 0, false
	for sc.Scan() {
		t := sc.Text()
		if m := hunkRe.FindStringSubmatch(t); m != nil {
			line, _ = strconv.Atoi(m[1])
			inHunk = true
			continue
		}
		if !inHunk || t == "" {
			continue
		}
		switch t[0] {
		case '+':
			d.added[line] = true
			line++
		case '-':
			d.removed = append(d.removed, t[1:])
		case ' ':
			line++
		}
	}
	return d
}
