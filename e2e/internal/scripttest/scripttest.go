// Package scripttest holds what the two testscript suites (e2e/script and
// e2e/realcli) share: the `json` script command and a script's git
// environment. It is internal to e2e/: only those test packages import it.
package scripttest

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/tidwall/gjson"
)

// JSON is the script command `json FILE PATH [WANT]`: the gjson PATH of FILE
// (stdout and stderr name the last command's output) exists, or equals WANT
// (JSON, else a string), compared compacted. With ! it does not.
func JSON(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 || len(args) > 3 {
		ts.Fatalf("usage: json FILE PATH [WANT]")
	}
	data := ts.ReadFile(args[0])
	if !gjson.Valid(data) {
		ts.Fatalf("%s is not JSON", args[0])
	}
	r := gjson.Get(data, args[1])
	if len(args) == 2 {
		if r.Exists() == neg {
			ts.Fatalf("json %s %s: exists=%v", args[0], args[1], r.Exists())
		}
		return
	}
	want := args[2]
	if !json.Valid([]byte(want)) {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(want)
		want = strings.TrimSpace(b.String())
	}
	got := Compact(r.Raw)
	eq := r.Exists() && got == Compact(want)
	if eq == neg {
		ts.Fatalf("json %s %s:\n got: %s\nwant: %s%s", args[0], args[1], got, map[bool]string{true: "(not) ", false: ""}[neg], Compact(want))
	}
}

// Compact is s as compact JSON, or s trimmed when it is not JSON.
func Compact(s string) string {
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		return strings.TrimSpace(s)
	}
	return b.String()
}

// GitEnv gives a script a fixed git identity and dates and a global
// configuration of its own at gitconfig, outside the user's, so that
// commits are the same on every run; it writes that configuration.
func GitEnv(env *testscript.Env, gitconfig string) error {
	env.Setenv("GIT_AUTHOR_NAME", "spar test")
	env.Setenv("GIT_AUTHOR_EMAIL", "test@example.invalid")
	env.Setenv("GIT_COMMITTER_NAME", "spar test")
	env.Setenv("GIT_COMMITTER_EMAIL", "test@example.invalid")
	env.Setenv("GIT_AUTHOR_DATE", "2026-01-02T03:04:05Z")
	env.Setenv("GIT_COMMITTER_DATE", "2026-01-02T03:04:05Z")
	env.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	env.Setenv("GIT_CONFIG_GLOBAL", gitconfig)
	return os.WriteFile(gitconfig,
		[]byte("[init]\n\tdefaultBranch = main\n[user]\n\tname = spar test\n\temail = test@example.invalid\n"), 0o644)
}
