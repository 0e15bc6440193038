// spar-packet reads the applied configuration envelope from spar-config on
// stdin and the run arguments, and adds `run` (the normalized arguments)
// and `packet` (packet.md, schema.json, every reviewer's input). It writes
// nothing but stdout: every refusal (G24, G26–G28, G35, standpoints)
// happens before spar-exec creates anything (docs/pipeline.md §4).
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/exitcode"
	"github.com/jaekit/spar/lib/packet"
	"github.com/jaekit/spar/lib/pipe"
)

const usage = `usage: spar-config ... | spar-packet --stage plan|plan-delta|code --base REV --head REV --out DIR
         [--repo DIR] [--criteria FILE]... [--rules FILE]... [--subject FILE]
         [--check-path GLOB]... [--decision TEXT --decision-quote TEXT]...
         [--standpoint NAME=TEXT]... [--dry-run]

Reads the spar-pipe/v1 envelope with "config" on stdin and writes it back
with "run" and "packet" added. Writes no file.

Exit codes: 0 done, 64 usage error, 65 refused or invalid stdin (nothing
written), 70 internal error.

Example:
  spar-config | spar-packet --stage code --base main --head HEAD \
    --out reviews/login/code-1 --criteria docs/criteria.md > packet.json
`

func main() { pipe.Exit("packet", run(os.Args[1:])) }

func run(argv []string) error {
	a, err := packet.ParseArgs(argv)
	if a.Help {
		fmt.Print(usage)
		return nil
	}
	if err != nil {
		return exitcode.New(exitcode.Usage, "spar-packet: "+err.Error()+"\n"+usage)
	}
	env, err := pipe.Read("packet", os.Stdin, packet.InputSchema)
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
		return exitcode.New(exitcode.Config, "spar-packet: stdin: /config: "+err.Error())
	}
	r, changed, err := packet.Prepare(a, &cfg)
	if err != nil {
		var rf *packet.Refusal
		if errors.As(err, &rf) {
			return exitcode.New(exitcode.Config, "spar-packet: "+rf.Msg)
		}
		return err
	}
	if changed {
		if err := env.Set("config", cfg); err != nil {
			return err
		}
	}
	// Before any reviewer starts (docs/trust.md): which inputs differ from
	// the head commit.
	packet.WarnDirty(os.Stderr, r.DirtyInputs)
	p := packet.Build(r, &cfg)
	if err := env.Set("run", r); err != nil {
		return err
	}
	if err := env.Set("packet", p); err != nil {
		return err
	}
	if err := env.Write(os.Stdout); err != nil {
		return exitcode.New(exitcode.IO, "spar-packet: stdout: "+err.Error())
	}
	return nil
}
