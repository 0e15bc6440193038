package pipe

import (
	"bytes"
	"encoding/json"
	"io"
	"reflect"
	"unicode/utf8"

	"github.com/jaekit/spar/lib/envelope"
)

// indenter is json.Indent as a stream: the bytes written to it come out
// indented exactly as json.Indent(dst, src, prefix, indent) would indent
// their concatenation (valid JSON in; insignificant whitespace dropped;
// empty objects and arrays stay {} and []). A value is never held whole.
type indenter struct {
	w              io.Writer
	prefix, indent string
	depth          int
	need           bool // an opened { or [ waits for its first byte
	inStr, esc     bool
	buf            []byte
	err            error
}

func newIndenter(w io.Writer, prefix, indent string) *indenter {
	return &indenter{w: w, prefix: prefix, indent: indent, buf: make([]byte, 0, 64<<10)}
}

func (d *indenter) newline() {
	d.buf = append(d.buf, '\n')
	d.buf = append(d.buf, d.prefix...)
	for i := 0; i < d.depth; i++ {
		d.buf = append(d.buf, d.indent...)
	}
}

func (d *indenter) Write(p []byte) (int, error) {
	if d.err != nil {
		return 0, d.err
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		if len(d.buf) >= 32<<10 {
			d.flush()
		}
		if d.inStr {
			if !d.esc {
				// The run of a string up to its next quote or backslash
				// is copied as it is: strings are most of a record.
				n := 0
				for end := min(len(p)-i, 32<<10); n < end && p[i+n] != '"' && p[i+n] != '\\'; n++ {
				} // at most 32 KiB at a time: d.buf stays bounded (flushed above)
				if n > 0 {
					d.buf = append(d.buf, p[i:i+n]...)
					i += n - 1
					continue
				}
			}
			d.buf = append(d.buf, c)
			switch {
			case d.esc:
				d.esc = false
			case c == '\\':
				d.esc = true
			case c == '"':
				d.inStr = false
			}
			continue
		}
		if isSpace(c) {
			continue
		}
		if d.need && c != '}' && c != ']' {
			d.need = false
			d.depth++
			d.newline()
		}
		switch c {
		case '"':
			d.inStr = true
			d.buf = append(d.buf, c)
		case '{', '[':
			d.need = true
			d.buf = append(d.buf, c)
		case ',':
			d.buf = append(d.buf, c)
			d.newline()
		case ':':
			d.buf = append(d.buf, c, ' ')
		case '}', ']':
			if d.need {
				d.need = false
			} else {
				d.depth--
				d.newline()
			}
			d.buf = append(d.buf, c)
		default:
			d.buf = append(d.buf, c)
		}
	}
	return len(p), d.err
}

func (d *indenter) flush() error {
	if d.err == nil && len(d.buf) > 0 {
		_, d.err = d.w.Write(d.buf)
	}
	d.buf = d.buf[:0]
	return d.err
}

func (d *indenter) writeString(s string) error {
	for len(s) > 0 && d.err == nil {
		n := min(len(s), 32<<10)
		d.Write([]byte(s[:n]))
		s = s[n:]
	}
	return d.err
}

// big is the size from which a reviewer's result is written from where it
// lies instead of through an encoding of the whole value.
const big = 64 << 10

// encodeValue writes v's JSON (as Marshal encodes it) to d. A slice is
// written an element at a time; a reviewer run's raw result and a checked
// result object, when large, are spliced in from the value itself.
func encodeValue(d *indenter, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Slice && rv.Type() != reflect.TypeOf(json.RawMessage(nil)) && rv.Type().Elem().Kind() != reflect.Uint8 {
		if rv.IsNil() {
			_, err := d.Write([]byte("null"))
			return err
		}
		d.Write([]byte{'['})
		for i := 0; i < rv.Len(); i++ {
			if i > 0 {
				d.Write([]byte{','})
			}
			if err := encodeElem(d, rv.Index(i).Interface()); err != nil {
				return err
			}
		}
		_, err := d.Write([]byte{']'})
		return err
	}
	return encodeElem(d, v)
}

func encodeElem(d *indenter, v any) error {
	switch x := v.(type) {
	case envelope.ReviewerRun:
		if x.Result != nil && len(*x.Result) >= big && utf8.ValidString(*x.Result) {
			s := *x.Result
			x.Result = nil
			return splice(d, x, "result", func() error { return writeJSONString(d, s) })
		}
	case envelope.Result:
		if len(x.Result) >= big {
			raw := x.Result
			x.Result = nil
			return splice(d, x, "result", func() error { _, err := d.Write(raw); return err })
		}
	}
	b, err := Marshal(v)
	if err != nil {
		return err
	}
	_, err = d.Write(b)
	return err
}

// splice writes the encoding of the object v with its top-level member key
// (encoded null) replaced by what put writes.
func splice(d *indenter, v any, key string, put func() error) error {
	b, err := Marshal(v)
	if err != nil {
		return err
	}
	ms, err := ValueOf(b).Members()
	if err != nil {
		return err
	}
	for i := len(ms) - 1; i >= 0; i-- {
		if ms[i].Key != key {
			continue
		}
		d.Write(b[:ms[i].off])
		if err := put(); err != nil {
			return err
		}
		_, err := d.Write(b[ms[i].off+ms[i].n:])
		return err
	}
	_, err = d.Write(b)
	return err
}

// writeJSONString writes s as Marshal encodes a string (no HTML escaping),
// a piece at a time; pieces end before an ASCII byte, so each encodes as it
// would inside the whole.
func writeJSONString(d *indenter, s string) error {
	d.Write([]byte{'"'})
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for len(s) > 0 {
		n := min(len(s), 32<<10)
		for n < len(s) && s[n] >= 0x80 {
			n++
		}
		b.Reset()
		if err := enc.Encode(s[:n]); err != nil {
			return err
		}
		e := bytes.TrimRight(b.Bytes(), "\n")
		if _, err := d.Write(e[1 : len(e)-1]); err != nil {
			return err
		}
		s = s[n:]
	}
	_, err := d.Write([]byte{'"'})
	return err
}
