package gitx

import (
	"bufio"
	"bytes"
	"strconv"
	"strings"
)

// LineMap maps lines of one commit's files to another commit's (the diff
// between them, renames followed): how a finding's lines at a round's head
// read at a later head (SARIF regions at the gated head, lib/sarif).
type LineMap struct {
	files map[string]*fileMap // by old path; a path not in it is unchanged
}

type fileMap struct {
	newPath string // "" when the file is gone
	hunks   []hunk
}

type hunk struct{ oldStart, oldCount, newCount int }

// NewLineMap reads `git diff -U0 -M from to` in dir.
func NewLineMap(dir, from, to string) (*LineMap, error) {
	b, err := Git(dir, "-c", "core.quotePath=false", "diff", "--no-color", "--no-ext-diff", "-U0", "-M", "--end-of-options", from, to, "--")
	if err != nil {
		return nil, err
	}
	m := &LineMap{files: map[string]*fileMap{}}
	var cur *fileMap
	var oldPath string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	for sc.Scan() {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "diff --git "):
			cur, oldPath = nil, ""
		case strings.HasPrefix(l, "rename from "):
			oldPath = strings.TrimPrefix(l, "rename from ")
		case strings.HasPrefix(l, "rename to "):
			cur = &fileMap{newPath: strings.TrimPrefix(l, "rename to ")}
			m.files[oldPath] = cur
		case strings.HasPrefix(l, "--- "):
			if p := strings.TrimPrefix(l, "--- "); strings.HasPrefix(p, "a/") {
				oldPath = p[2:]
			}
		case strings.HasPrefix(l, "+++ "):
			p := strings.TrimPrefix(l, "+++ ")
			if oldPath == "" {
				continue // a new file: no old lines to map
			}
			if cur == nil {
				cur = &fileMap{}
				m.files[oldPath] = cur
			}
			if strings.HasPrefix(p, "b/") {
				cur.newPath = p[2:]
			}
		case strings.HasPrefix(l, "@@ ") && cur != nil:
			if h, ok := parseHunk(l); ok {
				cur.hunks = append(cur.hunks, h)
			}
		}
	}
	return m, sc.Err()
}

// parseHunk reads "@@ -a[,b] +c[,d] @@".
func parseHunk(l string) (hunk, bool) {
	f := strings.Fields(l)
	if len(f) < 3 {
		return hunk{}, false
	}
	num := func(s string) (int, int, bool) {
		start, count, found := strings.Cut(s[1:], ",")
		a, err := strconv.Atoi(start)
		if err != nil {
			return 0, 0, false
		}
		n := 1
		if found {
			if n, err = strconv.Atoi(count); err != nil {
				return 0, 0, false
			}
		}
		return a, n, true
	}
	a, b, ok1 := num(f[1])
	_, d, ok2 := num(f[2])
	return hunk{oldStart: a, oldCount: b, newCount: d}, ok1 && ok2
}

// Map returns where lines start..end of path read in the later commit: its
// path there and the same lines shifted, or ok false when the file is gone
// or one of the lines was changed or deleted (it no longer exists there).
func (m *LineMap) Map(path string, start, end int) (newPath string, newStart, newEnd int, ok bool) {
	f, changed := m.files[path]
	if !changed {
		return path, start, end, true
	}
	if f.newPath == "" {
		return "", 0, 0, false
	}
	// Any line of the range changed or deleted: the range no longer exists.
	for _, h := range f.hunks {
		if h.oldCount > 0 && h.oldStart <= end && h.oldStart+h.oldCount-1 >= start {
			return "", 0, 0, false
		}
	}
	s, ok1 := f.line(start)
	e, ok2 := f.line(end)
	return f.newPath, s, e, ok1 && ok2
}

func (f *fileMap) line(l int) (int, bool) {
	delta := 0
	for _, h := range f.hunks {
		if h.oldCount == 0 { // lines inserted after oldStart
			if l > h.oldStart {
				delta += h.newCount
			}
			continue
		}
		switch {
		case l < h.oldStart:
			return l + delta, true
		case l < h.oldStart+h.oldCount:
			return 0, false
		}
		delta += h.newCount - h.oldCount
	}
	return l + delta, true
}
