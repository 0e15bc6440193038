// Package sparpacket is spar-packet's command layer: it reads the applied
// configuration envelope from spar-config on stdin and the run arguments,
// and adds `run` (the normalized arguments) and `packet` (packet.md,
// schema.json, every reviewer's input). It writes nothing but stdout: every
// refusal (G24, G26–G28, G35, standpoints) happens before spar-exec creates
// anything (docs/pipeline.md §4).
package sparpacket

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/jaekit/spar/lib/decision"
	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/exitcode"
	"github.com/jaekit/spar/lib/followup"
	"github.com/jaekit/spar/lib/gate"
	"github.com/jaekit/spar/lib/packet"
	"github.com/jaekit/spar/lib/pipe"
	"github.com/jaekit/spar/lib/standpoint"
	"github.com/jaekit/spar/stage/cli"
)

const usage = `usage: spar-config ... | spar-packet --stage plan|plan-delta|code --base REV --head REV --out DIR
         [--repo DIR] [--criteria FILE]... [--rules FILE]... [--subject FILE]
         [--check-path GLOB]... [--decision TEXT --decision-quote TEXT]...
         [--standpoint NAME=TEXT]... [--dry-run] [--full]

Reads the spar-pipe/v1 envelope with "config" on stdin and writes it back
with "run" and "packet" added. Writes no file. A code round in a series
that already has a reviewed round gets a follow-up packet (the change
since the last reviewed head first, every earlier finding with what was
decided about it); --full gives the first round's packet instead.

Exit codes: 0 done, 64 usage error, 65 refused or invalid stdin (nothing
written), 70 internal error.

Example:
  spar-config | spar-packet --stage code --base main --head HEAD \
    --out reviews/login/code-1 --criteria docs/criteria.md > packet.json
`

// grammar is spar-packet's command line: every option takes the next word
// as its value whatever it looks like (G35: a decision text may start with
// -); the single-valued ones at most once.
var grammar = cli.Grammar{
	Flags: []cli.Flag{
		{Name: "repo"}, {Name: "stage"}, {Name: "base"}, {Name: "head"}, {Name: "out"}, {Name: "subject"},
		{Name: "criteria", Repeat: true}, {Name: "rules", Repeat: true}, {Name: "check-path", Repeat: true},
		{Name: "standpoint", Repeat: true},
		{Name: strings.TrimPrefix(decision.OptDecision, "--"), Repeat: true},
		{Name: strings.TrimPrefix(decision.OptQuote, "--"), Repeat: true},
		{Name: "dry-run", Bool: true, Repeat: true},
		{Name: "full", Bool: true},
	},
	NoPositionals: true,
}

// Main runs spar-packet with the command line args and returns its exit
// code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return cli.Exit(stderr, "spar-packet", run(args, stdin, stdout, stderr))
}

// parseArgs reads the run arguments in order. The order of --decision and
// --decision-quote is kept for pairing (G35); either one at the end of the
// command line without a value is left to decision.Pair, which refuses it
// (65), while any other option without a value is a usage error (64).
func parseArgs(argv []string) (packet.Args, bool, error) {
	a := packet.Args{Repo: "."}
	c, err := cli.Parse(argv, grammar)
	if c.Help {
		return a, true, nil
	}
	var se *cli.SyntaxError
	if errors.As(err, &se) {
		opt := "--" + se.Flag
		switch {
		case se.Kind == cli.Missing && (opt == decision.OptDecision || opt == decision.OptQuote):
			c.Sets = append(c.Sets, cli.Set{Name: se.Flag})
		case se.Kind == cli.Unknown && strings.HasPrefix(se.Word, "--"):
			return a, false, exitcode.Usagef("unknown option %q", opt)
		case se.Kind == cli.Unknown || se.Kind == cli.Unexpected:
			return a, false, exitcode.Usagef("unexpected argument %q", se.Word)
		case se.Kind == cli.Twice:
			return a, false, exitcode.Usagef("%s given more than once", opt)
		default:
			return a, false, exitcode.Usagef("%s", se.Error())
		}
	}
	for _, s := range c.Sets {
		v := s.Value
		switch "--" + s.Name {
		case "--repo":
			a.Repo = v
		case "--stage":
			a.Stage = v
		case "--base":
			a.Base, a.HasBase = v, true
		case "--head":
			a.Head, a.HasHead = v, true
		case "--out":
			a.Out, a.HasOut = v, true
		case "--subject":
			a.Subject, a.HasSubject = v, true
		case "--criteria":
			a.Criteria = append(a.Criteria, v)
		case "--rules":
			a.Rules = append(a.Rules, v)
		case "--check-path":
			a.CheckPaths = append(a.CheckPaths, v)
		case "--standpoint":
			sp, err := standpoint.Split(v)
			if err != nil {
				return a, false, exitcode.Usagef("%s", err)
			}
			a.Standpoints = append(a.Standpoints, sp)
		case decision.OptDecision, decision.OptQuote:
			a.Decisions = append(a.Decisions, decision.Arg{Opt: "--" + s.Name, Value: v, Missing: !s.HasValue})
		case "--full":
			if s.HasValue {
				return a, false, exitcode.Usagef("--full takes no value: %q", "--full="+v)
			}
			a.Full = true
		case "--dry-run":
			if s.HasValue {
				return a, false, exitcode.Usagef("--dry-run takes no value: %q", "--dry-run="+v)
			}
			a.DryRun = true
		}
	}
	return a, false, a.Check()
}

