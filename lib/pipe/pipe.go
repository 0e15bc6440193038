// Package pipe reads and writes the envelope (spar-pipe/v1) that flows down
// the stage pipeline (docs/pipeline.md §1). A stage reads the whole envelope from
// stdin, validates it against its own embedded JSON Schema, adds the key it
// owns, and writes every key back, passing through the keys it does not own.
package pipe

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/exitcode"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// Schema is the value of the envelope's "schema" key.
const Schema = "spar-pipe/v1"

// keyOrder is the order keys are written in: the order the stages add them.
// Keys not listed here keep their received order after these.
var keyOrder = []string{"schema", "config", "configured_reviewers", "run", "packet", "round", "runs", "results", "findings", "recorded"}

// Envelope is one pipeline object: its top-level keys. A received key is
// where it lies in the input (read when a stage asks for it, copied through
// when written); a key a stage sets is its raw JSON, or its Go value when
// it is a list, encoded an element at a time when written (docs/pipeline.md
// "Memory": a stage holds what it decodes, never the text it passes on).
type Envelope struct {
	keys  map[string]*item
	order []string // received order of keys
	spool *os.File // the unlinked copy of a stdin that is not a file
}

type item struct {
	raw  json.RawMessage // set, or read whole
	in   *Value          // received, where it lies
	list any             // a list a stage set, encoded when written
}

// New returns an envelope holding only "schema": "spar-pipe/v1".
func New() *Envelope {
	e := &Envelope{keys: map[string]*item{}}
	_ = e.Set("schema", Schema)
	return e
}

// source is what Read reads: stdin itself when it is a regular file (the
// driver's files between stages), else a copy in an unlinked temporary
// file (or in memory when no temporary file can be made).
func source(r io.Reader) (io.ReaderAt, int64, *os.File, error) {
	if f, ok := r.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			if pos, err := f.Seek(0, io.SeekCurrent); err == nil {
				return io.NewSectionReader(f, pos, fi.Size()-pos), fi.Size() - pos, nil, nil
			}
		}
	}
	var head bytes.Buffer
	n, err := io.CopyN(&head, r, 1<<20)
	if err != nil && err != io.EOF {
		return nil, 0, nil, err
	}
	if n < 1<<20 {
		return bytes.NewReader(head.Bytes()), n, nil, nil
	}
	tmp, terr := os.CreateTemp("", "spar-pipe-*")
	if terr != nil {
		rest, err := io.ReadAll(r)
		if err != nil {
			return nil, 0, nil, err
		}
		b := append(head.Bytes(), rest...)
		return bytes.NewReader(b), int64(len(b)), nil, nil
	}
	os.Remove(tmp.Name()) // unlinked: nothing is left behind
	if _, err := tmp.Write(head.Bytes()); err != nil {
		tmp.Close()
		return nil, 0, nil, err
	}
	m, err := io.Copy(tmp, r)
	if err != nil {
		tmp.Close()
		return nil, 0, nil, err
	}
	return tmp, n + m, tmp, nil
}

