// Package multitool runs Microsoft's SARIF Multitool, the validator that
// applies GitHub's SARIF ingestion rules, on the SARIF logs spar writes
// (docs/pipeline.md "SARIF export"). `make clis` (scripts/install-clis)
// installs the pinned version with npm into the cache folder the real
// reviewer CLIs use; the npm package carries a self-contained native
// executable per platform (no .NET runtime needed), which this package runs
// directly: the package's node wrapper starts it through a shell, which
// would split the rule-kind list "Gh;Ghas;Sarif" at its semicolons.
package multitool

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
)

// The pinned validator and the rule kinds it applies: GitHub's ingestion
// rules (Gh), GitHub Advanced Security's (Ghas) and the SARIF
// specification's own (Sarif).
const (
	Package   = "@microsoft/sarif-multitool"
	Version   = "5.7.0"
	RuleKinds = "Gh;Ghas;Sarif"
)

// CacheDir is the folder scripts/install-clis installs into:
// $SPAR_CLI_CACHE, else $XDG_CACHE_HOME/spar/cli, else ~/.cache/spar/cli.
func CacheDir() string {
	if d := os.Getenv("SPAR_CLI_CACHE"); d != "" {
		return d
	}
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "spar", "cli")
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "spar", "cli")
}

// platform is the suffix of the npm package that holds this platform's
// executable, and the executable's name in it.
func platform() (string, string) {
	switch runtime.GOOS {
	case "windows":
		return "win32", "Sarif.Multitool.exe"
	default:
		return runtime.GOOS, "Sarif.Multitool"
	}
}

// Exe returns the installed validator's executable, or "" and one sentence
// saying why it cannot be used.
func Exe() (string, string) {
	if runtime.GOOS == "linux" && runtime.GOARCH != "amd64" {
		return "", fmt.Sprintf("%s@%s ships a Linux executable for x86-64 only, this machine is %s", Package, Version, runtime.GOARCH)
	}
	suffix, name := platform()
	p := filepath.Join(CacheDir(), Package+"@"+Version, "node_modules", Package+"-"+suffix, name)
	fi, err := os.Stat(p)
	if err != nil || fi.Mode().Perm()&0o111 == 0 {
		return "", fmt.Sprintf("%s@%s is not installed at %s (run make clis; it needs npm)", Package, Version, p)
	}
	return p, ""
}

// Problem is one result of the validator.
type Problem struct {
	File    string
	Line    int
	Column  int
	RuleID  string
	Level   string // error, warning, note or none: the effective level
	Message string
}

func (p Problem) String() string {
	loc := p.File
	if p.Line > 0 {
		loc += ":" + strconv.Itoa(p.Line)
		if p.Column > 0 {
			loc += ":" + strconv.Itoa(p.Column)
		}
	}
	return fmt.Sprintf("%s: %s %s: %s", loc, p.Level, p.RuleID, p.Message)
}

// Validate runs `validate --rule-kind Gh;Ghas;Sarif` on the files, has the
// validator write its findings as SARIF into a temporary folder, and returns
// every result with its effective level. A failed run (the tool cannot read
// a file, reports a configuration or execution error, or writes no log) is
// an error with the tool's output.
func Validate(exe string, files ...string) ([]Problem, error) {
	if len(files) == 0 {
		return nil, nil
	}
	dir, err := os.MkdirTemp("", "spar-sarif-multitool-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "validate.sarif")
	abs := make([]string, len(files))
	for i, f := range files {
		if abs[i], err = filepath.Abs(f); err != nil {
			return nil, err
		}
	}
	args := append([]string{"validate", "--rule-kind", RuleKinds, "--output", out}, abs...)
	cmd := exec.Command(exe, args...)
	cmd.Dir = dir
	// The .NET runtime inside the executable writes nothing outside dir and
	// sends no telemetry.
	cmd.Env = append(os.Environ(), "DOTNET_CLI_TELEMETRY_OPTOUT=1", "DOTNET_NOLOGO=1", "HOME="+dir)
	text, runErr := cmd.CombinedOutput()
	b, err := os.ReadFile(out)
	if err != nil {
		return nil, fmt.Errorf("%s validate wrote no log (%v): %v\n%s", exe, runErr, err, text)
	}
	probs, err := parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s validate: %v\n%s", exe, err, text)
	}
	if runErr != nil {
		return probs, fmt.Errorf("%s validate: %v\n%s", exe, runErr, text)
	}
	return probs, nil
}

