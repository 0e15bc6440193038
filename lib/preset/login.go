package preset

import "regexp"

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
	// Command is what the user runs to log in.
	Command string
	// state reads the status command's outcome (LoginState).
	state func(exit int, out string) string
}

// LoginOf is the login check of a preset; nil for a preset without one
// (agy states its login only when it runs, command and native have none).
func LoginOf(preset string) *Login {
	switch preset {
	case "claude":
		return &Login{Args: []string{"auth", "status"}, Command: "claude auth login", state: claudeLogin}
	case "codex":
		return &Login{Args: []string{"login", "status"}, Env: []string{"CODEX_API_KEY", "OPENAI_API_KEY"}, Command: "codex login", state: codexLogin}
	}
	return nil
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