// Read reads one envelope from r and validates it against schema (a JSON
// Schema document; nil skips validation beyond the envelope's own shape).
// Any failure is an *exitcode.Error with code 65 and the message
// "stdin: <where>: <what>" (the stage names itself before it).
//
// The input is scanned once from where it lies: the syntax is checked, each
// top-level key's place is kept, and only what the schema can look at is
// built for the validator (spec). A fault of the JSON text itself is then
// reported by reading the text whole, as encoding/json sees it.
func Read(stage string, r io.Reader, schema []byte) (*Envelope, error) {
	fail := func(where, what string) error {
		return exitcode.New(exitcode.Config, fmt.Sprintf("stdin: %s: %s", where, what))
	}
	// A stage's heap is mostly what it decoded and keeps to the end: the
	// collector runs at half the default growth (docs/pipeline.md
	// "Memory"), unless GOGC says otherwise.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(50)
	}
	src, size, spool, err := source(r)
	if err != nil {
		return nil, fail("read", err.Error())
	}
	var sch *jsonschema.Schema
	if schema != nil {
		if sch, err = Compile(stage, schema); err != nil {
			return nil, exitcode.New(exitcode.Internal, fmt.Sprintf("internal: envelope schema: %v", err))
		}
	}
	e := &Envelope{keys: map[string]*item{}, spool: spool}
	sp := topSpec(schema)
	s := newScanner(src, 0, size)
	doc := map[string]any{}
	var dup string
	scanErr := func() error {
		c, err := s.nonSpace()
		if err != nil || c != '{' {
			return errSyntax
		}
		if c, err = s.nonSpace(); err != nil {
			return err
		}
		if c == '}' {
			return nil
		}
		for {
			if c != '"' {
				return errSyntax
			}
			raw, err := s.str(true)
			if err != nil {
				return err
			}
			var k string
			if err := json.Unmarshal(raw, &k); err != nil {
				return errSyntax
			}
			if c, err = s.nonSpace(); err != nil || c != ':' {
				return errSyntax
			}
			if c, err = s.nonSpace(); err != nil {
				return err
			}
			start := s.off - 1
			sub, follow := sp.member(k)
			v, err := s.value(c, sub)
			if err != nil {
				return err
			}
			if follow {
				doc[k] = v
			}
			if _, ok := e.keys[k]; ok {
				if dup == "" {
					dup = k
				}
			} else {
				e.keys[k] = &item{in: &Value{src: src, off: start, n: s.off - start}}
				e.order = append(e.order, k)
			}
			if c, err = s.nonSpace(); err != nil {
				return err
			}
			if c == '}' {
				return nil
			}
			if c != ',' {
				return errSyntax
			}
			if c, err = s.nonSpace(); err != nil {
				return err
			}
		}
	}()
	if scanErr != nil || !s.atEnd() {
		// Not one JSON object: the message encoding/json gives.
		data, err := io.ReadAll(io.NewSectionReader(src, 0, size))
		if err != nil {
			return nil, fail("read", err.Error())
		}
		return readWhole(stage, data, sch, fail)
	}
	if s, _ := doc["schema"].(string); s != Schema {
		return nil, fail("/schema", fmt.Sprintf("want %q", Schema))
	}
	if sch != nil {
		if err := sch.Validate(any(doc)); err != nil {
			where, what := describe(err)
			return nil, fail(where, what)
		}
	}
	if dup != "" {
		return nil, fail("/"+dup, "duplicate key")
	}
	return e, nil
}

// readWhole is Read on the text in memory, the way encoding/json reads it:
// only a text that is not one JSON object comes here, for its message.
func readWhole(stage string, data []byte, sch *jsonschema.Schema, fail func(string, string) error) (*Envelope, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fail("/", "empty input (expected a spar-pipe/v1 envelope)")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, fail(offsetWhere(data, dec, err), "not JSON: "+err.Error())
	}
	if dec.More() {
		return nil, fail("/", "more than one JSON value")
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		return nil, fail("/", "not a JSON object")
	}
	if s, _ := obj["schema"].(string); s != Schema {
		return nil, fail("/schema", fmt.Sprintf("want %q", Schema))
	}
	if sch != nil {
		if err := sch.Validate(doc); err != nil {
			where, what := describe(err)
			return nil, fail(where, what)
		}
	}
	e := &Envelope{keys: map[string]*item{}}
	kd := json.NewDecoder(bytes.NewReader(data))
	if _, err := kd.Token(); err != nil {
		return nil, fail("/", err.Error())
	}
	for kd.More() {
		t, err := kd.Token()
		if err != nil {
			return nil, fail("/", err.Error())
		}
		k := t.(string)
		var raw json.RawMessage
		if err := kd.Decode(&raw); err != nil {
			return nil, fail("/"+k, err.Error())
		}
		if _, dup := e.keys[k]; dup {
			return nil, fail("/"+k, "duplicate key")
		}
		e.keys[k] = &item{raw: raw}
		e.order = append(e.order, k)
	}
	return e, nil
}

func offsetWhere(data []byte, dec *json.Decoder, err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line := 1 + bytes.Count(data[:min(int(se.Offset), len(data))], []byte("\n"))
		return fmt.Sprintf("line %d", line)
	}
	return "/"
}

