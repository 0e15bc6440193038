package standpoint

import (
	"strings"
	"testing"

	"github.com/jaekit/spar/lib/envelope"
)

func TestStandpoint_SplitAtFirstEquals(t *testing.T) {
	sp, err := Split("codex=a=b = c")
	if err != nil || sp.Reviewer != "codex" || sp.Text != "a=b = c" {
		t.Fatalf("%+v %v", sp, err)
	}
	for _, bad := range []string{"codex", "=text", ""} {
		if _, err := Split(bad); err == nil {
			t.Errorf("%q: accepted (want a usage error)", bad)
		}
	}
}

func TestStandpoint_Refusals(t *testing.T) {
	acc := []string{"claude", "codex", "ext"}
	ok := []envelope.Standpoint{{Reviewer: "codex", Text: " replay \n"}, {Reviewer: "ext", Text: "-x"}}
	if err := Check(ok, acc); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		sps  []envelope.Standpoint
		want string
	}{
		{[]envelope.Standpoint{{Reviewer: "gemini", Text: "x"}}, `"gemini": not a reviewer of this run`},
		{[]envelope.Standpoint{{Reviewer: "Codex", Text: "x"}}, `"Codex": not a reviewer`},
		{[]envelope.Standpoint{{Reviewer: "codex", Text: "x"}, {Reviewer: "codex", Text: "y"}}, `"codex": more than one standpoint`},
		{[]envelope.Standpoint{{Reviewer: "codex", Text: " \t\n"}}, "empty after trimming"},
		{[]envelope.Standpoint{{Reviewer: "codex", Text: "a\xff"}}, "not valid UTF-8"},
	}
	for _, c := range cases {
		err := Check(c.sps, acc)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.sps, err, c.want)
		}
	}
}

// The accepted names are the union of the configured (required) reviewers
// and the run's reviewers.
func TestStandpoint_AcceptedNames(t *testing.T) {
	c := &envelope.Config{
		ConfiguredRequired: []envelope.RequiredReviewer{{Name: "claude"}, {Name: "codex"}},
		Reviewers:          []envelope.Reviewer{{Name: "codex"}, {Name: "agy"}},
	}
	got := strings.Join(Accepted(c), ",")
	if got != "claude,codex,agy" {
		t.Fatal(got)
	}
}
