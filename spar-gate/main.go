// spar-gate decides whether a change may pass (`spar gate`, DESIGN.md §8)
// and reports a series' caps (`spar cap-report`, G34). It only reads
// records: no lock (G33), and nothing written but gate --out (G28).
package main

import (
	"errors"
	"fmt"
	"github.com/jaekit/spar/lib/version"
	"os"
	"strings"

	"github.com/jaekit/spar/lib/atomic"
	"github.com/jaekit/spar/lib/exitcode"
	"github.com/jaekit/spar/lib/gate"
	"github.com/jaekit/spar/lib/pipe"
	"github.com/jaekit/spar/lib/sarif"
)

const usage = `usage: spar-gate gate ROUND... [--expect-head REV] [--out FILE] [--sarif FILE]
       spar-gate cap-report SERIES [--format md|json]
       spar-gate status [SERIES|ROUND]... [--format text|json]

gate        read the round folders in the given order and decide: prints the
            review-gate/v1 record; exit 0 passed, 1 blocked (each reason on
            stderr, one line each, with what clears it)
  --expect-head REV  the head the work must be at (G27)
  --out FILE         also write the record to FILE, atomically (G28: an
                     existing FILE must be a review-gate/v1 record; its
                     sha256 becomes previous_gate_digest)
  --sarif FILE       also write the findings of the gated rounds as SARIF
                     2.1.0 to FILE, atomically, for code hosts (one run per
                     reviewer; closed findings suppressed with their
                     disposition); an existing FILE must be a SARIF log
cap-report  per stage the cap, extensions (cause, reason), rounds counted and
            left, reruns, the tokens and cost the reviewers stated, and the
            growth of the code rounds (G34)
  --format md|json   Markdown (default) or JSON
status      per series: the latest round, its head against the repository's
            HEAD, each finding open or closed (the gate's decision) and why,
            required reviewers, caps used, and the one command that moves
            it on (docs/status.md); default: every series under reviews/ of
            the current repository
  --format text|json text (default) or the spar-status/v1 object

Exit codes: 0 passed/done, 1 blocked, 64 usage error, 65 refused (nothing
written), 70 internal error, 74 I/O error writing --out.

Examples:
  spar-gate gate reviews/login/code-1 reviews/login/code-2 --expect-head HEAD --out reviews/login/gate.json
  spar-gate gate reviews/login/code-1 --sarif build/spar.sarif
  spar-gate cap-report reviews/login --format json
  spar-gate status reviews/login
`

func main() {
	pipe.Exit("gate", run(os.Args[1:]))
}

func usageErr(format string, args ...any) error {
	return exitcode.New(exitcode.Usage, "spar-gate: "+fmt.Sprintf(format, args...)+" (spar-gate --help prints the usage)")
}

// helpWanted reports -h or --help given as an argument of its own. The word
// after a flag that takes a value is that value, never an option (G27:
// --expect-head --help is a revision that does not resolve, not a request
// for the usage).
func helpWanted(args []string) bool {
	for i := 0; i < len(args); i++ {
		switch a := args[i]; a {
		case "--":
			return false
		case "-h", "--help":
			return true
		case "--expect-head", "--out", "--sarif", "--format":
			i++
		}
	}
	return false
}

