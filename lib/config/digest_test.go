package config

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/exitcode"
)

// fixture is one user environment: files under a temporary HOME and a git
// repository, and the environment variables spar-config reads.
type fixture struct {
	t    *testing.T
	home string
	repo string
	env  map[string]string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	dir := t.TempDir()
	f := &fixture{t: t, home: filepath.Join(dir, "home"), repo: filepath.Join(dir, "repo"), env: map[string]string{}}
	f.env["HOME"] = f.home
	if err := os.MkdirAll(f.repo, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("git", "init", "-q", f.repo)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	return f
}

func (f *fixture) write(rel, text string) string {
	f.t.Helper()
	p := filepath.Join(f.home, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		f.t.Fatal(err)
	}
	return p
}

func (f *fixture) load(o Options) *envelope.Config {
	f.t.Helper()
	c, err := f.try(o)
	if err != nil {
		f.t.Fatalf("Load: %v", err)
	}
	return c
}

func (f *fixture) try(o Options) (*envelope.Config, error) {
	o.Repo = f.repo
	o.Getenv = func(k string) string { return f.env[k] }
	return Load(o)
}

func names(s string) *string { return &s }

// The same applied values from a TOML file, from clean-review and from the
// default list give the same digest (docs/pipeline.md §2).
func TestDigest_SameValuesFromDifferentSources(t *testing.T) {
	def := newFixture(t)
	dDefault := def.load(Options{})
	if dDefault.Source.Kind != KindDefault {
		t.Fatalf("source %q, want default", dDefault.Source.Kind)
	}

	cr := newFixture(t)
	cr.write(".config/clean-review/config.json", `{"reviewers": ["claude", " codex", "agy"]}`)
	dClean := cr.load(Options{})
	if dClean.Source.Kind != KindCleanReview {
		t.Fatalf("source %q, want clean-review", dClean.Source.Kind)
	}

	tomlPresets := newFixture(t)
	tomlPresets.write(".config/jaekit/spar.toml", "[[reviewers]]\npreset = \"claude\"\n[[reviewers]]\npreset = \"codex\"\n[[reviewers]]\npreset = \"agy\"\n")
	dPresets := tomlPresets.load(Options{})

	// Written values equal to the preset defaults count as written (model_source
	// user) but apply the same values.
	tomlWritten := newFixture(t)
	tomlWritten.env["XDG_CONFIG_HOME"] = filepath.Join(tomlWritten.home, "xdg")
	tomlWritten.write("xdg/jaekit/spar.toml", `timeout_seconds = 1800
[[reviewers]]
name = "claude"
preset = "claude"
model = "opus"
effort = "high"
binary = "claude"
[[reviewers]]
preset = "codex"
model = "gpt-6-astra"
effort = "high"
binary = ""
[[reviewers]]
preset = "agy"
model = "gemini-4-argon-high"
fallback_model = "gemini-3.8-flash-high"
timeout_seconds = 1800
`)
	dWritten := tomlWritten.load(Options{})
	if dWritten.Reviewers[0].ModelSource != "user" || dPresets.Reviewers[0].ModelSource != "preset" {
		t.Fatalf("model sources %q, %q", dWritten.Reviewers[0].ModelSource, dPresets.Reviewers[0].ModelSource)
	}

	// No reviewers key: the default list.
	tomlNoList := newFixture(t)
	tomlNoList.env["SPAR_CONFIG"] = tomlNoList.write("spar.toml", "timeout_seconds = 1800\n")
	dNoList := tomlNoList.load(Options{})

	for name, c := range map[string]*envelope.Config{"clean-review": dClean, "toml presets": dPresets, "toml written": dWritten, "toml without reviewers": dNoList} {
		if c.Digest != dDefault.Digest {
			t.Errorf("%s: digest %s, default list %s", name, c.Digest, dDefault.Digest)
		}
	}
	// The digest is the one Digest computes from the record.
	if d, _ := Digest(dDefault); d != dDefault.Digest {
		t.Errorf("record digest %s, Digest %s", dDefault.Digest, d)
	}
}

// A value the agent chose enters as the applied value: equal to the same
// value written in the file, different from the preset's.
func TestDigest_AgentChoiceIsTheAppliedValue(t *testing.T) {
	f := newFixture(t)
	preset := f.load(Options{Reviewers: names("claude")})
	chosen := f.load(Options{Reviewers: names("claude"), Models: []Arg{{"claude", "sonnet"}}, Efforts: []Arg{{"claude", "low"}}})
	sameAsPreset := f.load(Options{Reviewers: names("claude"), Models: []Arg{{"claude", "opus"}}})
	if chosen.Digest == preset.Digest {
		t.Error("an agent's model did not change the digest")
	}
	if sameAsPreset.Digest != preset.Digest {
		t.Error("choosing the preset's own model changed the digest")
	}

	w := newFixture(t)
	w.write(".config/jaekit/spar.toml", "[[reviewers]]\npreset = \"claude\"\nmodel = \"sonnet\"\neffort = \"low\"\n[[reviewers]]\npreset = \"codex\"\n[[reviewers]]\npreset = \"agy\"\n")
	written := w.load(Options{Reviewers: names("claude")})
	if written.Digest != chosen.Digest {
		t.Errorf("written sonnet/low %s, chosen sonnet/low %s", written.Digest, chosen.Digest)
	}
}

// Even with the same --reviewers, a different configured_required gives a
// different digest.
func TestDigest_ConfiguredRequiredCounts(t *testing.T) {
	a := newFixture(t)
	a.write(".config/jaekit/spar.toml", "[[reviewers]]\npreset = \"claude\"\n[[reviewers]]\npreset = \"codex\"\n")
	b := newFixture(t)
	b.write(".config/jaekit/spar.toml", "[[reviewers]]\npreset = \"claude\"\n[[reviewers]]\npreset = \"codex\"\n[[reviewers]]\npreset = \"agy\"\n")
	ca := a.load(Options{Reviewers: names("claude,codex")})
	cb := b.load(Options{Reviewers: names("claude,codex")})
	if len(ca.ConfiguredRequired) != 2 || len(cb.ConfiguredRequired) != 3 {
		t.Fatalf("configured_required %v, %v", ca.ConfiguredRequired, cb.ConfiguredRequired)
	}
	if ca.Digest == cb.Digest {
		t.Error("a different configured_required gave the same digest")
	}
	// A command reviewer is not required: it does not enter configured_required.
	c := newFixture(t)
	c.write(".config/jaekit/spar.toml", "[[reviewers]]\npreset = \"claude\"\n[[reviewers]]\npreset = \"codex\"\n[[reviewers]]\nname = \"t\"\npreset = \"command\"\nargv = [\"/bin/true\"]\n")
	cc := c.load(Options{Reviewers: names("claude,codex")})
	if len(cc.ConfiguredRequired) != 2 || cc.Digest != ca.Digest {
		t.Errorf("a configured command reviewer changed configured_required: %v", cc.ConfiguredRequired)
	}
}

// spar-packet adds --check-path globs to check_paths and recomputes.
func TestDigest_CheckPathAdded(t *testing.T) {
	f := newFixture(t)
	c := f.load(Options{})
	c.CheckPaths = append(c.CheckPaths, "tests/**")
	d, err := Digest(c)
	if err != nil {
		t.Fatal(err)
	}
	if d == c.Digest {
		t.Error("an added check path did not change the digest")
	}
}

// G16: a stat that fails for a reason other than a missing path is a
// configuration error, not an absent source. Root can search any folder.
func TestG16_StatFailureIsConfigurationError(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root ignores folder permissions")
	}
	f := newFixture(t)
	p := f.write(".config/jaekit/spar.toml", "[[reviewers]]\npreset = \"native\"\n")
	dir := filepath.Dir(p)
	if err := os.Chmod(dir, 0); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(dir, 0o755)
	_, err := f.try(Options{})
	ee, ok := err.(*exitcode.Error)
	if !ok || ee.Code != exitcode.Config || !strings.HasPrefix(ee.Msg, p+": cannot stat the configuration file: permission denied") {
		t.Fatalf("got %v", err)
	}
}

// G23: an unreadable rule file is a configuration error.
func TestG23_UnreadableRule(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads any file")
	}
	f := newFixture(t)
	rule := filepath.Join(f.repo, "AGENTS.md")
	if err := os.WriteFile(rule, []byte("x\n"), 0); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(f.repo, ".jaekit"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(f.repo, ".jaekit", "spar.toml"), []byte("rules = [\"AGENTS.md\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := f.try(Options{})
	ee, ok := err.(*exitcode.Error)
	if !ok || ee.Code != exitcode.Config || !strings.Contains(ee.Msg, `spar.toml:1: rules: item "AGENTS.md": unreadable: permission denied`) {
		t.Fatalf("got %v", err)
	}
}