// Compile compiles an embedded JSON Schema document.
func Compile(name string, schema []byte) (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	url := "mem://spar/" + name + ".schema.json"
	if err := c.AddResource(url, bytes.NewReader(schema)); err != nil {
		return nil, err
	}
	return c.Compile(url)
}

// describe turns a validation error into the deepest instance location and
// its message, the most useful single line for a person.
func describe(err error) (string, string) {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return "/", err.Error()
	}
	leaf := ve
	for len(leaf.Causes) > 0 {
		leaf = leaf.Causes[0]
	}
	where := leaf.InstanceLocation
	if where == "" {
		where = "/"
	}
	return where, leaf.Message
}

// Has reports whether the envelope holds key.
func (e *Envelope) Has(key string) bool {
	it, ok := e.keys[key]
	if !ok {
		return false
	}
	switch {
	case it.in != nil:
		return it.in.Kind() != 'n'
	case it.list != nil:
		return !reflect.ValueOf(it.list).IsNil()
	}
	return string(it.raw) != "null"
}

// Raw returns the raw JSON of key, or nil.
func (e *Envelope) Raw(key string) json.RawMessage {
	it, ok := e.keys[key]
	if !ok {
		return nil
	}
	switch {
	case it.in != nil:
		b, err := it.in.Bytes()
		if err != nil {
			return nil
		}
		return b
	case it.list != nil:
		b, _ := Marshal(it.list)
		return b
	}
	return it.raw
}

// Value returns where a received key lies, for a stage that reads a large
// key a part at a time; false when key was not received.
func (e *Envelope) Value(key string) (Value, bool) {
	it, ok := e.keys[key]
	if !ok {
		return Value{}, false
	}
	if it.in != nil {
		return *it.in, true
	}
	return ValueOf(e.Raw(key)), true
}

// Get decodes key into v. A missing key leaves v unchanged. A list is
// decoded an element at a time, each from its own text.
func (e *Envelope) Get(key string, v any) error {
	it, ok := e.keys[key]
	if !ok {
		return nil
	}
	var err error
	if it.in != nil {
		err = decodeValue(*it.in, v)
	} else {
		err = json.Unmarshal(e.Raw(key), v)
	}
	if err != nil {
		return fmt.Errorf("envelope key %s: %w", key, err)
	}
	return nil
}

// decodeValue is json.Unmarshal(val's text, v), a slice an element at a
// time; a reviewer run's large raw result is decoded from where it lies.
func decodeValue(val Value, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Elem().Kind() != reflect.Slice ||
		rv.Elem().Type().Elem().Kind() == reflect.Uint8 || val.Kind() != '[' {
		return val.Decode(v)
	}
	els, err := val.Elements()
	if err != nil {
		return val.Decode(v)
	}
	sl := reflect.MakeSlice(rv.Elem().Type(), 0, len(els))
	for _, el := range els {
		p := reflect.New(sl.Type().Elem())
		if err := decodeElem(el, p.Interface()); err != nil {
			return err
		}
		sl = reflect.Append(sl, p.Elem())
	}
	rv.Elem().Set(sl)
	return nil
}

func decodeElem(el Value, p any) error {
	rr, ok := p.(*envelope.ReviewerRun)
	if !ok || el.Len() < big || el.Kind() != '{' {
		return el.Decode(p)
	}
	ms, err := el.Members()
	if err != nil {
		return el.Decode(p)
	}
	last := -1
	for i, m := range ms {
		if m.Key == "result" {
			last = i
		} else if strings.EqualFold(m.Key, "result") {
			return el.Decode(p) // a key encoding/json would match too
		}
	}
	if last < 0 || ms[last].Kind() != '"' {
		return el.Decode(p)
	}
	// Every member but the string results, decoded as one object; the
	// last result (the one encoding/json keeps) decoded on its own.
	var small bytes.Buffer
	if err := WriteObjectWithout(&small, ms, "result"); err != nil {
		return err
	}
	if err := json.Unmarshal(small.Bytes(), rr); err != nil {
		return el.Decode(p)
	}
	if rr.Result == nil { // result_base64 wins, as in ReviewerRun.UnmarshalJSON
		s, err := ms[last].String()
		if err != nil {
			return el.Decode(p)
		}
		rr.Result = &s
	}
	return nil
}