// The parts of the validator's own SARIF log that Parse reads.
type outLog struct {
	Runs []struct {
		Tool struct {
			Driver struct {
				Rules []struct {
					ID             string                  `json:"id"`
					DefaultConfig  *struct{ Level string } `json:"defaultConfiguration"`
					MessageStrings map[string]struct {
						Text string `json:"text"`
					} `json:"messageStrings"`
				} `json:"rules"`
			} `json:"driver"`
		} `json:"tool"`
		Invocations []struct {
			ExecutionSuccessful bool           `json:"executionSuccessful"`
			ToolExecution       []notification `json:"toolExecutionNotifications"`
			ToolConfiguration   []notification `json:"toolConfigurationNotifications"`
		} `json:"invocations"`
		Results []struct {
			RuleID    string  `json:"ruleId"`
			RuleIndex *int    `json:"ruleIndex"`
			Level     string  `json:"level"`
			Kind      string  `json:"kind"`
			Message   message `json:"message"`
			Locations []struct {
				PhysicalLocation struct {
					ArtifactLocation struct {
						URI string `json:"uri"`
					} `json:"artifactLocation"`
					Region struct {
						StartLine   int `json:"startLine"`
						StartColumn int `json:"startColumn"`
					} `json:"region"`
				} `json:"physicalLocation"`
			} `json:"locations"`
		} `json:"results"`
	} `json:"runs"`
}

type message struct {
	Text      string   `json:"text"`
	ID        string   `json:"id"`
	Arguments []string `json:"arguments"`
}

type notification struct {
	Level   string  `json:"level"`
	Message message `json:"message"`
}

var placeholder = regexp.MustCompile(`\{(\d+)\}`)

// parse reads the validator's SARIF log: every result, with the effective
// level SARIF 2.1.0 §3.27.10 gives it (the result's level; else its rule's
// default level; else warning; a result whose kind is not "fail" has level
// none) and its message with the rule's message string filled in; the tool's
// own notifications are problems too (rule "notification", level as given,
// default warning). A run that did not execute successfully, or a
// notification of level error, is an error.
func parse(b []byte) ([]Problem, error) {
	var log outLog
	if err := json.Unmarshal(b, &log); err != nil {
		return nil, fmt.Errorf("the validator's log is not JSON: %v", err)
	}
	if len(log.Runs) == 0 {
		return nil, fmt.Errorf("the validator's log has no run")
	}
	var out []Problem
	for _, run := range log.Runs {
		for _, inv := range run.Invocations {
			for _, n := range append(inv.ToolExecution, inv.ToolConfiguration...) {
				if n.Level == "error" {
					return nil, fmt.Errorf("the validator reported: %s", msgText(n.Message, ""))
				}
				if n.Level == "" {
					n.Level = "warning"
				}
				out = append(out, Problem{RuleID: "notification", Level: n.Level, Message: msgText(n.Message, "")})
			}
			if !inv.ExecutionSuccessful {
				return nil, fmt.Errorf("the validator's run was not successful")
			}
		}
		rules := run.Tool.Driver.Rules
		for _, r := range run.Results {
			var def, tmpl string
			ri := -1
			if r.RuleIndex != nil && *r.RuleIndex >= 0 && *r.RuleIndex < len(rules) {
				ri = *r.RuleIndex
			} else {
				for i := range rules {
					if rules[i].ID == r.RuleID {
						ri = i
						break
					}
				}
			}
			if ri >= 0 {
				if dc := rules[ri].DefaultConfig; dc != nil {
					def = dc.Level
				}
				tmpl = rules[ri].MessageStrings[r.Message.ID].Text
			}
			lvl := r.Level
			if lvl == "" {
				lvl = def
			}
			if lvl == "" {
				lvl = "warning"
			}
			if r.Kind != "" && r.Kind != "fail" {
				lvl = "none"
			}
			p := Problem{RuleID: r.RuleID, Level: lvl, Message: msgText(r.Message, tmpl)}
			if len(r.Locations) > 0 {
				pl := r.Locations[0].PhysicalLocation
				p.File = strings.TrimPrefix(pl.ArtifactLocation.URI, "file://")
				p.Line, p.Column = pl.Region.StartLine, pl.Region.StartColumn
			}
			out = append(out, p)
		}
	}
	return out, nil
}

// msgText is a message's text, or its message string with the arguments
// put in, or its id and arguments.
func msgText(m message, tmpl string) string {
	if m.Text != "" {
		return m.Text
	}
	if tmpl != "" {
		return placeholder.ReplaceAllStringFunc(tmpl, func(s string) string {
			i, _ := strconv.Atoi(s[1 : len(s)-1])
			if i < len(m.Arguments) {
				return m.Arguments[i]
			}
			return s
		})
	}
	return m.ID + " " + strings.Join(m.Arguments, ", ")
}

// Blocking returns the problems of level error or warning: those a code
// host's ingestion would reject or flag.
func Blocking(probs []Problem) []Problem {
	var out []Problem
	for _, p := range probs {
		if p.Level == "error" || p.Level == "warning" {
			out = append(out, p)
		}
	}
	return out
}

// TB is the part of testing.TB that Need uses.
type TB interface {
	Helper()
	Skipf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// Need returns the validator's executable for a test. Where it is not
// installed the test is skipped with one line saying why, as the real-CLI
// tests are (e2e/realcli); with SPAR_REAL_CLI=require (.ci/run) its
// absence fails the test.
func Need(t TB) string {
	t.Helper()
	exe, why := Exe()
	if exe != "" {
		return exe
	}
	if os.Getenv("SPAR_REAL_CLI") == "require" {
		t.Fatalf("SARIF Multitool test: %s, and SPAR_REAL_CLI=require", why)
	}
	t.Skipf("SARIF Multitool test did not run: %s", why)
	return ""
}
