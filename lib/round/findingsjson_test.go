package round

import (
	"bytes"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/pipe"
)

// texts are strings that take every path of appendString: plain ASCII,
// DEL, each escaped byte, multibyte text, U+2028/U+2029, invalid UTF-8.
var texts = []string{
	"", "plain text", "\x7f", `a "quoted" word`, `back\slash`, "tab\tnew\nline\r", "\b\f\x00\x01\x1f",
	"é 日本語 😀", "\u2028\u2029", "bad \xff\xfe utf-8", "<&> html", strings.Repeat("long ", 2000),
}

// fill sets every field of v (a struct, pointer, slice, string, int or
// bool) from rng, by reflection: a field added to envelope.Finding is
// filled too, and the hand-written encoding fails the test until it writes
// the field.
func fill(rng *rand.Rand, v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(texts[rng.Intn(len(texts))])
	case reflect.Int:
		v.SetInt(int64(rng.Intn(2000) - 10))
	case reflect.Bool:
		v.SetBool(rng.Intn(2) == 0)
	case reflect.Pointer:
		if rng.Intn(3) == 0 {
			v.SetZero()
			return
		}
		p := reflect.New(v.Type().Elem())
		fill(rng, p.Elem())
		v.Set(p)
	case reflect.Slice:
		switch rng.Intn(4) {
		case 0:
			v.SetZero()
			return
		case 1:
			v.Set(reflect.MakeSlice(v.Type(), 0, 0))
			return
		}
		n := 1 + rng.Intn(4)
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := 0; i < n; i++ {
			fill(rng, s.Index(i))
		}
		v.Set(s)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			fill(rng, v.Field(i))
		}
	default:
		panic("fill: a field of kind " + v.Kind().String() + ": teach fill and appendFinding about it")
	}
}

// TestFindingsJSONIsMarshalIndent: findings.json's hand-written encoding
// gives pipe.MarshalIndent's bytes, for no findings, nil and empty
// fragments and lines, and findings with every field filled at random.
func TestFindingsJSONIsMarshalIndent(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	cases := [][]envelope.Finding{{}, {{}}, {{LinkFragment: &envelope.LinkFragment{}}}, {{LinkFragment: &envelope.LinkFragment{Lines: []string{}}}}}
	for i := 0; i < 400; i++ {
		fs := make([]envelope.Finding, rng.Intn(4))
		for j := range fs {
			fill(rng, reflect.ValueOf(&fs[j]).Elem())
		}
		cases = append(cases, fs)
	}
	for i, fs := range cases {
		for _, name := range []string{"code-1", texts[i%len(texts)]} {
			want, err := pipe.MarshalIndent(Findings{Schema: Schema, Round: name, Findings: fs})
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if err := WriteFindings(&got, name, fs); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Fatalf("case %d: WriteFindings gives\n%s\nMarshalIndent gives\n%s", i, got.Bytes(), want)
			}
		}
	}
}

// A nil list is written as an empty one.
func TestWriteFindingsNil(t *testing.T) {
	var got bytes.Buffer
	if err := WriteFindings(&got, "code-1", nil); err != nil {
		t.Fatal(err)
	}
	want, _ := pipe.MarshalIndent(Findings{Schema: Schema, Round: "code-1", Findings: []envelope.Finding{}})
	if !bytes.Equal(got.Bytes(), want) {
		t.Fatalf("%s", got.Bytes())
	}
}
