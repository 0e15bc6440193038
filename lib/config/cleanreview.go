package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"

	"github.com/jaekit/spar/lib/envelope"
)

// cleanReview is the reviewers list of clean-review's config.json (G18).
type cleanReview struct {
	HasReviewers bool
	Names        []string // trimmed, empty ones skipped
}

// cleanReviewPresets are the names clean-review knows; each is the preset of
// the same name (docs/pipeline.md "User source").
var cleanReviewPresets = []string{envelope.PresetClaude, envelope.PresetCodex, envelope.PresetAgy, envelope.PresetNative}

// parseCleanReview checks G18: a JSON object; reviewers, when present, an
// array of strings, each trimmed, empty ones skipped, each one of claude,
// codex, agy, native, without duplicates. Other keys belong to clean-review
// and are not read.
func parseCleanReview(file string, b []byte) (*cleanReview, error) {
	if err := checkBounds(file, b, true); err != nil {
		return nil, err
	}
	lineAt := func(off int64) int {
		if off > int64(len(b)) {
			off = int64(len(b))
		}
		return 1 + bytes.Count(b[:off], []byte("\n"))
	}
	syntax := func(dec *json.Decoder, err error) error {
		off := dec.InputOffset()
		var se *json.SyntaxError
		if errors.As(err, &se) {
			off = se.Offset
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return cfgErr(file, lineAt(int64(len(b))), "JSON syntax: unexpected end of input")
		}
		return cfgErr(file, lineAt(off), "JSON syntax: %v", err)
	}
	// Whole-document validity first, so a syntax error anywhere is reported
	// before any value check.
	var doc any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return nil, syntax(dec, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, cfgErr(file, lineAt(dec.InputOffset()), "JSON syntax: more than one JSON value")
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		return nil, cfgErr(file, 1, "want a JSON object, got %s", jsonTypeName(doc))
	}
	cr := &cleanReview{}
	rv, ok := obj["reviewers"]
	if !ok {
		return cr, nil
	}
	cr.HasReviewers = true
	// Positions of the reviewers key and its items (the last reviewers key
	// counts, as encoding/json and clean-review's JSON reader keep the last).
	keyLine, itemLines := 1, []int(nil)
	dec = json.NewDecoder(bytes.NewReader(b))
	dec.Token() // {
	for dec.More() {
		t, _ := dec.Token()
		k, _ := t.(string)
		start := dec.InputOffset()
		if k != "reviewers" {
			var skip json.RawMessage
			dec.Decode(&skip)
			continue
		}
		keyLine = lineAt(start)
		itemLines = nil
		var raw json.RawMessage
		dec.Decode(&raw)
		valueStart := dec.InputOffset() - int64(len(raw))
		sub := json.NewDecoder(bytes.NewReader(raw))
		if t, _ := sub.Token(); t == json.Delim('[') {
			for sub.More() {
				var item json.RawMessage
				before := sub.InputOffset()
				sub.Decode(&item)
				after := sub.InputOffset()
				// The item starts after the separator and whitespace.
				itemStart := before + int64(len(raw[before:after])-len(bytes.TrimLeft(raw[before:after], " \t\r\n,")))
				itemLines = append(itemLines, lineAt(valueStart+itemStart))
			}
		}
	}
	list, ok := rv.([]any)
	if !ok {
		return nil, cfgErr(file, keyLine, "reviewers: want an array of names, got %s", jsonTypeName(rv))
	}
	seen := map[string]bool{}
	for i, item := range list {
		l := keyLine
		if i < len(itemLines) {
			l = itemLines[i]
		}
		s, ok := item.(string)
		if !ok {
			return nil, cfgErr(file, l, "reviewers: item %d: want a name string, got %s", i+1, jsonTypeName(item))
		}
		name := strings.TrimSpace(s)
		if name == "" {
			continue
		}
		if !contains(cleanReviewPresets, name) {
			return nil, cfgErr(file, l, "reviewers: unknown name %q (one of claude, codex, agy, native)", name)
		}
		if seen[name] {
			return nil, cfgErr(file, l, "reviewers: duplicate name %q", name)
		}
		seen[name] = true
		cr.Names = append(cr.Names, name)
	}
	return cr, nil
}

// jsonTypeName names a JSON value for a message (valueName).
func jsonTypeName(v any) string { return valueName(v, "an object") }