func run(argv []string, stdin io.Reader, stdout, stderr io.Writer) error {
	a, help, err := parseArgs(argv)
	if help {
		fmt.Fprint(stdout, usage)
		return nil
	}
	if err != nil {
		var ee *exitcode.Error
		if errors.As(err, &ee) && ee.Code == exitcode.Usage {
			return exitcode.WithUsage(ee.Msg, usage)
		}
		return err
	}
	env, err := pipe.Read("packet", stdin, packet.InputSchema)
	if err != nil {
		return err
	}
	var cfg envelope.Config
	// Standpoints accept every configured reviewer, also one --reviewers
	// omitted; spar-config passes their names beside the record.
	if err := env.Get("configured_reviewers", &cfg.ConfiguredNames); err != nil {
		return err
	}
	if err := env.Get("config", &cfg); err != nil {
		return exitcode.New(exitcode.Config, "stdin: /config: "+err.Error())
	}
	r, changed, err := packet.Prepare(a, &cfg)
	if err != nil {
		var rf *packet.Refusal
		if errors.As(err, &rf) {
			return exitcode.New(exitcode.Config, rf.Msg)
		}
		return err
	}
	if changed {
		if err := env.Set("config", cfg); err != nil {
			return err
		}
	}
	// Before any reviewer starts (docs/trust.md, docs/review-round.md
	// "Inputs that differ from the head commit"): a round that reads an
	// input differing from the head commit would not count (the gate's
	// rule), so it is refused; a dry run starts nothing and counts nothing,
	// and only says which.
	if !a.DryRun {
		if err := gate.DirtyInputsRefusal(r.DirtyInputs); err != nil {
			return exitcode.New(exitcode.Config, err.Error())
		}
	}
	packet.WarnDirty(stderr, r.DirtyInputs)
	// Where the round goes (from a subfolder) and what it leaves out
	// (uncommitted changes): notes, never a refusal.
	if cwd, err := os.Getwd(); err == nil {
		packet.WarnNotes(stderr, packet.Notes(r, cwd, a.Head))
	}
	// A follow-up round (docs/review-round.md §2.4): what the series
	// already reviewed and decided.
	if err := followup.Prepare(r, cfg.ConfiguredRequired, cfg.Exclude, a.Full); err != nil {
		var rf *packet.Refusal
		if errors.As(err, &rf) {
			return exitcode.New(exitcode.Config, rf.Msg)
		}
		return exitcode.New(exitcode.Config, "the series' earlier rounds cannot be read: "+err.Error())
	}
	p := packet.Build(r, &cfg)
	if err := env.Set("run", r); err != nil {
		return err
	}
	if err := env.Set("packet", p); err != nil {
		return err
	}
	if err := env.Write(stdout); err != nil {
		return exitcode.New(exitcode.IO, "stdout: "+err.Error())
	}
	return nil
}