// parse splits args into positionals and the allowed --flag values
// (--flag V or --flag=V, each at most once; "--" ends the flags).
func parse(args []string, allowed ...string) ([]string, map[string]string, error) {
	var pos []string
	vals := map[string]string{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			pos = append(pos, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			pos = append(pos, a)
			continue
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		known := false
		for _, f := range allowed {
			known = known || f == name
		}
		if !known || !strings.HasPrefix(a, "--") {
			return nil, nil, usageErr("unknown flag %s", a)
		}
		if _, dup := vals[name]; dup {
			return nil, nil, usageErr("--%s given twice", name)
		}
		if !hasVal {
			if i+1 >= len(args) {
				return nil, nil, usageErr("--%s needs a value", name)
			}
			i++
			val = args[i]
		}
		vals[name] = val
	}
	return pos, vals, nil
}

func run(args []string) error {
	if len(args) == 0 {
		return usageErr("a command is needed: gate, cap-report or status")
	}
	if len(args) == 1 && args[0] == "--version" {
		fmt.Printf("spar %s\n", version.String())
		return nil
	}
	if helpWanted(args[:1]) || (len(args) > 1 && helpWanted(args[1:])) {
		fmt.Print(usage)
		return nil
	}
	switch args[0] {
	case "gate":
		return runGate(args[1:])
	case "cap-report":
		return runCapReport(args[1:])
	case "status":
		return runStatus(args[1:])
	}
	return usageErr("unknown command %q (gate, cap-report or status)", args[0])
}

func runGate(args []string) error {
	rounds, vals, err := parse(args, "expect-head", "out", "sarif")
	if err != nil {
		return err
	}
	if len(rounds) == 0 {
		return usageErr("gate: one or more round folders are needed")
	}
	opts := gate.Options{Rounds: rounds}
	opts.ExpectHead, opts.ExpectHeadGiven = vals["expect-head"]
	out, hasOut := vals["out"]
	if hasOut {
		prev, err := gate.CheckOut(out, rounds)
		if err != nil {
			return exitcode.New(exitcode.Config, "spar-gate: "+err.Error())
		}
		opts.Out, opts.PreviousGateDigest = out, prev
	}
	sarifOut, hasSarif := vals["sarif"]
	if hasSarif {
		if err := gate.CheckSarifOut(sarifOut, rounds, out); err != nil {
			return exitcode.New(exitcode.Config, "spar-gate: "+err.Error())
		}
	}
	var rec *gate.Record
	if hasSarif {
		var log sarif.Log
		if rec, log, err = gate.Export(opts); err != nil {
			return exitcode.New(exitcode.Internal, "spar-gate: --sarif: "+err.Error())
		}
		sb, err := pipe.MarshalIndent(log)
		if err != nil {
			return err
		}
		if err := atomic.WriteFileUnlocked(sarifOut, sb, 0o644); err != nil {
			return exitcode.New(exitcode.IO, fmt.Sprintf("spar-gate: --sarif %q: %v", sarifOut, err))
		}
	} else {
		rec = gate.Decide(opts)
	}
	b, err := pipe.MarshalIndent(rec)
	if err != nil {
		return err
	}
	if hasOut {
		if err := atomic.WriteFileUnlocked(out, b, 0o644); err != nil {
			return exitcode.New(exitcode.IO, fmt.Sprintf("spar-gate: --out %q: %v", out, err))
		}
	}
	if _, err := os.Stdout.Write(b); err != nil {
		return exitcode.New(exitcode.IO, "spar-gate: stdout: "+err.Error())
	}
	if rec.State == gate.Blocked {
		for _, r := range rec.Reasons {
			fmt.Fprintln(os.Stderr, "spar-gate: blocked: "+r)
		}
		return exitcode.New(exitcode.Blocked, "")
	}
	return nil
}

func runCapReport(args []string) error {
	pos, vals, err := parse(args, "format")
	if err != nil {
		return err
	}
	format, ok := vals["format"]
	if !ok {
		format = "md"
	}
	if format != "md" && format != "json" {
		return usageErr("cap-report: --format %q is not md or json", format)
	}
	if len(pos) != 1 {
		return usageErr("cap-report: exactly one series folder is needed (got %d)", len(pos))
	}
	rep, err := gate.Caps(pos[0])
	var refusal *gate.RefusalError
	if errors.As(err, &refusal) {
		return exitcode.New(exitcode.Config, "spar-gate: cap-report: "+refusal.Msg)
	}
	if err != nil {
		return err
	}
	if format == "json" {
		b, err := pipe.MarshalIndent(rep)
		if err != nil {
			return err
		}
		_, err = os.Stdout.Write(b)
		return err
	}
	_, err = os.Stdout.WriteString(rep.Markdown())
	return err
}
