// Command spar-config decides the applied configuration (docs/pipeline.md
// §3, rows G16–G25) and starts the stage pipeline: it prints
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
	"github.com/jaekit/spar/lib/exitcode"
	"github.com/jaekit/spar/lib/pipe"
)

const usageText = `usage: spar-config [--repo DIR] [--reviewers LIST] [--model NAME=MODEL]... [--effort NAME=EFFORT]... [--record]

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
(one stderr line, nothing on stdout); 70 internal error.

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
	c, err := config.Load(o)
	if err != nil {
		return err
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

func ioErr(err error) error {
	if err == nil {
		return nil
	}
	return exitcode.New(exitcode.IO, "spar-config: stdout: "+err.Error())
}
