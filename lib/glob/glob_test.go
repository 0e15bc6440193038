package glob

import (
	"strings"
	"testing"
)

func TestG24_Match(t *testing.T) {
	cases := []struct {
		glob, name string
		want       bool
	}{
		{"checks/**", "checks/t.py", true},
		{"checks/**", "checks/a/b/t.py", true},
		{"checks/**", "checks", true}, // ** matches zero folders
		{"checks/**", "app/checks/t.py", false},
		{"**/*_test.go", "a_test.go", true},
		{"**/*_test.go", "x/y/a_test.go", true},
		{"**/*_test.go", "x/y/a.go", false},
		{"tools/checks/**", "tools/checks/x/y.sh", true},
		{"checks/", "checks", true},
		{"checks/*", "checks/t.py", true},
		{"checks/*", "checks/a/t.py", false},
		{"a**b", "axxb", true}, // ** inside a segment is two *
		{"a**b", "ax/xb", false},
		{"[ab].go", "a.go", true},
		{"\\*.go", "*.go", true},
		{"\\*.go", "x.go", false},
		{"?.go", "ab.go", false},
		{"**", "any/thing", true},
		{"a/**/b", "a/b", true},
		{"a/**/b", "a/x/y/b", true},
	}
	for _, c := range cases {
		p, err := Compile(c.glob)
		if err != nil {
			t.Fatalf("Compile(%q): %v", c.glob, err)
		}
		if got := p.Match(c.name); got != c.want {
			t.Errorf("%q.Match(%q) = %v, want %v", c.glob, c.name, got, c.want)
		}
	}
}

func TestG24_Invalid(t *testing.T) {
	for _, g := range []string{"", "  ", "/abs/**", "a/../b", "..", "[ab", "x/[", "ab\\", "a/[]", "a/[^]"} {
		if _, err := Compile(g); err == nil {
			t.Errorf("Compile(%q) accepted an invalid glob", g)
		}
	}
}

func FuzzGlob(f *testing.F) {
	for _, s := range []string{"checks/**", "**/*_test.go", "[a-", "a\\", "x/**/y", "a/[^]b]/c"} {
		f.Add(s, "checks/a/b.go")
	}
	f.Fuzz(func(t *testing.T, g, name string) {
		p, err := Compile(g)
		if err != nil {
			return
		}
		// A compiled glob never panics and never reports a bad pattern later.
		p.Match(name)
		// G24: repository-relative only; the root is never a check path.
		if strings.HasPrefix(g, "/") || strings.TrimSpace(g) == "" || p.Match("") {
			t.Fatalf("compiled %q: absolute, empty, or matching the root", g)
		}
		for _, seg := range p.segs {
			if seg == ".." {
				t.Fatalf("compiled %q with a .. segment", g)
			}
			if seg == "**" {
				continue
			}
			for _, n := range []string{"", "a", name} {
				if _, err := pathMatch(seg, n); err != nil {
					t.Fatalf("compiled %q but segment %q is bad for %q: %v", g, seg, n, err)
				}
			}
		}
	})
}
