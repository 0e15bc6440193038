package codehost

import (
	"strings"
	"testing"
)

func TestFileURL_CodeHosts(t *testing.T) {
	env := func(kv ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
	for _, tc := range []struct {
		name string
		env  func(string) string
		want string
	}{
		{"github", env("GITHUB_SERVER_URL", "https://github.com", "GITHUB_REPOSITORY", "o/r"), "https://github.com/o/r/blob/abc/a%20b/c.go#L7"},
		{"gitlab", env("CI_PROJECT_URL", "https://gitlab.com/g/p/"), "https://gitlab.com/g/p/-/blob/abc/a%20b/c.go#L7"},
		{"none", env(), ""},
		{"not http", env("CI_PROJECT_URL", "javascript:alert(1)"), ""},
		{"markdown in the address", env("GITHUB_SERVER_URL", "https://x.org/a)b", "GITHUB_REPOSITORY", "o/r"), ""},
	} {
		f := FileURL(tc.env)
		got := ""
		if f != nil {
			got = f("abc", "a b/c.go", 7)
		}
		if got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestStepSummary_ClosesAFoldCut: a report cut inside a <details> block
// closes it, so that the last words show, and stays under the limit.
func TestStepSummary_ClosesAFoldCut(t *testing.T) {
	md := "# spar gate: blocked\n\n<details><summary>all</summary>\n\n" + strings.Repeat("| a | b |\n", StepSummaryLimit/10)
	got := StepSummary(md)
	if len(got) > StepSummaryLimit {
		t.Fatalf("%d bytes, over %d", len(got), StepSummaryLimit)
	}
	if strings.Count(got, "<details>") != strings.Count(got, "</details>") || !strings.Contains(got, "The report was cut here") {
		t.Errorf("the fold is left open, or the cut unsaid: …%s", got[len(got)-200:])
	}
}
