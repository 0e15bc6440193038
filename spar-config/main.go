// Command spar-config decides the applied configuration (spar-config.en.md,
// rows G16–G25 of spar-input.en.md) and starts the stage pipeline: it prints
// the envelope {"schema":"spar-pipe/v1","config":{...}}, or with --record the
// bare applied configuration record that `spar config` shows. It reads no
// stdin.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/jaekit/spar/lib/config"
	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/exitcode"
	"github.com/jaekit/spar/lib/pipe"
	"github.com/jaekit/spar/lib/runner"
)

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

// optString is a string flag that knows whether it was given: --reviewers ""
// (native alone) differs from no --reviewers.
type optString struct {
	v   string
	set bool
}

func (o *optString) String() string     { return o.v }
func (o *optString) Set(s string) error { o.v, o.set = s, true; return nil }

type multi []string

func (m *multi) String() string     { return strings.Join(*m, ",") }
func (m *multi) Set(s string) error { *m = append(*m, s); return nil }

func main() {
	pipe.Exit("config", run(os.Args[1:], os.Stdout))
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("spar-config", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var (
		repo      = fs.String("repo", "", "")
		reviewers optString
		models    multi
		efforts   multi
		record    = fs.Bool("record", false, "")
		check     = fs.Bool("check", false, "")
	)
	fs.Var(&reviewers, "reviewers", "")
	fs.Var(&models, "model", "")
	fs.Var(&efforts, "effort", "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, usageText)
			return nil
		}
		return exitcode.New(exitcode.Usage, fmt.Sprintf("spar-config: %v (see spar-config --help)", err))
	}
	if fs.NArg() > 0 {
		return exitcode.New(exitcode.Usage, fmt.Sprintf("spar-config: unexpected argument %q (see spar-config --help)", fs.Arg(0)))
	}
	o := config.Options{Repo: *repo}
	if reviewers.set {
		o.Reviewers = &reviewers.v
	}
	for _, m := range models {
		a, err := config.ParseArg("--model", m)
		if err != nil {
			return err
		}
		o.Models = append(o.Models, a)
	}
	for _, e := range efforts {
		a, err := config.ParseArg("--effort", e)
		if err != nil {
			return err
		}
		o.Efforts = append(o.Efforts, a)
	}
	if *record && *check {
		return exitcode.New(exitcode.Usage, "spar-config: --record and --check exclude each other (see spar-config --help)")
	}
	c, err := config.Load(o)
	if err != nil {
		return err
	}
	if *check {
		return checkReviewers(c, stdout)
	}
	if *record {
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
// "Setup check"): one line per reviewer, then ok, or the refusal saying what
// to do.
func checkReviewers(c *envelope.Config, stdout io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "reviewers from %s:\n", config.DescribeSource(c))
	probes := runner.ProbeAll(c.Reviewers, os.Getenv("PATH"))
	for _, p := range probes {
		fmt.Fprintf(&b, "  %s\n", p.Line())
	}
	v := runner.Verdict(probes, config.EditFile(c.Source, os.Getenv))
	if v == "" {
		b.WriteString("ok: every required reviewer can start\n")
	}
	if _, err := io.WriteString(stdout, b.String()); err != nil {
		return ioErr(err)
	}
	if v != "" {
		return exitcode.New(exitcode.Config, "spar-config: check: "+v)
	}
	return nil
}

func ioErr(err error) error {
	if err == nil {
		return nil
	}
	return exitcode.New(exitcode.IO, "spar-config: stdout: "+err.Error())
}
