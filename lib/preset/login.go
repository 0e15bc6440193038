package preset

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
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
	// its own env_key, a local server; claude's settings: an apiKeyHelper,
	// credential variables in their env): one that exists, and holds one
	// of ProviderWords when there are any, means spar cannot tell from
	// outside that a run would fail (KnownOut).
	Providers     []CredentialFile
	ProviderWords []string
	// Elsewhere are variables that point the CLI at another endpoint
	// (claude's ANTHROPIC_BASE_URL: a gateway, a local mock): one set and
	// not empty means spar cannot tell from outside (KnownOut).
	Elsewhere []string
	// Keychain are the systems (runtime.GOOS) on which the CLI may keep its
	// login where no file check sees it (claude on macOS: the Keychain):
	// there spar never knows it out.
	Keychain []string
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
		env := []string{"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN", "CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX"}
		elsewhere := []string{"ANTHROPIC_BASE_URL"}
		return &Login{Args: []string{"auth", "status"},
			Env:   env,
			Files: []CredentialFile{{DirEnv: "CLAUDE_CONFIG_DIR", HomeDir: ".claude", Name: ".credentials.json"}},
			Providers: []CredentialFile{{DirEnv: "CLAUDE_CONFIG_DIR", HomeDir: ".claude", Name: "settings.json"},
				{At: "/etc/claude-code/managed-settings.json"}},
			ProviderWords: append(append([]string{"apiKeyHelper"}, env...), elsewhere...),
			Elsewhere:     elsewhere, Keychain: []string{"darwin"},
			Command: "claude auth login", state: claudeLogin}
	case "codex":
		return &Login{Args: []string{"login", "status"}, Env: []string{"CODEX_API_KEY", "OPENAI_API_KEY"},
			Files:     []CredentialFile{{DirEnv: "CODEX_HOME", HomeDir: ".codex", Name: "auth.json"}},
			Providers: []CredentialFile{{DirEnv: "CODEX_HOME", HomeDir: ".codex", Name: "config.toml"}},
			Command:   "codex login", Silent: true, state: codexLogin}
	}
	return nil
}

// CredentialFile is a CLI's credential file: At when set (a fixed place),
// else Name in the folder DirEnv names, else in HomeDir of the home folder.
type CredentialFile struct{ DirEnv, HomeDir, Name, At string }

// Path is the file's path for the environment getenv and the home folder.
func (c CredentialFile) Path(getenv func(string) string, home string) string {
	if c.At != "" {
		return c.At
	}
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

// goos is the system KnownOut checks Keychain against (tests set it).
var goos = runtime.GOOS

// KnownOut reports whether spar knows, without starting the CLI, that a
// run of it would reach no model (docs/review-round.md "A CLI without
// credentials"), so that a round does not start it (codex 0.169.0 spends
// 32 s retrying "Connection failed"; claude starts, then refuses): no
// credentials (HasCredentials), no variable pointing it elsewhere, none of
// its provider configuration files that could name credentials, and not a
// system where its login may live out of sight (Keychain). Anything spar
// cannot read counts as a login it cannot see.
func (l *Login) KnownOut(getenv func(string) string, home string) bool {
	if slices.Contains(l.Keychain, goos) || l.HasCredentials(getenv, home) {
		return false
	}
	for _, v := range l.Elsewhere {
		if getenv(v) != "" {
			return false
		}
	}
	for _, f := range l.Providers {
		p := f.Path(getenv, home)
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if len(l.ProviderWords) == 0 {
			return false
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return false
		}
		for _, w := range l.ProviderWords {
			if strings.Contains(string(b), w) {
				return false
			}
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
