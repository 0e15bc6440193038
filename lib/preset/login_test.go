package preset

import (
	"os"
	"path/filepath"
	"testing"
)

// KnownOut: codex with no credential variable, no credential file and no
// configuration of its own is known to reach no model.
func TestKnownOut(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	codex := LoginOf("codex")
	if !codex.KnownOut(getenv, home) {
		t.Error("codex without credentials or configuration: want known out")
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

// claude is known out only when spar is sure: no credentials file, no
// credential variable, no ANTHROPIC_BASE_URL (a gateway, the tests' mock
// API), no settings naming an apiKeyHelper or credential variables, and
// not macOS (its login is in the Keychain there).
func TestKnownOutClaude(t *testing.T) {
	if _, err := os.Stat("/etc/claude-code/managed-settings.json"); err == nil {
		t.Skip("this machine has claude managed settings")
	}
	home := t.TempDir()
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	claude := LoginOf("claude")
	if !claude.KnownOut(getenv, home) {
		t.Fatal("claude without credentials: want known out")
	}
	for _, v := range []string{"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN", "ANTHROPIC_BASE_URL"} {
		env[v] = "x"
		if claude.KnownOut(getenv, home) {
			t.Errorf("claude with %s: known out", v)
		}
		delete(env, v)
	}
	defer func(g string) { goos = g }(goos)
	goos = "darwin"
	if claude.KnownOut(getenv, home) {
		t.Error("claude on macOS: known out")
	}
	goos = "linux"
	dir := filepath.Join(home, ".claude")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	settings := filepath.Join(dir, "settings.json")
	if err := os.WriteFile(settings, []byte(`{"model": "opus"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if !claude.KnownOut(getenv, home) {
		t.Error("claude with settings that name no credentials: want known out")
	}
	for _, body := range []string{`{"apiKeyHelper": "~/bin/key"}`, `{"env": {"ANTHROPIC_BASE_URL": "http://127.0.0.1:8080"}}`} {
		if err := os.WriteFile(settings, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if claude.KnownOut(getenv, home) {
			t.Errorf("claude with settings %s: known out", body)
		}
	}
	if err := os.Remove(settings); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".credentials.json"), []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	if claude.KnownOut(getenv, home) {
		t.Error("claude with .credentials.json: known out")
	}
	env["CLAUDE_CONFIG_DIR"] = filepath.Join(home, "elsewhere")
	if !claude.KnownOut(getenv, home) {
		t.Error("CLAUDE_CONFIG_DIR without .credentials.json: want known out")
	}
}
