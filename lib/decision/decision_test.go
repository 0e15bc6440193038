package decision

import (
	"reflect"
	"strings"
	"testing"

	"github.com/jaekit/spar/lib/envelope"
)

func d(v string) Arg { return Arg{Opt: OptDecision, Value: v} }
func q(v string) Arg { return Arg{Opt: OptQuote, Value: v} }

// TestG35_AcceptedFormsKeptAsReceived: every text that is valid UTF-8 and
// not blank is kept byte for byte, in order.
func TestG35_AcceptedFormsKeptAsReceived(t *testing.T) {
	texts := []string{"one", "several\nlines\n", "`code` and ```\nfence\n```", "-starts with a dash", "=equals", ":colon", "  spaces around  ", "\ttab"}
	var args []Arg
	var want []envelope.Decision
	for i, s := range texts {
		quote := texts[len(texts)-1-i]
		args = append(args, d(s), q(quote))
		want = append(want, envelope.Decision{Decision: s, Quote: quote})
	}
	got, err := Pair(args)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	if got, err := Pair(nil); err != nil || got == nil || len(got) != 0 {
		t.Fatalf("no decisions: %v %v", got, err)
	}
}

// TestG35_Refusals: every refusal of the row names the decision and the
// option.
func TestG35_Refusals(t *testing.T) {
	cases := []struct {
		name string
		args []Arg
		want []string
	}{
		{"decision without words", []Arg{d("a")}, []string{"decision 1", `"a"`, "--decision-quote"}},
		{"decision without words before the next decision", []Arg{d("a"), d("b"), q("x")}, []string{"decision 1", `"a"`, "before the next --decision"}},
		{"words without a decision", []Arg{q("x")}, []string{"--decision-quote", `"x"`, "no --decision before it"}},
		{"second words for one decision", []Arg{d("a"), q("x"), q("y")}, []string{"--decision-quote", `"y"`, "decision 1 already has its words"}},
		{"decision with no value at the end", []Arg{d("a"), q("x"), {Opt: OptDecision, Missing: true}}, []string{"decision 2", "--decision", "no value at the end"}},
		{"words with no value at the end", []Arg{d("a"), {Opt: OptQuote, Missing: true}}, []string{"decision 1", "--decision-quote", "no value at the end"}},
		{"lone words with no value at the end", []Arg{{Opt: OptQuote, Missing: true}}, []string{"--decision-quote", "no value at the end"}},
		{"empty decision", []Arg{d(""), q("x")}, []string{"decision 1", "--decision", "empty"}},
		{"blank decision", []Arg{d(" \n\t"), q("x")}, []string{"decision 1", "--decision", "empty"}},
		{"blank words", []Arg{d("a"), q("  ")}, []string{"decision 1", "--decision-quote", "empty"}},
		{"invalid UTF-8 decision", []Arg{d("a\xff"), q("x")}, []string{"decision 1", "--decision", "UTF-8", `\xff`}},
		{"invalid UTF-8 words", []Arg{d("a"), q("\xc3")}, []string{"decision 1", "--decision-quote", "UTF-8"}},
		{"second pair refused", []Arg{d("a"), q("x"), d("b"), q("")}, []string{"decision 2", "--decision-quote"}},
	}
	for _, c := range cases {
		_, err := Pair(c.args)
		if err == nil {
			t.Errorf("%s: accepted", c.name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not contain %q", c.name, err, w)
			}
		}
	}
}
