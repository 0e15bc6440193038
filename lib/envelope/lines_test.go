package envelope

import (
	"encoding/json"
	"reflect"
	"testing"
)

// lineTexts are JSON values a document's lines may be given as: the arrays
// spar writes, every escape, and what only a hand edit gives.
var lineTexts = []string{
	`[]`, `["a","b"]`, `["", "  x  ", "tab\there"]`, `["\"q\"","back\\slash","\u00e9\u2028","\ud83d\ude00","\ud800","\/"]`,
	`["é 日本語"]`, "[\"bad \xff utf-8\"]", `null`, `["a",null]`, `["a",1]`, `[["a"]]`, `{"a":"b"}`, `"a"`, `3`,
	` [ "a" , "b" ] `,
}

// TestLinesDecodeAsStrings: Lines decode to what a []string decodes to, or
// fail where it fails.
func TestLinesDecodeAsStrings(t *testing.T) {
	for _, text := range lineTexts {
		var want []string
		werr := json.Unmarshal([]byte(text), &want)
		var got Lines
		gerr := json.Unmarshal([]byte(text), &got)
		if (werr == nil) != (gerr == nil) || !reflect.DeepEqual([]string(got), want) {
			t.Errorf("%s: Lines %q (%v), []string %q (%v)", text, got, gerr, want, werr)
		}
		var doc struct {
			D Document `json:"d"`
		}
		if err := json.Unmarshal([]byte(`{"d":{"lines":`+text+`}}`), &doc); (err == nil) != (werr == nil) || !reflect.DeepEqual([]string(doc.D.Lines), want) {
			t.Errorf("%s in a document: %q (%v)", text, doc.D.Lines, err)
		}
	}
}

func FuzzLinesDecodeAsStrings(f *testing.F) {
	for _, text := range lineTexts {
		f.Add(text)
	}
	f.Fuzz(func(t *testing.T, text string) {
		var want []string
		werr := json.Unmarshal([]byte(text), &want)
		var got Lines
		gerr := json.Unmarshal([]byte(text), &got)
		if (werr == nil) != (gerr == nil) || werr == nil && !reflect.DeepEqual([]string(got), want) {
			t.Fatalf("%q: Lines %q (%v), []string %q (%v)", text, got, gerr, want, werr)
		}
	})
}
