package config

import (
	"slices"
	"strings"
	"testing"
)

// An entry's env (spar's own key, docs/sandbox.md "The environment"): the
// variables its reviewer gets beyond its preset's, names or prefixes
// ending in *; it is part of the entry's value (the digest), and an entry
// without it keeps the digest it had before the key existed.
func TestEntryEnv(t *testing.T) {
	f := newFixture(t)
	f.env["SPAR_CONFIG"] = f.write("u.toml", `[[reviewers]]
name = "cmd"
preset = "command"
argv = ["/bin/true"]
env = ["MY_TOKEN", "MY_TOOL_*", "MY_TOKEN"]

[[reviewers]]
name = "plain"
preset = "command"
argv = ["/bin/true"]
`)
	c := f.load(Options{})
	if got := c.Reviewers[0].Env; !slices.Equal(got, []string{"MY_TOKEN", "MY_TOOL_*"}) {
		t.Errorf("env %v", got)
	}
	if c.Reviewers[1].Env != nil {
		t.Errorf("plain: env %v", c.Reviewers[1].Env)
	}
	if _, ok := ReviewerValue(c.Reviewers[1])["env"]; ok {
		t.Error("an entry without env has env in its value")
	}
	if got := ReviewerChanges(c.Reviewers[1], c.Reviewers[0]); !slices.Contains(got, "env") {
		t.Errorf("changes %v", got)
	}
	for _, bad := range []struct{ entry, want string }{
		{`preset = "command"` + "\n" + `argv = ["/bin/true"]` + "\n" + `env = "X"`, "u.toml:4: env: want an array of variable names, got"},
		{`preset = "command"` + "\n" + `argv = ["/bin/true"]` + "\n" + `env = ["OK", "1X"]`, `u.toml:4: env: item 2: "1X" is not a variable name`},
		{`preset = "command"` + "\n" + `argv = ["/bin/true"]` + "\n" + `env = ["*"]`, `u.toml:4: env: item 1: "*" is not a variable name`},
		{`preset = "native"` + "\n" + `env = ["X"]`, "u.toml:3: env: the native preset does not use env"},
	} {
		f.env["SPAR_CONFIG"] = f.write("u.toml", "[[reviewers]]\n"+bad.entry+"\n")
		if _, err := f.try(Options{}); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: %v, want %q", bad.entry, err, bad.want)
		}
	}
}
