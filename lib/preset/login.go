package preset

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Login is how spar asks a CLI preset whether it is logged in without
// spending tokens (docs/usage.md "Setup check"): the CLI's own status
// command, checked against the pinned CLIs (claude 2.1.328 `claude auth
// status`: JSON with "loggedIn", exit 1 when not; codex 0.169.0 `codex
// login status`: "Not logged in", exit 1).
type Login struct {
	// Args is the status command's arguments after the executable.
	Args []string
	// Env are variables that hold credentials the CLI takes instead of a
	// login (any of them set and not empty counts as logged in): codex's
	// status command does not count them, its exec does.
	Env []string
	// Files are the credential files the CLI documents, under its state
	// folder (its variable, else the home folder's): one that exists
	// counts as logged in for spar run's warning, which never starts the
	// CLI (a process of the reviewer's executable outside the sandbox).
	Files []CredentialFile
	// Providers are the CLI's own configuration files that may name a
	// provider needing none of the credentials above (codex's config.toml:
	// its own env_key, a local server): one that exists means spar cannot
	// tell from outside that a run would fail (KnownOut).
	Providers []CredentialFile
	// Command is what the user runs to log in.
	Command string
	// Silent: the CLI never says it is not logged in when it runs (codex
	// 0.169.0 sends its requests without a key, or stops at a provider's
	// missing variable), so a run of it that reached no model while it
	// had no credentials is recorded as an authentication refusal
	// (docs/review-round.md "Refusal phrases", "A CLI without
	// credentials"). claude says it ("Not logged in · Please run /login",
	// a refusal phrase).
	Silent bool
	// state reads the status command's outcome (LoginState).
	state func(exit int, out string) string
}

// LoginOf is the login check of a preset; nil for a preset without one
// (agy states its login only when it runs, command and native have none).
func LoginOf(preset string) *Login {
	switch preset {
	case "claude":
		return &Login{Args: []string{"auth", "status"},
			Env:     []string{"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN", "CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX"},
			Files:   []CredentialFile{{DirEnv: "CLAUDE_CONFIG_DIR", HomeDir: ".claude", Name: ".credentials.json"}},
			Command: "claude auth login", state: claudeLogin}
	case "codex":
		return &Login{Args: []string{"login", "status"}, Env: []string{"CODEX_API_KEY", "OPENAI_API_KEY"},
			Files:     []CredentialFile{{DirEnv: "CODEX_HOME", HomeDir: ".codex", Name: "auth.json"}},
			Providers: []CredentialFile{{DirEnv: "CODEX_HOME", HomeDir: ".codex", Name: "config.toml"}},
			Command:   "codex login", Silent: true, state: codexLogin}
	}
	return nil
}

// CredentialFile is a CLI's credential file: Name in the folder DirEnv
// names, else in HomeDir of the home folder.
type CredentialFile struct{ DirEnv, HomeDir, Name string }

// Path is the file's path for the environment getenv and the home folder.
func (c CredentialFile) Path(getenv func(string) string, home string) string {
	if d := getenv(c.DirEnv); d != "" {
		return filepath.Join(d, c.Name)
	}
	return filepath.Join(home, c.HomeDir, c.Name)
}

// HasCredentials reports whether a credential variable is set or a
// credential file exists: what spar run can tell without starting the CLI.
func (l *Login) HasCredentials(getenv func(string) string, home string) bool {
	for _, v := range l.Env {
		if getenv(v) != "" {
			return true
		}
	}
	for _, f := range l.Files {
		if _, err := os.Stat(f.Path(getenv, home)); err == nil {
			return true
		}
	}
	return false
}

// KnownOut reports whether spar knows, without starting the CLI, that a
// run of it would reach no model (docs/review-round.md "A CLI without
// credentials"): a Silent CLI (it never says so itself, and spends its time
// retrying: codex 0.169.0, 32 s of "Connection failed") with no credentials
// (HasCredentials) and none of its provider configuration files. A CLI
// that says it is not logged in (claude) is started: it refuses at once.
func (l *Login) KnownOut(getenv func(string) string, home string) bool {
	if !l.Silent || l.HasCredentials(getenv, home) {
		return false
	}
	for _, f := range l.Providers {
		if _, err := os.Stat(f.Path(getenv, home)); err == nil {
			return false
		}
	}
	return true
}

// Places names where the CLI looks for credentials, for a reason:
// "CODEX_API_KEY, OPENAI_API_KEY or /home/me/.codex/auth.json".
func (l *Login) Places(getenv func(string) string, home string) string {
	names := append([]string{}, l.Env...)
	for _, f := range l.Files {
		names = append(names, f.Path(getenv, home))
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

var (
	claudeLoggedIn = regexp.MustCompile(`"loggedIn"\s*:\s*(true|false)`)
	codexNotLogged = regexp.MustCompile(`(?im)^\s*not logged in\b`)
)

// LoginState reads the status command's outcome: "in" (logged in), "out"
// (not logged in) or "" (it cannot tell: the command failed another way or
// said something else). exit is its exit code, out its stdout and stderr.
func (l *Login) LoginState(exit int, out string) string { return l.state(exit, out) }

// claudeLogin: `claude auth status` prints JSON whose "loggedIn" says it
// (an API key in ANTHROPIC_API_KEY counts: "authMethod": "api_key").
func claudeLogin(exit int, out string) string {
	if m := claudeLoggedIn.FindStringSubmatch(out); m != nil {
		if m[1] == "true" {
			return "in"
		}
		return "out"
	}
	return ""
}

// codexLogin: `codex login status` says "Not logged in" and exits 1, or
// names the login and exits 0.
func codexLogin(exit int, out string) string {
	switch {
	case codexNotLogged.MatchString(out):
		return "out"
	case exit == 0:
		return "in"
	}
	return ""
}
