package preset

import (
	"os"
	"path/filepath"
	"testing"
)

// KnownOut: only a Silent CLI (codex) with no credential variable, no
// credential file and no configuration of its own is known to reach no
// model; claude says it itself.
func TestKnownOut(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	codex, claude := LoginOf("codex"), LoginOf("claude")
	if !codex.KnownOut(getenv, home) {
		t.Error("codex without credentials or configuration: want known out")
	}
	if claude.KnownOut(getenv, home) {
		t.Error("claude is never known out: it says so itself")
	}
	env["OPENAI_API_KEY"] = "sk-x"
	if codex.KnownOut(getenv, home) {
		t.Error("codex with OPENAI_API_KEY: known out")
	}
	delete(env, "OPENAI_API_KEY")
	if err := os.MkdirAll(filepath.Join(home, ".codex"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".codex", "config.toml"), []byte("model_provider = \"local\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if codex.KnownOut(getenv, home) {
		t.Error("codex with a config.toml of its own: known out")
	}
	env["CODEX_HOME"] = filepath.Join(home, "elsewhere")
	if !codex.KnownOut(getenv, home) {
		t.Error("CODEX_HOME without auth.json or config.toml: want known out")
	}
}
