package pipe

// A streaming JSON scanner over the envelope as it lies in its file (issue
// 11 item 7, docs/pipeline.md "Memory"): it checks the syntax of RFC 8259,
// records where each value starts and ends, and builds only the parts of a
// value a schema can look at. Nothing here keeps the envelope in memory:
// a stage holds what it decodes, never the text it passes through.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
)

// errSyntax is any fault the scanner sees. Read then reads the envelope the
// way encoding/json does, for the exact message (line and reason).
var errSyntax = errors.New("pipe: not JSON")

type scanner struct {
	r   *bufio.Reader
	off int64 // offset of the next byte, from the start of the source
}

func newScanner(src io.ReaderAt, off, n int64) *scanner {
	return &scanner{r: bufio.NewReaderSize(io.NewSectionReader(src, off, n), 64<<10), off: off}
}

func (s *scanner) next() (byte, error) {
	c, err := s.r.ReadByte()
	if err != nil {
		return 0, errSyntax
	}
	s.off++
	return c, nil
}

func (s *scanner) back() {
	_ = s.r.UnreadByte()
	s.off--
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// nonSpace returns the next byte that is not insignificant whitespace.
func (s *scanner) nonSpace() (byte, error) {
	for {
		c, err := s.next()
		if err != nil || !isSpace(c) {
			return c, err
		}
	}
}

// atEnd reports whether only whitespace is left.
func (s *scanner) atEnd() bool {
	for {
		c, err := s.r.ReadByte()
		if err != nil {
			return true
		}
		if !isSpace(c) {
			return false
		}
	}
}

// str scans a string whose opening quote was read. With keep it returns the
// raw text, quotes included.
func (s *scanner) str(keep bool) ([]byte, error) {
	var raw []byte
	if keep {
		raw = append(raw, '"')
	}
	for {
		c, err := s.next()
		if err != nil {
			return nil, err
		}
		if keep {
			raw = append(raw, c)
		}
		switch {
		case c == '"':
			return raw, nil
		case c < 0x20:
			return nil, errSyntax
		case c == '\\':
			e, err := s.next()
			if err != nil {
				return nil, err
			}
			if keep {
				raw = append(raw, e)
			}
			switch e {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				for i := 0; i < 4; i++ {
					h, err := s.next()
					if err != nil || !isHex(h) {
						return nil, errSyntax
					}
					if keep {
						raw = append(raw, h)
					}
				}
			default:
				return nil, errSyntax
			}
		}
	}
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// number scans a number whose first byte c was read; it returns its text.
func (s *scanner) number(c byte) ([]byte, error) {
	raw := []byte{c}
	digits := func() error {
		n := 0
		for {
			d, err := s.r.ReadByte()
			if err != nil {
				break
			}
			if !isDigit(d) {
				_ = s.r.UnreadByte()
				break
			}
			s.off++
			raw = append(raw, d)
			n++
		}
		if n == 0 {
			return errSyntax
		}
		return nil
	}
	peek := func() byte {
		d, err := s.r.ReadByte()
		if err != nil {
			return 0
		}
		_ = s.r.UnreadByte()
		return d
	}
	take := func() { d, _ := s.next(); raw = append(raw, d) }
	if c == '-' {
		if p := peek(); !isDigit(p) {
			return nil, errSyntax
		}
		take()
		c = raw[len(raw)-1]
	}
	if c != '0' {
		if p := peek(); isDigit(p) {
			if err := digits(); err != nil {
				return nil, err
			}
		}
	}
	if peek() == '.' {
		take()
		if err := digits(); err != nil {
			return nil, err
		}
	}
	if p := peek(); p == 'e' || p == 'E' {
		take()
		if p := peek(); p == '+' || p == '-' {
			take()
		}
		if err := digits(); err != nil {
			return nil, err
		}
	}
	return raw, nil
}

func (s *scanner) literal(rest string) error {
	for i := 0; i < len(rest); i++ {
		c, err := s.next()
		if err != nil || c != rest[i] {
			return errSyntax
		}
	}
	return nil
}

// value scans one value whose first byte c was read and returns the part
// of it sp says a schema can see (see spec). sp nil: nothing inside it
// matters, a stand-in of its JSON type comes back.
func (s *scanner) value(c byte, sp *spec) (any, error) {
	switch {
	case c == '{':
		return s.object(sp)
	case c == '[':
		return s.array(sp)
	case c == '"':
		keep := sp != nil && (sp.full || sp.strings)
		raw, err := s.str(keep)
		if err != nil || !keep {
			return "", err
		}
		var v string
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, errSyntax
		}
		return v, nil
	case c == '-' || isDigit(c):
		raw, err := s.number(c)
		if err != nil {
			return nil, err
		}
		return json.Number(raw), nil
	case c == 't':
		return true, s.literal("rue")
	case c == 'f':
		return false, s.literal("alse")
	case c == 'n':
		return nil, s.literal("ull")
	}
	return nil, errSyntax
}

func (s *scanner) object(sp *spec) (any, error) {
	out := map[string]any{}
	c, err := s.nonSpace()
	if err != nil {
		return nil, err
	}
	if c == '}' {
		return out, nil
	}
	for {
		var k string
		if k, c, err = s.key(c); err != nil {
			return nil, err
		}
		sub, follow := sp.member(k)
		v, err := s.value(c, sub)
		if err != nil {
			return nil, err
		}
		if follow {
			out[k] = v
		}
		if c, err = s.nonSpace(); err != nil {
			return nil, err
		}
		if c == '}' {
			return out, nil
		}
		if c != ',' {
			return nil, errSyntax
		}
		if c, err = s.nonSpace(); err != nil {
			return nil, err
		}
	}
}

func (s *scanner) array(sp *spec) (any, error) {
	out := []any{}
	c, err := s.nonSpace()
	if err != nil {
		return nil, err
	}
	if c == ']' {
		return out, nil
	}
	var item *spec
	if sp != nil {
		item = sp.items
		if sp.full {
			item = sp
		}
	}
	for {
		v, err := s.value(c, item)
		if err != nil {
			return nil, err
		}
		if sp != nil {
			out = append(out, v)
		}
		if c, err = s.nonSpace(); err != nil {
			return nil, err
		}
		if c == ']' {
			return out, nil
		}
		if c != ',' {
			return nil, errSyntax
		}
		if c, err = s.nonSpace(); err != nil {
			return nil, err
		}
	}
}

// Value is one JSON value of an envelope's input, where it lies in the
// source: reading it reads those bytes, nothing else.
type Value struct {
	src    io.ReaderAt
	off, n int64
}

// ValueOf is the Value of b (for tests and small inputs).
func ValueOf(b []byte) Value {
	b = bytes.TrimSpace(b)
	return Value{src: bytes.NewReader(b), n: int64(len(b))}
}

// Len is the value's size in bytes as received.
func (v Value) Len() int64 { return v.n }

// Reader reads the value's text.
func (v Value) Reader() io.Reader { return io.NewSectionReader(v.src, v.off, v.n) }

// Bytes returns the value's text.
func (v Value) Bytes() ([]byte, error) {
	b := make([]byte, v.n)
	if _, err := v.src.ReadAt(b, v.off); err != nil && !(errors.Is(err, io.EOF) && int64(len(b)) == v.n) {
		return nil, err
	}
	return b, nil
}

// Kind is the value's first byte: '{', '[', '"', 'n' (null), 't', 'f' or a
// number's first byte.
func (v Value) Kind() byte {
	var b [1]byte
	if v.n == 0 {
		return 0
	}
	if _, err := v.src.ReadAt(b[:], v.off); err != nil {
		return 0
	}
	return b[0]
}

// Decode unmarshals the value into x as json.Unmarshal does.
func (v Value) Decode(x any) error {
	b, err := v.Bytes()
	if err != nil {
		return err
	}
	return json.Unmarshal(b, x)
}

// Member is one member of an object Value, in received order.
type Member struct {
	Key string
	Value
}

// Members returns an object's members in received order (a key given
// twice is there twice).
func (v Value) Members() ([]Member, error) {
	s := newScanner(v.src, v.off, v.n)
	c, err := s.nonSpace()
	if err != nil || c != '{' {
		return nil, errors.New("not a JSON object")
	}
	var out []Member
	if c, err = s.nonSpace(); err != nil {
		return nil, err
	}
	if c == '}' {
		return out, nil
	}
	for {
		var k string
		if k, c, err = s.key(c); err != nil {
			return nil, err
		}
		start := s.off - 1
		if _, err := s.value(c, nil); err != nil {
			return nil, err
		}
		out = append(out, Member{Key: k, Value: Value{src: v.src, off: start, n: s.off - start}})
		if c, err = s.nonSpace(); err != nil {
			return nil, err
		}
		if c == '}' {
			return out, nil
		}
		if c != ',' {
			return nil, errSyntax
		}
		if c, err = s.nonSpace(); err != nil {
			return nil, err
		}
	}
}

// Elements returns an array's elements; null has none.
func (v Value) Elements() ([]Value, error) {
	s := newScanner(v.src, v.off, v.n)
	c, err := s.nonSpace()
	if err != nil {
		return nil, err
	}
	if c == 'n' {
		return nil, s.literal("ull")
	}
	if c != '[' {
		return nil, errors.New("not a JSON array")
	}
	var out []Value
	if c, err = s.nonSpace(); err != nil {
		return nil, err
	}
	if c == ']' {
		return out, nil
	}
	for {
		start := s.off - 1
		if _, err := s.value(c, nil); err != nil {
			return nil, err
		}
		out = append(out, Value{src: v.src, off: start, n: s.off - start})
		if c, err = s.nonSpace(); err != nil {
			return nil, err
		}
		if c == ']' {
			return out, nil
		}
		if c != ',' {
			return nil, errSyntax
		}
		if c, err = s.nonSpace(); err != nil {
			return nil, err
		}
	}
}

// String decodes a string value as json.Unmarshal does, a piece at a time,
// so that a large string (a reviewer's raw result) is held once, decoded,
// never also as its JSON text.
func (v Value) String() (string, error) {
	s := newScanner(v.src, v.off, v.n)
	c, err := s.nonSpace()
	if err != nil || c != '"' {
		return "", errors.New("not a JSON string")
	}
	var out strings.Builder
	out.Grow(int(v.n))
	chunk := make([]byte, 0, 64<<10+16)
	flush := func() error {
		chunk = append(chunk, '"')
		var piece string
		if err := json.Unmarshal(chunk, &piece); err != nil {
			return err
		}
		out.WriteString(piece)
		chunk = append(chunk[:0], '"')
		return nil
	}
	chunk = append(chunk, '"')
	for {
		c, err := s.next()
		if err != nil {
			return "", err
		}
		switch {
		case c == '"':
			if err := flush(); err != nil {
				return "", err
			}
			return out.String(), nil
		case c == '\\':
			e, err := s.next()
			if err != nil {
				return "", err
			}
			chunk = append(chunk, c, e)
			if e == 'u' {
				for i := 0; i < 4; i++ {
					h, err := s.next()
					if err != nil {
						return "", err
					}
					chunk = append(chunk, h)
				}
			}
		default:
			// A piece ends only before an ASCII byte outside an escape:
			// never inside a UTF-8 sequence or a surrogate pair, so the
			// pieces decode as the whole would.
			if c < 0x80 && len(chunk) >= 64<<10 {
				if err := flush(); err != nil {
					return "", err
				}
			}
			chunk = append(chunk, c)
		}
	}
}

// key reads one member's key, given its opening byte c, and the ':' after
// it; it returns the key and the first byte of the member's value.
func (s *scanner) key(c byte) (string, byte, error) {
	if c != '"' {
		return "", 0, errSyntax
	}
	raw, err := s.str(true)
	if err != nil {
		return "", 0, err
	}
	var k string
	if err := json.Unmarshal(raw, &k); err != nil {
		return "", 0, errSyntax
	}
	if c, err = s.nonSpace(); err != nil || c != ':' {
		return "", 0, errSyntax
	}
	if c, err = s.nonSpace(); err != nil {
		return "", 0, err
	}
	return k, c, nil
}

// WriteObjectWithout writes to b the object of the members ms, leaving out
// every member named skip, each other member's key and value as they lie.
// It is how a reader sets aside one large member of an object (a raw
// result, a result's findings) and decodes the rest as one small object.
func WriteObjectWithout(b *bytes.Buffer, ms []Member, skip string) error {
	b.WriteByte('{')
	first := true
	for _, m := range ms {
		if m.Key == skip {
			continue
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		k, _ := json.Marshal(m.Key)
		b.Write(k)
		b.WriteByte(':')
		v, err := m.Bytes()
		if err != nil {
			return err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return nil
}
