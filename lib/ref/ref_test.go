package ref

import (
	"strings"
	"testing"
)

type reading struct {
	prefix, path string
	line         bool
	start, end   int
	lineErr      string
	rest         string
}

func check(t *testing.T, g Grammar, text string, want ...reading) {
	t.Helper()
	got := g.Parse(text)
	if len(got) != len(want) {
		t.Fatalf("Parse(%q): %d readings %+v, want %d", text, len(got), got, len(want))
	}
	for i, w := range want {
		r := got[i]
		if r.Prefix != w.prefix || r.Path != w.path || r.HasLine != w.line || r.Start != w.start ||
			r.End != w.end || r.LineErr != w.lineErr || r.Rest != w.rest {
			t.Errorf("Parse(%q)[%d] = %+v, want %+v", text, i, r, w)
		}
	}
}

// The representative G7 locations (testdata/input-forms.json), as the grammar reads them (targets are decided
// by lib/classify; these are the readings it tries).
func TestG7_Grammar(t *testing.T) {
	g := Location
	check(t, g, "head/app/main.go:10", reading{"head/", "app/main.go", true, 10, 10, "", ""})
	check(t, g, "head/checks/t.py:10-20", reading{"head/", "checks/t.py", true, 10, 20, "", ""})
	check(t, g, "head/checks/t.py:10–20", reading{"head/", "checks/t.py", true, 10, 20, "", ""})
	check(t, g, "head/checks/my test.py:3", reading{"head/", "checks/my test.py", true, 3, 3, "", ""})
	check(t, g, "head/checks/t.py:10 and head/app/main.go:20",
		reading{"head/", "checks/t.py", true, 10, 10, "", "and head/app/main.go:20"})
	check(t, g, "head/checks/t.py:10, head/app/main.go:3",
		reading{"head/", "checks/t.py", true, 10, 10, "", " head/app/main.go:3"})
	check(t, g, "head/checks/t.py:10; see also checks/t.py",
		reading{"head/", "checks/t.py", true, 10, 10, "", " see also checks/t.py"})
	check(t, g, "head/checks/my test.py", reading{"head/", "checks/my test.py", false, 0, 0, "", ""},
		reading{"head/", "checks/my", false, 0, 0, "", ""})
	check(t, g, "head/checks/t.py (the loop)", reading{"head/", "checks/t.py (the loop)", false, 0, 0, "", ""},
		reading{"head/", "checks/t.py", false, 0, 0, "", ""})
	check(t, g, "head/base/checks/t.py:2", reading{"head/", "base/checks/t.py", true, 2, 2, "", ""})
	check(t, g, "head/head/x.go:1", reading{"head/", "head/x.go", true, 1, 1, "", ""})
	check(t, g, "base/old.go:4", reading{"base/", "old.go", true, 4, 4, "", ""})
	check(t, g, "./app/main.go:3", reading{"./", "app/main.go", true, 3, 3, "", ""})
	check(t, g, "app/main.go:3", reading{"", "app/main.go", true, 3, 3, "", ""})
	check(t, g, "head/checks/", reading{"head/", "checks/", false, 0, 0, "", ""})
	check(t, g, "head/", reading{"head/", "", false, 0, 0, "", ""})
	check(t, g, "PLAN.md:12", reading{"", "PLAN.md", true, 12, 12, "", ""})
	// Column number: the first ":line" followed by an end is ":5".
	check(t, g, "head/checks/t.py:10:5", reading{"head/", "checks/t.py:10", true, 5, 5, "", ""})
	// Period after the line: no line at all.
	check(t, g, "head/checks/t.py:10.", reading{"head/", "checks/t.py:10.", false, 0, 0, "", ""})
	check(t, g, "head/checks/t.py:0", reading{"head/", "checks/t.py", true, 0, 0, "line 0", ""})
	check(t, g, "head/checks/t.py:20-10", reading{"head/", "checks/t.py", true, 20, 10, "end line 10 < start line 20", ""})
	check(t, g, "In head/checks/t.py:10", reading{"", "In head/checks/t.py", true, 10, 10, "", ""})
	check(t, g, "", reading{"", "", false, 0, 0, "", ""})
	// Leading and trailing Unicode whitespace is removed (U+3000, U+00A0).
	check(t, g, "\u3000 head/app/main.go:10\u00a0\n", reading{"head/", "app/main.go", true, 10, 10, "", ""})
	// The end may be any Unicode whitespace.
	check(t, g, "app/a.go:3\u2003x", reading{"", "app/a.go", true, 3, 3, "", "x"})
	// base/ is removed once; head/base/x keeps base/.
	check(t, g, "base/base/x:1", reading{"base/", "base/x", true, 1, 1, "", ""})
	// A dash with no line after it is not a range, and not an end either.
	check(t, g, "a.go:10-", reading{"", "a.go:10-", false, 0, 0, "", ""})
	check(t, g, "a.go:10-x y", reading{"", "a.go:10-x y", false, 0, 0, "", ""}, reading{"", "a.go:10-x", false, 0, 0, "", ""})
	// A line too large to record.
	check(t, g, "a.go:99999999999", reading{"", "a.go", true, 0, 0, "line 99999999999 too large", ""})
	check(t, g, "a.go:1-99999999999", reading{"", "a.go", true, 0, 0, "line 99999999999 too large", ""})
	check(t, g, "a.go:2147483647", reading{"", "a.go", true, 2147483647, 2147483647, "", ""})
	// Leading zeros are digits like any other.
	check(t, g, "a.go:007", reading{"", "a.go", true, 7, 7, "", ""})
	check(t, g, "a.go:00", reading{"", "a.go", true, 0, 0, "line 0", ""})
}

