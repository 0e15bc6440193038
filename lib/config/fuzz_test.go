package config

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/jaekit/spar/lib/exitcode"
	"github.com/pelletier/go-toml/v2"
)

// Every TOML input either parses or ends in one configuration error line
// "<file>:<line>[:<col>]: <content>" (docs/pipeline.md "TOML files"); it never panics.
var cfgLine = regexp.MustCompile(`^cfg\.toml:[1-9][0-9]*(:[1-9][0-9]*)?: [^\n]+$`)

func checkCfgErr(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	ee, ok := err.(*exitcode.Error)
	if !ok || ee.Code != exitcode.Config {
		t.Fatalf("not a configuration error: %#v", err)
	}
	if !cfgLine.MatchString(ee.Msg) {
		t.Fatalf("message outside <file>:<line>[:<col>]: %q", ee.Msg)
	}
}

var tomlSeeds = []string{
	"",
	"timeout_seconds = 5\n[[reviewers]]\npreset = \"codex\"\n",
	"[[reviewers]]\nname = \"a\"\npreset = \"command\"\nargv = [\"x\", \"\"]\n",
	"a = 1\n[t]\nb=2\n[t]\n",
	"reviewers = [{preset=\"agy\", effort=\"x\"}]\n",
	"angles = [\"design\"]\nrules = []\ncheck_paths = [\"t/[\"]\n[caps]\ncode = -1\n",
	"x.y.model = 1\n",
	"[[a.b]]\n[[a.b]]\n[a.b.c]\nmodel = 1\n",
	"caps = { plan = 1, plan = 2 }\n",
	"q = \"\"\"\nmulti\n\"\"\"\n[x\n",
}

func FuzzParseUser(f *testing.F) {
	for _, s := range tomlSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := parseUser("cfg.toml", []byte(s))
		checkCfgErr(t, err)
		if err == nil {
			seen := map[string]bool{}
			for _, e := range u.Entries {
				if CheckName(e.Name) != nil || seen[strings.ToLower(e.Name)] {
					t.Fatalf("accepted name %q", e.Name)
				}
				seen[strings.ToLower(e.Name)] = true
			}
		}
	})
}

func FuzzParseProject(f *testing.F) {
	for _, s := range tomlSeeds {
		f.Add(s)
	}
	root := f.TempDir()
	f.Fuzz(func(t *testing.T, s string) {
		p, err := parseProject("cfg.toml", root, []byte(s))
		checkCfgErr(t, err)
		if err != nil {
			return
		}
		if len(p.Angles) == 0 || p.Caps.Plan < 0 || p.Caps.PlanDelta < 0 || p.Caps.Code < 0 {
			t.Fatalf("accepted %+v", p)
		}
		// Independent oracle: walk go-toml's decoded value for a forbidden key.
		var m map[string]any
		if err := toml.Unmarshal([]byte(s), &m); err != nil {
			t.Fatalf("accepted a file go-toml refuses: %v", err)
		}
		if k, ok := forbiddenIn(m); ok {
			t.Fatalf("forbidden key %q accepted in %q", k, s)
		}
	})
}

// go-toml reports a table defined twice without a position; the error names
// the line of the expression that makes the file fail.
func TestG17_DuplicateTableLine(t *testing.T) {
	for _, c := range []struct {
		doc  string
		line int
	}{
		{"a = 1\n[t]\nb = 2\n\n[t]\nc = 3\n", 5},
		{"[t]\nb = [\n 1,\n 2]\nb = 3\n", 5},
		{"x = 1\nx = 2\n", 2},
		{"[[r]]\n[r]\n", 2},
	} {
		_, err := parseTOML("cfg.toml", []byte(c.doc))
		ee, ok := err.(*exitcode.Error)
		if !ok {
			t.Fatalf("%q: no error", c.doc)
		}
		if want := "cfg.toml:" + strconv.Itoa(c.line) + ": "; !strings.HasPrefix(ee.Msg, want) {
			t.Errorf("%q: %q, want prefix %q", c.doc, ee.Msg, want)
		}
	}
}

func forbiddenIn(v any) (string, bool) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if contains(ForbiddenProjectKeys, k) {
				return k, true
			}
			if f, ok := forbiddenIn(e); ok {
				return f, true
			}
		}
	case []any:
		for _, e := range x {
			if f, ok := forbiddenIn(e); ok {
				return f, true
			}
		}
	}
	return "", false
}
