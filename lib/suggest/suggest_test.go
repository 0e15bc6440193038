package suggest

import "testing"

func TestClosest(t *testing.T) {
	dispositions := []string{"fixed", "answered", "rejected", "accepted", "deferred", "duplicate"}
	for _, c := range []struct {
		word  string
		cands []string
		want  string
	}{
		{"rejceted", dispositions, "rejected"}, // a swap counts one
		{"Rejected", dispositions, "rejected"},
		{"fix", dispositions, "fixed"},
		{"wontfix", dispositions, ""},
		{"claud", []string{"claude", "codex", "agy", "native"}, "claude"},
		{"gaet", []string{"config", "doctor", "run", "gate", "status"}, "gate"},
		{"stauts", []string{"gate", "cap-report", "status"}, "status"},
		{"frobnicate", []string{"gate", "status"}, ""},
		{"--critera", []string{"--check-path", "--criteria"}, "--criteria"},
		{"ab", []string{"x"}, ""}, // 2 edits, not less than the word's length
		{"x", nil, ""},
		{"cat", []string{"bat", "hat"}, "bat"}, // the first of equals
	} {
		if got := Closest(c.word, c.cands...); got != c.want {
			t.Errorf("Closest(%q) = %q, want %q", c.word, got, c.want)
		}
	}
	if got := Hint("claud", "claude"); got != "; did you mean claude?" {
		t.Errorf("Hint = %q", got)
	}
	if got := Hint("zzz", "claude"); got != "" {
		t.Errorf("Hint = %q", got)
	}
}