// G8 removes head/ and ./ only; base/ stays a folder name.
func TestG8_Grammar(t *testing.T) {
	g := Link
	check(t, g, "AGENTS.md:2", reading{"", "AGENTS.md", true, 2, 2, "", ""})
	check(t, g, "head/AGENTS.md:1-2", reading{"head/", "AGENTS.md", true, 1, 2, "", ""})
	check(t, g, "./AGENTS.md:1–2", reading{"./", "AGENTS.md", true, 1, 2, "", ""})
	check(t, g, "base/api.md:3", reading{"", "base/api.md", true, 3, 3, "", ""})
	check(t, g, "rules/API rules.md:4", reading{"", "rules/API rules.md", true, 4, 4, "", ""})
	check(t, g, "rules/API rules.md", reading{"", "rules/API rules.md", false, 0, 0, "", ""},
		reading{"", "rules/API", false, 0, 0, "", ""})
	check(t, g, "AGENTS.md Checks and review", reading{"", "AGENTS.md Checks and review", false, 0, 0, "", ""},
		reading{"", "AGENTS.md", false, 0, 0, "", ""})
	check(t, g, "AGENTS.md:2, AGENTS.md:1", reading{"", "AGENTS.md", true, 2, 2, "", " AGENTS.md:1"})
	check(t, g, "head/head/x:1", reading{"head/", "head/x", true, 1, 1, "", ""})
	check(t, g, "./head/x", reading{"./", "head/x", false, 0, 0, "", ""})
}

func TestRepoPath(t *testing.T) {
	cases := []struct {
		text string
		want string
		ok   bool
	}{
		{"head/", "", true},
		{"./", "", true},
		{"head/checks/", "checks", true},
		{"", "", false},
		{"/", "", false},
		{"/etc/passwd:1", "", false},
		{"head//etc/passwd", "", false},
		{"../x.go:1", "", false},
		{"head/a/../../x", "", false},
		{"a//b", "", false},
		{"a/./b", "", false},
		{"checks//", "", false},
		{"checks/t.py:10", "checks/t.py", true},
		{"head/base/x", "base/x", true},
	}
	for _, c := range cases {
		rs := Location.Parse(c.text)
		p, ok := rs[len(rs)-1].RepoPath()
		if p != c.want || ok != c.ok {
			t.Errorf("RepoPath(%q) = %q, %v; want %q, %v", c.text, p, ok, c.want, c.ok)
		}
	}
}

func TestStray(t *testing.T) {
	cases := map[string]string{
		"head/checks/t.py:10.": `'.' after line 10`,
		"a.go:10-x":            `'-' after line 10`,
		"a.go:10-20x":          `'x' after line 10-20`,
		"a.go:10–20.":          `'.' after line 10–20`,
		"a.go":                 "",
		"a.go:":                "",
		"a.go:x":               "",
	}
	for text, want := range cases {
		rs := Location.Parse(text)
		if got := rs[len(rs)-1].Stray; got != want {
			t.Errorf("Stray(%q) = %q, want %q", text, got, want)
		}
	}
}

// FuzzRef: Parse never panics, every reading is a piece of the reference,
// and a repository path never leaves the repository (no ".." segment, not
// absolute).
func FuzzRef(f *testing.F) {
	for _, s := range []string{"head/checks/t.py:10-20", "head/checks/t.py:10:5", "../x:1", "/etc/passwd",
		"head/checks/my test.py (x)", "a.go:1–2; b", "base/old.go:4", "./", "a:0", "x:9-1", "a:10.", "\u3000x:1\u2003y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, g := range []Grammar{Location, Link} {
			rs := g.Parse(text)
			if len(rs) == 0 || len(rs) > 2 {
				t.Fatalf("Parse(%q): %d readings", text, len(rs))
			}
			trimmed := strings.TrimSpace(text)
			for _, r := range rs {
				if !strings.HasPrefix(trimmed, r.Text) || !strings.HasPrefix(r.Text, r.Prefix+r.Path) {
					t.Fatalf("Parse(%q): reading %+v is not a piece of the reference", text, r)
				}
				if r.HasLine {
					if len(rs) != 1 {
						t.Fatalf("Parse(%q): a reference with a line has one reading", text)
					}
					if r.LineErr == "" && (r.Start < 1 || r.End < r.Start || r.End > MaxLine) {
						t.Fatalf("Parse(%q): lines %d-%d accepted", text, r.Start, r.End)
					}
					after := trimmed[len(r.Prefix+r.Path):]
					if !strings.HasPrefix(after, ":") {
						t.Fatalf("Parse(%q): path not followed by ':'", text)
					}
				}
				p, ok := r.RepoPath()
				if !ok {
					continue
				}
				if strings.HasPrefix(p, "/") {
					t.Fatalf("Parse(%q): repository path %q is absolute", text, p)
				}
				if p == "" && r.Prefix == "" {
					t.Fatalf("Parse(%q): root without a prefix", text)
				}
				for _, seg := range strings.Split(p, "/") {
					if p != "" && (seg == ".." || seg == "." || seg == "") {
						t.Fatalf("Parse(%q): repository path %q has segment %q", text, p, seg)
					}
				}
			}
		}
	})
}
