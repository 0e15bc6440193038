package config

import (
	"bytes"
	"errors"
	"github.com/jaekit/spar/lib/escape"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// tomlDoc is one parsed TOML file (G17): its values as go-toml/v2 v2.2.4
// decodes them, and the line of every key and array item, so that each
// configuration error can name the line of the key at fault (docs/pipeline.md "TOML files").
type tomlDoc struct {
	file string
	data map[string]any
	// keys lists every key path in document order, with the position of the
	// key (a table header's key, a dotted key's part, an array item's value).
	// Array indices are path components too ("reviewers", "0", "model").
	keys []keyPos
	at   map[string]pos
}

type keyPos struct {
	path []string
	pos  pos
}

type pos struct{ line, col int }

func joinPath(p []string) string { return strings.Join(p, "\x00") }

// parseTOML decodes b. A syntax error, anything TOML 1.0 does not allow and a
// table or key defined twice are configuration errors at the line (and
// column, when go-toml gives one) of the error. A file past MaxFileSize or
// MaxDepth is refused before go-toml sees it.
func parseTOML(file string, b []byte) (*tomlDoc, error) {
	if err := checkBounds(file, b, false); err != nil {
		return nil, err
	}
	d := &tomlDoc{file: file, at: map[string]pos{}}
	if err := toml.Unmarshal(b, &d.data); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			line, col := de.Position()
			return nil, cfgErrCol(file, line, col, "TOML syntax: %s", oneLine(strings.TrimPrefix(de.Error(), "toml: ")))
		}
		// go-toml reports a table or key defined twice without a position:
		// the error's line is the start of the first top-level expression
		// whose prefix of the file no longer decodes.
		line := firstFailingLine(b)
		return nil, cfgErr(file, line, "TOML: %s", oneLine(strings.TrimPrefix(err.Error(), "toml: ")))
	}
	if d.data == nil {
		d.data = map[string]any{}
	}
	p := &unstable.Parser{}
	p.Reset(b)
	w := walker{p: p, d: d, arrays: map[string]int{}}
	for p.NextExpression() {
		w.expression(p.Expression())
	}
	if err := p.Error(); err != nil {
		// toml.Unmarshal accepted the file, so its own parser cannot fail.
		return nil, err
	}
	return d, nil
}

// firstFailingLine returns the line where the first top-level expression
// starts whose inclusion makes the file fail to decode.
func firstFailingLine(b []byte) int {
	p := &unstable.Parser{}
	p.Reset(b)
	var starts []int // byte offset of each expression's first key
	for p.NextExpression() {
		e := p.Expression()
		if off, ok := firstOffset(e); ok {
			starts = append(starts, off)
		}
	}
	for i, off := range starts {
		end := len(b)
		if i+1 < len(starts) {
			// Cut at the start of the line holding the next expression.
			end = bytes.LastIndexByte(b[:starts[i+1]], '\n') + 1
		}
		var m map[string]any
		if toml.Unmarshal(b[:end], &m) != nil {
			return 1 + bytes.Count(b[:off], []byte("\n"))
		}
	}
	return 1
}

func firstOffset(n *unstable.Node) (int, bool) {
	if n.Kind == unstable.Key || n.Raw.Length > 0 {
		return int(n.Raw.Offset), true
	}
	best, found := 0, false
	it := n.Children()
	for it.Next() {
		if off, ok := firstOffset(it.Node()); ok && (!found || off < best) {
			best, found = off, true
		}
	}
	return best, found
}

type walker struct {
	p      *unstable.Parser
	d      *tomlDoc
	cur    []string       // the current table's resolved path
	arrays map[string]int // resolved path of an array of tables → tables seen
}

func (w *walker) pos(n *unstable.Node) pos {
	off, ok := firstOffset(n)
	if !ok {
		return pos{1, 1}
	}
	s := w.p.Shape(unstable.Range{Offset: uint32(off), Length: 1})
	return pos{s.Start.Line, s.Start.Column}
}

func (w *walker) record(path []string, at pos) {
	p := append([]string(nil), path...)
	w.d.keys = append(w.d.keys, keyPos{path: p, pos: at})
	if _, ok := w.d.at[joinPath(p)]; !ok {
		w.d.at[joinPath(p)] = at
	}
}

func (w *walker) expression(e *unstable.Node) {
	switch e.Kind {
	case unstable.Table, unstable.ArrayTable:
		var out []string
		it := e.Key()
		var keys []*unstable.Node
		for it.Next() {
			keys = append(keys, it.Node())
		}
		for i, k := range keys {
			out = append(out, string(k.Data))
			last := i == len(keys)-1
			if n, ok := w.arrays[joinPath(out)]; ok && !(last && e.Kind == unstable.ArrayTable) {
				out = append(out, strconv.Itoa(n-1))
			}
			w.record(out, w.pos(k))
		}
		if e.Kind == unstable.ArrayTable {
			j := joinPath(out)
			n := w.arrays[j]
			w.arrays[j] = n + 1
			out = append(out, strconv.Itoa(n))
			w.record(out, w.pos(keys[len(keys)-1]))
		}
		w.cur = out
	case unstable.KeyValue:
		w.keyValue(w.cur, e)
	}
}

func (w *walker) keyValue(base []string, kv *unstable.Node) {
	path := append([]string(nil), base...)
	it := kv.Key()
	for it.Next() {
		k := it.Node()
		path = append(path, string(k.Data))
		w.record(path, w.pos(k))
	}
	w.value(path, kv.Value())
}

func (w *walker) value(path []string, v *unstable.Node) {
	switch v.Kind {
	case unstable.InlineTable:
		it := v.Children()
		for it.Next() {
			if c := it.Node(); c.Kind == unstable.KeyValue {
				w.keyValue(path, c)
			}
		}
	case unstable.Array:
		it := v.Children()
		i := 0
		for it.Next() {
			c := it.Node()
			if c.Kind == unstable.Comment {
				continue
			}
			ip := append(append([]string(nil), path...), strconv.Itoa(i))
			w.record(ip, w.pos(c))
			w.value(ip, c)
			i++
		}
	}
}

// line returns the line of path, or of its nearest recorded ancestor.
func (d *tomlDoc) line(path ...string) int {
	for n := len(path); n > 0; n-- {
		if p, ok := d.at[joinPath(path[:n])]; ok {
			return p.line
		}
	}
	return 1
}

// oneLine escapes control characters in a go-toml message (it can quote the
// offending character raw, a newline included): a configuration error is
// one stderr line.
func oneLine(s string) string { return strings.TrimSpace(escape.Controls(s)) }
