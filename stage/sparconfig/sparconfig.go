// Package sparconfig is spar-config's command layer: it decides the
// applied configuration (docs/pipeline.md §3, rows G16–G25) and starts the stage pipeline: it prints the envelope
// {"schema":"spar-pipe/v1","config":{...}}, or with --record the bare
// applied configuration record that `spar config` shows. It reads no stdin.
package sparconfig

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/jaekit/spar/lib/config"
	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/exitcode"
	"github.com/jaekit/spar/lib/pipe"
	"github.com/jaekit/spar/lib/runner"
	"github.com/jaekit/spar/lib/suggest"
	"github.com/jaekit/spar/stage/cli"
)

const name = "spar-config"

const usageText = `usage: spar-config [--repo DIR] [--reviewers LIST] [--model NAME=MODEL]... [--effort NAME=EFFORT]... [--record | --check]

Decides the configuration a review round applies and prints it on stdout:
by default the pipeline envelope {"schema":"spar-pipe/v1","config":{...}}
that spar-packet reads; with --record only the applied configuration record
(what 'spar config' prints and round.json keeps as "config"). Reads no stdin.

Flags:
  --repo DIR           a folder inside the repository under review (default: the
                       current directory); its working tree's .jaekit/spar.toml
                       is the project configuration
  --reviewers LIST     comma-separated reviewer names for this run, instead of the
                       configured list; "" means native alone (G25)
  --model NAME=MODEL   the model for reviewer NAME when the user configuration does
                       not write one; repeatable, split at the first "="
  --effort NAME=EFFORT the effort for a claude or codex reviewer NAME when the user
                       configuration does not write one; repeatable
  --record             print the bare applied configuration record
  --check              print, for each applied reviewer, whether its executable
                       resolves (G14), its path and version line (spar doctor);
                       exit 65 with what to do when a required reviewer, or every
                       reviewer, cannot start
  -h, --help           print this text and exit 0

Environment (the user configuration source order; an empty variable is absent):
  SPAR_CONFIG          1. the user configuration file
  XDG_CONFIG_HOME      2. $XDG_CONFIG_HOME/jaekit/spar.toml
  HOME                 3. ~/.config/jaekit/spar.toml
  CLEAN_REVIEW_CONFIG  4. clean-review's config.json when none of 1-3 exists; else
                       $XDG_CONFIG_HOME/clean-review/config.json, else
                       ~/.config/clean-review/config.json (only the chosen one)
                       5. none of these: the default list claude, codex, agy

Exit codes: 0 printed; 64 usage error; 65 configuration error or refusal
(one stderr line, nothing on stdout; --check: a reviewer that cannot start,
after the report); 70 internal error.

Example:
  spar-config --repo . --reviewers claude,native --effort claude=medium --record
`

// grammar is spar-config's command line. It keeps the forms of Go's flag
// package it was first read with: -name as well as --name, a flag given
// again replaces its value, --record=BOOL.
var grammar = cli.Grammar{
	Flags: []cli.Flag{
		{Name: "repo", Repeat: true},
		{Name: "reviewers", Repeat: true},
		{Name: "model", Repeat: true},
		{Name: "effort", Repeat: true},
		{Name: "record", Bool: true, Repeat: true},
		{Name: "check", Bool: true},
	},
	NoPositionals: true,
	SingleDash:    true,
}

// Main runs spar-config with the command line args and returns its exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == suggest.Arg {
		// The driver's did-you-mean (spar's suggest): the closest
		// candidate on one line, or nothing.
		if len(args) > 1 {
			if c := suggest.Closest(args[1], args[2:]...); c != "" {
				fmt.Fprintln(stdout, c)
			}
		}
		return 0
	}
	return cli.Exit(stderr, name, run(args, stdout, stderr))
}

func usageErr(msg string) error {
	return exitcode.Usagef("%s (see %s --help)", msg, cli.Command(name))
}

// syntaxMsg is the text of a command-line fault, as Go's flag package
// worded it.
func syntaxMsg(e *cli.SyntaxError) string {
	switch e.Kind {
	case cli.Unknown:
		return "flag provided but not defined: -" + e.Flag
	case cli.Missing:
		return "flag needs an argument: -" + e.Flag
	}
	return e.Error()
}

