package round

import (
	"io"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/pipe"
)

// findings.json's bytes (WriteFindings) are those pipe.MarshalIndent gives
// Findings{Schema, name, findings}: two-space indentation, no HTML
// escaping, a final newline. They are appended here field by field instead
// of through encoding/json's reflection and an indenter, because the gate
// encodes every finding of every round again to compare it with the file
// (docs/trust.md "The gate": 1,000 rounds of 50 findings in under a
// second). TestFindingsJSONIsMarshalIndent holds the two encodings to each
// other for findings with every field set, unset and escaped, so a field
// added to envelope.Finding and not here fails it.

// writeFindings is WriteFindings: about 32 KiB at a time, never the whole
// record in memory (docs/pipeline.md "Memory").
func writeFindings(w io.Writer, name string, findings []envelope.Finding) error {
	bp := buffers.Get().(*[]byte)
	defer buffers.Put(bp)
	b := (*bp)[:0]
	defer func() { *bp = b[:0] }()
	b = append(b, "{\n  \"schema\": "...)
	b = appendString(b, Schema)
	b = append(b, ",\n  \"round\": "...)
	b = appendString(b, name)
	b = append(b, ",\n  \"findings\": ["...)
	if len(findings) == 0 {
		b = append(b, "]\n}\n"...)
		_, err := w.Write(b)
		return err
	}
	for i := range findings {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendFinding(b, &findings[i])
		if len(b) >= 32<<10 {
			if _, err := w.Write(b); err != nil {
				return err
			}
			b = b[:0]
		}
	}
	b = append(b, "\n  ]\n}\n"...)
	_, err := w.Write(b)
	return err
}

// buffers are writeFindings' buffers: a write of about 32 KiB at a time,
// one buffer for each writer at once (the gate's workers encode a round
// each).
var buffers = sync.Pool{New: func() any { b := make([]byte, 0, 40<<10); return &b }}

// appendFinding appends f as an element of findings (depth 2).
func appendFinding(b []byte, f *envelope.Finding) []byte {
	const in = "\n      " // a member of the finding
	str := func(key, v string) {
		b = append(b, in...)
		b = append(b, key...)
		b = appendString(b, v)
		b = append(b, ',')
	}
	boolean := func(key string, v bool) {
		b = append(b, in...)
		b = append(b, key...)
		b = strconv.AppendBool(b, v)
		b = append(b, ',')
	}
	line := func(key string, v *int) {
		b = append(b, in...)
		b = append(b, key...)
		if v == nil {
			b = append(b, "null"...)
		} else {
			b = strconv.AppendInt(b, int64(*v), 10)
		}
		b = append(b, ',')
	}
	b = append(b, "\n    {"...)
	str(`"id": `, f.ID)
	str(`"reviewer": `, f.Reviewer)
	str(`"reviewer_id": `, f.ReviewerID)
	str(`"proposed_class": `, f.ProposedClass)
	str(`"angle": `, f.Angle)
	str(`"location": `, f.Location)
	str(`"claim": `, f.Claim)
	str(`"failure_scenario": `, f.FailureScenario)
	str(`"evidence": `, f.Evidence)
	str(`"introduced_by_change": `, f.IntroducedByChange)
	str(`"regression": `, f.Regression)
	str(`"check_impact": `, f.CheckImpact)
	str(`"confidence": `, f.Confidence)
	str(`"smallest_fix": `, f.SmallestFix)
	str(`"path": `, f.Path)
	line(`"line_start": `, f.LineStart)
	line(`"line_end": `, f.LineEnd)
	boolean(`"in_check_paths": `, f.InCheckPaths)
	boolean(`"location_unreadable": `, f.LocationUnreadable)
	str(`"link_kind": `, f.LinkKind)
	str(`"link": `, f.Link)
	str(`"claimed_link_kind": `, f.ClaimedLinkKind)
	str(`"claimed_link": `, f.ClaimedLink)
	b = append(b, in...)
	b = append(b, `"link_fragment": `...)
	b = appendFragment(b, f.LinkFragment)
	b = append(b, ',')
	str(`"class": `, f.Class)
	str(`"class_reason": `, f.ClassReason)
	str(`"check_path": `, f.CheckPath)
	boolean(`"check_path_committed": `, f.CheckPathCommitted)
	str(`"committed_class": `, f.CommittedClass)
	if r := f.RepeatOf; r != nil {
		b = append(b, in+`"repeat_of": {`...)
		b = append(b, in+`  "round": `...)
		b = appendString(b, r.Round)
		b = append(b, ","+in+`  "finding": `...)
		b = appendString(b, r.Finding)
		b = append(b, in+"},"...)
	}
	b = b[:len(b)-1] // the last member's comma
	return append(b, "\n    }"...)
}

// appendFragment appends a finding's link_fragment (its members at depth 4).
func appendFragment(b []byte, l *envelope.LinkFragment) []byte {
	if l == nil {
		return append(b, "null"...)
	}
	const in = "\n        "
	b = append(b, '{')
	b = append(b, in+`"document": `...)
	b = appendString(b, l.Document)
	b = append(b, ","+in+`"start": `...)
	b = strconv.AppendInt(b, int64(l.Start), 10)
	b = append(b, ","+in+`"end": `...)
	b = strconv.AppendInt(b, int64(l.End), 10)
	b = append(b, ","+in+`"lines": `...)
	switch {
	case l.Lines == nil:
		b = append(b, "null"...)
	case len(l.Lines) == 0:
		b = append(b, "[]"...)
	default:
		b = append(b, '[')
		for i, s := range l.Lines {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, "\n          "...)
			b = appendString(b, s)
		}
		b = append(b, "\n        ]"...)
	}
	return append(b, "\n      }"...)
}

// appendString appends s as a JSON string as pipe.Marshal encodes it: text
// that needs no escape as it is, anything else (a quote, a backslash, a
// control character, U+2028, U+2029, invalid UTF-8) by pipe.Marshal itself.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x80 && c != '"' && c != '\\' {
			i++
			continue
		}
		if c >= 0x80 {
			r, n := utf8.DecodeRuneInString(s[i:])
			if !(r == utf8.RuneError && n == 1) && r != '\u2028' && r != '\u2029' {
				i += n
				continue
			}
		}
		e, _ := pipe.Marshal(s) // a Go string always encodes
		return append(b, e...)
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
