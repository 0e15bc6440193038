package glob

import (
	"path"
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
		// A compiled glob never panics and never reports a bad pattern later,
		// and gives the answer of the definition (the recursive reference).
		got := p.Match(name)
		if strings.Count(g, "**") <= 4 && strings.Count(name, "/") <= 8 {
			n := strings.TrimSuffix(name, "/")
			want := n != "" && matchRef(p.segs, strings.Split(n, "/"))
			if got != want {
				t.Fatalf("%q against %q: %v, the definition says %v", g, name, got, want)
			}
		}
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
				if _, err := path.Match(seg, n); err != nil {
					t.Fatalf("compiled %q but segment %q is bad for %q: %v", g, seg, n, err)
				}
			}
		}
	})
}

// TestG24_MatchIsLinear: twelve "**/a" pairs against a 40-deep path made the
// old backtracking matcher run for minutes. The dynamic programme compares
// each (segment, name part) pair at most once: the count is bounded by the
// product, and the answers stay those of the definition.
func TestG24_MatchIsLinear(t *testing.T) {
	calls := 0
	segMatch = func(p, n string) (bool, error) { calls++; return path.Match(p, n) }
	defer func() { segMatch = path.Match }()
	glob := strings.Repeat("**/a/", 12) + "b"
	p, err := Compile(glob)
	if err != nil {
		t.Fatal(err)
	}
	name := strings.TrimSuffix(strings.Repeat("a/", 40), "/")
	if p.Match(name) {
		t.Errorf("%s matched %s (no b segment)", glob, name)
	}
	segs := 25 // 12 "**", 12 "a", one "b"
	if bound := segs * 40; calls > bound {
		t.Errorf("%d segment comparisons, more than %d = segments × path parts", calls, bound)
	}
	calls = 0
	if !p.Match(name + "/b") {
		t.Errorf("%s did not match %s/b", glob, name)
	}
	if bound := segs * 41; calls > bound {
		t.Errorf("%d segment comparisons, more than %d", calls, bound)
	}
}

func BenchmarkG24_MatchManyDoubleStars(b *testing.B) {
	p, _ := Compile(strings.Repeat("**/a/", 12) + "b")
	name := strings.TrimSuffix(strings.Repeat("a/", 40), "/")
	for i := 0; i < b.N; i++ {
		p.Match(name)
	}
}

// matchRef is G24 read literally: "**" matches zero or more folders (every
// split tried), any other segment one name by path.Match. Exponential in
// the number of "**", so only for small fuzz inputs.
func matchRef(pat, name []string) bool {
	if len(pat) == 0 {
		return len(name) == 0
	}
	if pat[0] == "**" {
		for i := 0; i <= len(name); i++ {
			if matchRef(pat[1:], name[i:]) {
				return true
			}
		}
		return false
	}
	if len(name) == 0 {
		return false
	}
	ok, err := path.Match(pat[0], name[0])
	return err == nil && ok && matchRef(pat[1:], name[1:])
}