// Set stores v under key, replacing what was there. A list is kept as it
// is and encoded when the envelope is written, an element at a time.
func (e *Envelope) Set(key string, v any) error {
	it := &item{}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Slice && rv.Type().Elem().Kind() != reflect.Uint8 {
		it.list = v
	} else {
		raw, err := Marshal(v)
		if err != nil {
			return fmt.Errorf("envelope key %s: %w", key, err)
		}
		it.raw = raw
	}
	if _, ok := e.keys[key]; !ok {
		e.order = append(e.order, key)
	}
	e.keys[key] = it
	return nil
}

// Marshal encodes v as JSON without HTML escaping, as every spar record is.
func Marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// MarshalIndent is Marshal with two-space indentation and a final newline:
// the form of every JSON file and stdout document spar writes.
func MarshalIndent(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Keys returns the keys in output order.
func (e *Envelope) Keys() []string {
	rank := map[string]int{}
	for i, k := range keyOrder {
		rank[k] = i
	}
	recv := map[string]int{}
	for i, k := range e.order {
		recv[k] = i
	}
	keys := make([]string, 0, len(e.keys))
	for k := range e.keys {
		keys = append(keys, k)
	}
	sort.SliceStable(keys, func(i, j int) bool {
		ri, iok := rank[keys[i]]
		rj, jok := rank[keys[j]]
		switch {
		case iok && jok:
			return ri < rj
		case iok != jok:
			return iok
		}
		return recv[keys[i]] < recv[keys[j]]
	})
	return keys
}

// Write writes the envelope as one indented JSON object and a newline:
// each key as json.Indent(value, "  ", "  ") indents it, written as a
// stream (a received key copied from where it lies, a list an element at a
// time), never built whole in memory.
func (e *Envelope) Write(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	if _, err := bw.WriteString("{\n"); err != nil {
		return err
	}
	keys := e.Keys()
	for i, k := range keys {
		kj, _ := Marshal(k)
		bw.WriteString("  ")
		bw.Write(kj)
		bw.WriteString(": ")
		d := newIndenter(bw, "  ", "  ")
		it := e.keys[k]
		var err error
		switch {
		case it.in != nil:
			_, err = io.Copy(d, it.in.Reader())
		case it.list != nil:
			err = encodeValue(d, it.list)
		default:
			_, err = d.Write(it.raw)
		}
		if err == nil {
			err = d.flush()
		}
		if err != nil {
			return fmt.Errorf("envelope key %s: %w", k, err)
		}
		if i < len(keys)-1 {
			bw.WriteString(",")
		}
		bw.WriteString("\n")
	}
	bw.WriteString("}\n")
	return bw.Flush()
}

// EncodeIndent writes v as MarshalIndent encodes it, a list an element at a
// time (a large reviewer result spliced in from where it lies): the record
// writers' form of a file too large to build in memory.
func EncodeIndent(w io.Writer, v any) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	d := newIndenter(bw, "", "  ")
	if err := encodeValue(d, v); err != nil {
		return err
	}
	if err := d.flush(); err != nil {
		return err
	}
	bw.WriteByte('\n')
	return bw.Flush()
}

// EncodeIndentWith writes the object v as MarshalIndent encodes it, with
// its member key (which v encodes as null) replaced by list encoded an
// element at a time: a record of many elements (findings.json) written
// into its file as it is encoded, never built whole in memory
// (docs/pipeline.md "Memory").
func EncodeIndentWith(w io.Writer, v any, key string, list any) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	d := newIndenter(bw, "", "  ")
	if err := splice(d, v, key, func() error { return encodeValue(d, list) }); err != nil {
		return err
	}
	if err := d.flush(); err != nil {
		return err
	}
	bw.WriteByte('\n')
	return bw.Flush()
}