func run(args []string, stdout, stderr io.Writer) error {
	a, err := cli.Parse(args, grammar)
	if a.Help {
		fmt.Fprint(stdout, usageText)
		return nil
	}
	var se *cli.SyntaxError
	if errors.As(err, &se) {
		return usageErr(syntaxMsg(se))
	}
	record := false
	for _, s := range a.Sets {
		if s.Name != "record" {
			continue
		}
		record = true
		if s.HasValue {
			if record, err = strconv.ParseBool(s.Value); err != nil {
				return usageErr(fmt.Sprintf("invalid boolean value %q for -record: parse error", s.Value))
			}
		}
	}
	_, check := a.Value("check")
	if record && check {
		return usageErr("--record and --check exclude each other")
	}
	o := config.Options{}
	o.Repo, _ = a.Value("repo")
	// spar doctor without --repo outside a repository checks what needs
	// none (the user configuration, the reviewers) and says so.
	outside := ""
	if _, given := a.Value("repo"); check && !given {
		if _, ok := config.RepoRoot(""); !ok {
			wd, _ := os.Getwd()
			outside = fmt.Sprintf("not inside a git repository (%s): the project configuration (.jaekit/spar.toml) is not checked; run spar doctor inside the repository under review, or give --repo DIR", wd)
			o.NoProject = true
		}
	}
	// --reviewers "" (native alone, G25) differs from no --reviewers.
	if v, ok := a.Value("reviewers"); ok {
		o.Reviewers = &v
	}
	for _, m := range a.Values("model") {
		arg, err := config.ParseArg("--model", m)
		if err != nil {
			return err
		}
		o.Models = append(o.Models, arg)
	}
	for _, e := range a.Values("effort") {
		arg, err := config.ParseArg("--effort", e)
		if err != nil {
			return err
		}
		o.Efforts = append(o.Efforts, arg)
	}
	c, err := config.Load(o)
	if err != nil {
		return err
	}
	for _, w := range config.Warnings(c, os.Getenv) {
		fmt.Fprintf(stderr, "%s: warning: %s\n", cli.Command(name), w)
	}
	if check {
		repo := ""
		if outside == "" {
			// The repository the sandbox of a round protects: doctor's
			// probe protects it too (runner.ProbeReviewer).
			repo, _ = config.RepoRoot(o.Repo)
		}
		return checkReviewers(c, outside, repo, stdout)
	}
	if record {
		b, err := pipe.MarshalIndent(c)
		if err != nil {
			return err
		}
		_, err = stdout.Write(b)
		return ioErr(err)
	}
	env := pipe.New()
	if err := env.Set("config", c); err != nil {
		return err
	}
	if err := env.Set("configured_reviewers", c.ConfiguredNames); err != nil {
		return err
	}
	return ioErr(env.Write(stdout))
}

// checkReviewers prints the setup check of spar config --check (docs/usage.md
// "Setup check"): the line outside says why the project configuration was
// not read (when not ""), one line per reviewer, then ok, or the refusal
// saying what to do. repo is the repository under review ("": none).
func checkReviewers(c *envelope.Config, outside, repo string, stdout io.Writer) error {
	var b strings.Builder
	if outside != "" {
		fmt.Fprintf(&b, "%s\n", outside)
	}
	fmt.Fprintf(&b, "reviewers from %s:\n", config.DescribeSource(c))
	probes := runner.ProbeAll(c.Reviewers, os.Getenv("PATH"), repo)
	for _, p := range probes {
		fmt.Fprintf(&b, "  %s\n", p.Line())
	}
	edit := config.EditFile(c.Source, os.Getenv)
	v := runner.Verdict(probes, edit)
	// Required reviewers --reviewers leaves out: the run starts, the gate
	// blocks on them (docs/usage.md "Setup check"); a note, not a refusal.
	left := runner.LeftOut(c.ConfiguredRequired, c.Reviewers, edit)
	if left != "" {
		fmt.Fprintf(&b, "%s\n", left)
	}
	switch {
	case v == "" && left != "":
		b.WriteString("ok: every reviewer of this run can start; the gate will block on the required reviewers it leaves out (above)\n")
	case v == "":
		b.WriteString("ok: every required reviewer can start\n")
	}
	if _, err := io.WriteString(stdout, b.String()); err != nil {
		return ioErr(err)
	}
	if v != "" {
		return exitcode.New(exitcode.Config, "check: "+v)
	}
	return nil
}

func ioErr(err error) error {
	if err == nil {
		return nil
	}
	return exitcode.New(exitcode.IO, "stdout: "+err.Error())
}
