package pipe

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/exitcode"
)

var samples = []string{
	`{}`, `[]`, `{"a":[],"b":{},"c":[1,2,{"d":null}]}`, ` { "a" : [ 1 , true , false ] }`,
	`{"s":"a\"b\\c\u00e9 , : { [","n":-1.5e+10,"z":0}`,
	`[{"x":"` + strings.Repeat(`long \"text\"\n`, 20000) + `"}]`,
	`{"run":"` + strings.Repeat("a string without escapes ", 5000) + `","b":"x\\"}`,
}

// The streaming indenter gives json.Indent's bytes, written in any pieces.
func TestIndenterIsJSONIndent(t *testing.T) {
	for _, s := range samples {
		var want bytes.Buffer
		if err := json.Indent(&want, []byte(s), "  ", "  "); err != nil {
			t.Fatal(err)
		}
		for _, piece := range []int{1, 7, 1 << 20} {
			var got bytes.Buffer
			d := newIndenter(&got, "  ", "  ")
			for i := 0; i < len(s); i += piece {
				d.Write([]byte(s[i:min(len(s), i+piece)]))
			}
			d.flush()
			if got.String() != want.String() {
				t.Errorf("piece %d: %q\nwant %q", piece, got.String(), want.String())
			}
		}
	}
}

// Value.String decodes as json.Unmarshal does, and writeJSONString
// encodes as Marshal does, for strings longer than one piece.
func TestLargeStringsRoundTrip(t *testing.T) {
	for _, s := range []string{
		strings.Repeat("é\"\\\n\t\u2028<>&x", 30000),
		strings.Repeat("a", 64<<10-1) + "😀" + strings.Repeat("b", 70000),
		"\x00\x1f" + strings.Repeat("z", 200000),
	} {
		enc, _ := Marshal(s)
		got, err := ValueOf(enc).String()
		if err != nil || got != s {
			t.Fatalf("String: %v (%d bytes vs %d)", err, len(got), len(s))
		}
		var b bytes.Buffer
		d := newIndenter(&b, "", "")
		writeJSONString(d, s)
		d.flush()
		if b.String() != string(enc) {
			t.Fatalf("writeJSONString differs from Marshal")
		}
	}
}

// Read gives the same verdict and message as reading the envelope whole,
// on the faults the stage schemas catch, and Write passes keys through.
func TestReadPrunedSchema(t *testing.T) {
	schema := []byte(`{"type":"object","required":["schema","runs"],"properties":{
	  "runs":{"type":"array","items":{"type":"object","required":["reviewer","status"],
	    "properties":{"reviewer":{"type":"string","minLength":1},"result":{"type":["string","null"]}}}}}}`)
	big := strings.Repeat("r", 200000)
	cases := []struct{ in, msg string }{
		{`{"schema":"spar-pipe/v1","runs":[{"reviewer":"a","status":"x","result":"` + big + `"}]}`, ""},
		{`{"schema":"spar-pipe/v1","runs":[{"reviewer":"a","status":"x"},{"reviewer":"","status":"x"}]}`, "stdin: /runs/1/reviewer: "},
		{`{"schema":"spar-pipe/v1","runs":[{"reviewer":"a"}]}`, "stdin: /runs/0: "},
		{`{"schema":"spar-pipe/v1","runs":[{"reviewer":"a","status":"x","result":5}]}`, "stdin: /runs/0/result: "},
		{`{"schema":"spar-pipe/v2","runs":[]}`, `stdin: /schema: want "spar-pipe/v1"`},
		{`{"schema":"spar-pipe/v1","runs":[],"runs":[]}`, "stdin: /runs: duplicate key"},
		{`{"schema":"spar-pipe/v1",`, "stdin: /: not JSON: unexpected EOF"},
		{`{"schema":"spar-pipe/v1",x}`, "stdin: line 1: not JSON: invalid character 'x'"},
		{`[1]`, "stdin: /: not a JSON object"},
		{`{"schema":"spar-pipe/v1","runs":[]} {}`, "stdin: /: more than one JSON value"},
		{``, "stdin: /: empty input (expected a spar-pipe/v1 envelope)"},
	}
	for _, c := range cases {
		e, err := Read("t", strings.NewReader(c.in), schema)
		if c.msg == "" {
			if err != nil {
				t.Fatalf("%v", err)
			}
			var runs []envelope.ReviewerRun
			if err := e.Get("runs", &runs); err != nil || runs[0].Result == nil || *runs[0].Result != big {
				t.Fatalf("runs: %v", err)
			}
			var out bytes.Buffer
			e.Write(&out)
			var want bytes.Buffer
			json.Indent(&want, []byte(c.in[strings.Index(c.in, `[`):len(c.in)-1]), "  ", "  ")
			if !strings.Contains(out.String(), `"runs": `+want.String()) {
				t.Fatalf("runs not passed through as received")
			}
			continue
		}
		var ee *exitcode.Error
		if !errors.As(err, &ee) || ee.Code != exitcode.Config || !strings.HasPrefix(ee.Msg, c.msg) {
			t.Errorf("%.60s: got %v, want %q", c.in, err, c.msg)
		}
	}
}

// EncodeIndentWith writes the bytes MarshalIndent gives the whole object,
// its list streamed an element at a time (findings.json, docs/pipeline.md
// "Memory").
func TestEncodeIndentWithIsMarshalIndent(t *testing.T) {
	type rec struct {
		Schema string              `json:"schema"`
		Items  []envelope.Finding  `json:"items"`
		After  map[string][]string `json:"after"`
	}
	long := strings.Repeat("é\"\\\n\t<>&x", 30000)
	for _, items := range [][]envelope.Finding{
		{},
		{{ID: "a-F1", Class: "defect", Claim: "x <y> & \"z\"", Location: "a.go:1"}},
		{{ID: "a-F1", Claim: long}, {ID: "a-F2", Evidence: "\x00\u2028"}, {ID: "a-F3"}},
	} {
		want, err := MarshalIndent(rec{Schema: "s/v1", Items: items, After: map[string][]string{"k": {}}})
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := EncodeIndentWith(&got, rec{Schema: "s/v1", After: map[string][]string{"k": {}}}, "items", items); err != nil {
			t.Fatal(err)
		}
		if got.String() != string(want) {
			t.Errorf("%d items: got\n%.300s\nwant\n%.300s", len(items), got.String(), want)
		}
	}
}
