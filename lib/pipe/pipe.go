// Package pipe reads and writes the envelope (spar-pipe/v1) that flows down
// the stage pipeline (DESIGN.md §3). A stage reads the whole envelope from
// stdin, validates it against its own embedded JSON Schema, adds the key it
// owns, and writes every key back, passing through the keys it does not own.
package pipe

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/jaekit/spar/lib/exitcode"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// Schema is the value of the envelope's "schema" key.
const Schema = "spar-pipe/v1"

// keyOrder is the order keys are written in: the order the stages add them.
// Keys not listed here keep their received order after these.
var keyOrder = []string{"schema", "config", "configured_reviewers", "run", "packet", "round", "runs", "results", "findings", "recorded"}

// Envelope is one pipeline object: its top-level keys as raw JSON.
type Envelope struct {
	keys  map[string]json.RawMessage
	order []string // received order of keys
}

// New returns an envelope holding only "schema": "spar-pipe/v1".
func New() *Envelope {
	e := &Envelope{keys: map[string]json.RawMessage{}}
	_ = e.Set("schema", Schema)
	return e
}

// Read reads one envelope from r and validates it against schema (a JSON
// Schema document; nil skips validation beyond the envelope's own shape).
// Any failure is an *exitcode.Error with code 65 and the message
// "spar-<stage>: stdin: <where>: <what>".
func Read(stage string, r io.Reader, schema []byte) (*Envelope, error) {
	fail := func(where, what string) error {
		return exitcode.New(exitcode.Config, fmt.Sprintf("spar-%s: stdin: %s: %s", stage, where, what))
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fail("read", err.Error())
	}
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
	if schema != nil {
		sch, err := Compile(stage, schema)
		if err != nil {
			return nil, exitcode.New(exitcode.Internal, fmt.Sprintf("spar-%s: internal: envelope schema: %v", stage, err))
		}
		if err := sch.Validate(doc); err != nil {
			where, what := describe(err)
			return nil, fail(where, what)
		}
	}
	e := &Envelope{keys: map[string]json.RawMessage{}}
	// Keep the received key order for keys the design does not list.
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
		e.keys[k] = raw
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
	raw, ok := e.keys[key]
	return ok && string(raw) != "null"
}

// Raw returns the raw JSON of key, or nil.
func (e *Envelope) Raw(key string) json.RawMessage { return e.keys[key] }

// Get decodes key into v. A missing key leaves v unchanged.
func (e *Envelope) Get(key string, v any) error {
	raw, ok := e.keys[key]
	if !ok {
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("envelope key %s: %w", key, err)
	}
	return nil
}

// Set stores v under key, replacing what was there.
func (e *Envelope) Set(key string, v any) error {
	raw, err := Marshal(v)
	if err != nil {
		return fmt.Errorf("envelope key %s: %w", key, err)
	}
	if _, ok := e.keys[key]; !ok {
		e.order = append(e.order, key)
	}
	e.keys[key] = raw
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

// Write writes the envelope as one indented JSON object and a newline.
func (e *Envelope) Write(w io.Writer) error {
	var b strings.Builder
	b.WriteString("{\n")
	for i, k := range e.Keys() {
		kj, _ := Marshal(k)
		var ind bytes.Buffer
		if err := json.Indent(&ind, e.keys[k], "  ", "  "); err != nil {
			return fmt.Errorf("envelope key %s: %w", k, err)
		}
		b.WriteString("  ")
		b.Write(kj)
		b.WriteString(": ")
		b.Write(ind.Bytes())
		if i < len(e.keys)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("}\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// Exit ends a stage: nil exits 0; an *exitcode.Error prints its message and
// exits with its code; any other error is internal (70) and names the stage.
func Exit(stage string, err error) {
	if err == nil {
		os.Exit(exitcode.OK)
	}
	var ee *exitcode.Error
	if errors.As(err, &ee) {
		if ee.Msg != "" {
			fmt.Fprintln(os.Stderr, ee.Msg)
		}
		os.Exit(ee.Code)
	}
	fmt.Fprintf(os.Stderr, "spar-%s: internal error: %v\n", stage, err)
	os.Exit(exitcode.Internal)
}
