package config

import (
	"errors"
	"strings"
	"testing"

	"github.com/jaekit/spar/lib/exitcode"
)

// nested is a TOML (or JSON) document whose inline tables (objects) nest
// depth levels deep, about 40 KB at depth 5,000: what a planted
// configuration made cost 1.85 GB before the bounds.
func nested(depth int, json bool) []byte {
	open, close := "a = {b = ", "}"
	if json {
		open, close = `{"b": `, "}"
	}
	return []byte(strings.Repeat(open, depth) + "1" + strings.Repeat(close, depth) + "\n")
}

// Route 11: a deeply nested or oversized configuration file is refused
// before it is parsed, with the file and line, exit 65: the committed
// project configuration (read from a commit's blob), and the same check
// for every source (parseTOML and clean-review's JSON; the working-tree
// file and SPAR_CONFIG through the binaries: e2e/script).
func TestTrust_Route11_TOMLNesting(t *testing.T) {
	config := func(t *testing.T, err error, want string) {
		t.Helper()
		var ee *exitcode.Error
		if !errors.As(err, &ee) || ee.Code != exitcode.Config || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want exit 65 and %q", err, want)
		}
	}
	t.Run("committed", func(t *testing.T) {
		_, err := ProjectCheckPaths(ProjectFile, append([]byte("check_paths = [\"t/**\"]\n"), nested(5000, false)...))
		config(t, err, ".jaekit/spar.toml:2: arrays and tables nest deeper than spar reads (at most 32 levels)")
	})
	t.Run("size", func(t *testing.T) {
		big := []byte(strings.Repeat("# a comment line of the configuration\n", MaxFileSize/38+10))
		_, err := ProjectCheckPaths(ProjectFile, big)
		config(t, err, ".jaekit/spar.toml:6899: the configuration file is larger than 262144 bytes")
	})
	t.Run("clean-review json", func(t *testing.T) {
		_, err := parseCleanReview("config.json", nested(5000, true))
		config(t, err, "config.json:1: arrays and tables nest deeper")
	})
	t.Run("arrays", func(t *testing.T) {
		_, err := parseTOML("u.toml", []byte("x = "+strings.Repeat("[", 33)+strings.Repeat("]", 33)+"\n"))
		config(t, err, "u.toml:1: arrays and tables nest deeper")
	})
	// At the bound, and brackets inside strings and comments, pass.
	for name, doc := range map[string]string{
		"depth 32":  "x = " + strings.Repeat("[", 32) + strings.Repeat("]", 32) + "\n",
		"strings":   "a = \"" + strings.Repeat("[{", 40) + "\"\nb = '" + strings.Repeat("[", 40) + "'\n# " + strings.Repeat("{", 40) + "\n",
		"multiline": "a = \"\"\"\n" + strings.Repeat("[", 40) + "\\\"\"\"\n\"\"\"\nb = '''" + strings.Repeat("{", 40) + "'''\n[t]\nc = [[1], {d = 2}]\n",
	} {
		if _, err := parseTOML("ok.toml", []byte(doc)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := parseCleanReview("ok.json", []byte(`{"x": "`+strings.Repeat("[", 40)+`\"", "reviewers": ["codex"]}`)); err != nil {
		t.Errorf("json strings: %v", err)
	}
}
