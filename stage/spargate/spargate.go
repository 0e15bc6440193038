// Package spargate is spar-gate's command layer: it decides whether a
// change may pass (`spar gate`, docs/review-gate.md) and reports a series' caps
// (`spar cap-report`, G34). It only reads records: no lock (G33), and
// nothing written but gate --out and --sarif (G28).
package spargate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"syscall"

	"github.com/jaekit/spar/lib/atomic"
	"github.com/jaekit/spar/lib/codehost"
	"github.com/jaekit/spar/lib/exitcode"
	"github.com/jaekit/spar/lib/gate"
	"github.com/jaekit/spar/lib/gitx"
	"github.com/jaekit/spar/lib/pipe"
	"github.com/jaekit/spar/lib/sarif"
	"github.com/jaekit/spar/lib/version"
	"github.com/jaekit/spar/stage/cli"
)

const name = "spar-gate"

const usage = `usage: spar-gate gate ROUND...|SERIES... [--expect-head REV] [--expect-base REV] [--signers FILE | --signers-from REV] [--out FILE] [--sarif FILE] [--md FILE] [--rdjsonl FILE] [--codequality FILE] [--rerun-checks] [--format FORMAT] [--repo DIR]
       spar-gate cap-report SERIES [--format md|json]
       spar-gate status [SERIES|ROUND]... [--format text|json]
       spar-gate attest SERIES... --expect-head REV --key FILE [--expect-base REV] [--signers FILE | --signers-from REV] [--out FILE] [--record FILE] [--repo DIR]
       spar-gate verify-attestation FILE --signers FILE [--expect-head REV] [--record FILE] [--repo DIR]

gate        read the round folders in the given order and decide; a series
            folder (one that holds rounds) gates every round of the series
            in series order, leaving out its dry runs and rounds that stopped
            before recording; round and series folders are not mixed.
            stdout: the review-gate/v1 record. stderr: a verdict line
            (passed or blocked, rounds, head), then each reason on a line
            with the command that clears it, then once the dispositions that
            close the findings it names. Exit 0 passed, 1 blocked
  --expect-head REV  the head the work must be at (G27)
  --expect-base REV  where the change starts (CI: the pull request's base):
                     code rounds must review it whole, from the merge base
                     of REV and the head to the head
  --signers FILE     only rounds a key of this OpenSSH allowed_signers file
                     signed count (review in CI: the job's key)
  --signers-from REV the same, with the .jaekit/allowed_signers of the commit
                     REV (the protected base, never the head under review);
                     without either, the head commit's file only shows which
                     rounds were signed
  --repo DIR         the repository the rounds' commits are found in (default:
                     the working folder's, else the series folder's, the
                     first that holds them; the one round.json recorded
                     only for a series folder in no repository)
  --out FILE         also write the record to FILE, atomically (G28: an
                     existing FILE must be a review-gate/v1 record; its
                     sha256 becomes previous_gate_digest)
  --sarif FILE       also write the findings of the gated rounds as SARIF
                     2.1.0 to FILE, atomically, for code hosts (one run per
                     reviewer; closed findings suppressed with their
                     disposition); an existing FILE must be a SARIF log
  --md FILE          also write the Markdown report (--format md) to FILE
  --rdjsonl FILE     also write the open findings as reviewdog diagnostics
                     (--format rdjsonl) to FILE
  --codequality FILE also write the GitLab Code Quality report (--format
                     codequality) to FILE; each of --sarif, --md, --rdjsonl
                     and --codequality is of the same decision as stdout,
                     written atomically, never where records live, an
                     existing FILE only when it is an earlier one
  --rerun-checks     run every verified fix's check again (spar triage
                     --check), in this job's sandbox: a check that does not
                     verify its fix again blocks (reason 10r)
  --format FORMAT    stdout: json, the JSON record (default); md, a
                     Markdown report for a CI step summary or a pull-request
                     comment (verdict, rounds, findings, reasons); rdjsonl,
                     the open findings as reviewdog diagnostics; codequality,
                     a GitLab Code Quality report; --out still writes the
                     JSON record
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
  spar-gate gate reviews/login/code-1 reviews/login/code-2 --expect-head HEAD --out reviews/login-gate.json
  spar-gate gate reviews/login --format md --out reviews/login-gate.json >> "$GITHUB_STEP_SUMMARY"
  spar-gate gate reviews/login/code-1 --sarif build/spar.sarif
  spar-gate gate reviews/login --md out/gate.md --rdjsonl out/open.rdjsonl --codequality out/cq.json
  spar-gate cap-report reviews/login --format json
  spar-gate status reviews/login
`

// Main runs spar-gate with the command line args and returns its exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return cli.Exit(stderr, name, run(args, stdout, stderr))
}

func usageErr(format string, args ...any) error {
	return exitcode.Usagef("%s (%s --help prints the usage)", fmt.Sprintf(format, args...), cli.Command(name))
}

// The commands' flags; each takes a value, at most once.
var (
	// gateFormats are spar gate's --format values: the record, the
	// Markdown report, and the code-host formats (lib/codehost).
	gateFormats = []string{"json", "md", "rdjsonl", "codequality"}
	gateFlags   = []cli.Flag{{Name: "expect-head"}, {Name: "expect-base"}, {Name: "out"}, {Name: "sarif"}, {Name: "md"}, {Name: "rdjsonl"}, {Name: "codequality"}, {Name: "format"}, {Name: "repo"}, {Name: "signers"}, {Name: "signers-from"}, {Name: "rerun-checks", Bool: true}}
	capFlags    = []cli.Flag{{Name: "format"}}
)

// renderings are the gate's renderings a flag of their own writes to a
// file (--sarif, --md, --rdjsonl, --codequality), by flag name (without
// --) and the --format of the same bytes ("sarif": no stdout format).
var renderings = []struct {
	flag, format string
	gate.Rendering
}{
	{"sarif", "sarif", gate.SarifFile},
	{"md", "md", gate.MDFile},
	{"rdjsonl", "rdjsonl", gate.RDJSONLFile},
	{"codequality", "codequality", gate.CodeQualityFile},
}

// file is a rendering to write: its path, its format, its flag.
type file struct{ path, format, flag string }

// parse splits args into positionals and the flag values of flags.
func parse(args []string, flags []cli.Flag) ([]string, map[string]string, error) {
	a, err := cli.Parse(args, cli.Grammar{Flags: flags})
	var se *cli.SyntaxError
	if errors.As(err, &se) {
		if se.Kind == cli.Unknown {
			return nil, nil, usageErr("unknown flag %s", se.Word)
		}
		return nil, nil, usageErr("%s", se.Error())
	}
	vals := map[string]string{}
	for _, s := range a.Sets {
		vals[s.Name] = s.Value
	}
	return a.Pos, vals, nil
}

// helpWanted reports -h or --help given as an argument of its own. The word
// after a flag that takes a value (of either command) is that value, never
// an option (G27: --expect-head --help is a revision that does not
// resolve, not a request for the usage).
func helpWanted(args []string) bool {
	a, _ := cli.Parse(args, cli.Grammar{Flags: append(append(append(append([]cli.Flag{}, gateFlags...), capFlags...), attestFlags...), verifyFlags...)})
	return a.Help
}

func run(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usageErr("a command is needed: gate, cap-report, status, attest or verify-attestation")
	}
	if len(args) == 1 && args[0] == "--version" {
		fmt.Fprintf(stdout, "spar %s\n", version.String())
		return nil
	}
	if helpWanted(args[:1]) || (len(args) > 1 && helpWanted(args[1:])) {
		// Under the driver (`spar gate --help`) the help of that one
		// command, in the driver's words; alone, every command's usage.
		if h, ok := commandHelp[args[0]]; ok && cli.Command(name) != name {
			fmt.Fprint(stdout, h)
			return nil
		}
		fmt.Fprint(stdout, usage)
		return nil
	}
	switch args[0] {
	case "gate":
		return runGate(args[1:], stdout, stderr)
	case "cap-report":
		return runCapReport(args[1:], stdout)
	case "status":
		return runStatus(args[1:], stdout)
	case "attest":
		return runAttest(args[1:], stdout, stderr)
	case "verify-attestation":
		return runVerifyAttestation(args[1:], stdout)
	}
	return usageErr("unknown command %q (gate, cap-report, status, attest or verify-attestation)", args[0])
}

func runGate(args []string, stdout, stderr io.Writer) error {
	pos, vals, err := parse(args, gateFlags)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usageErr("gate: one or more round folders (or series folders) are needed")
	}
	format, ok := vals["format"]
	if !ok {
		format = "json"
	}
	if !slices.Contains(gateFormats, format) {
		return usageErr("gate: --format %q is not json, md, rdjsonl or codequality", format)
	}
	rounds, series, err := gate.Targets(pos)
	if err != nil {
		var r *gate.RefusalError
		if errors.As(err, &r) {
			return refusal("gate", err)
		}
		return usageErr("gate: %v", err)
	}
	folders := gate.Folders(rounds, series)
	opts := gate.Options{Rounds: rounds, Series: series}
	if v, ok := vals["rerun-checks"]; ok {
		if v != "" {
			return usageErr("gate: --rerun-checks takes no value")
		}
		// Each verified fix's check runs again here; Ctrl-C stops them.
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		opts.RerunChecks, opts.Context, opts.Progress = true, ctx, stderr
	}
	opts.ExpectHead, opts.ExpectHeadGiven = vals["expect-head"]
	opts.ExpectBase, opts.ExpectBaseGiven = vals["expect-base"]
	if err := signersOptions("gate", vals, &opts); err != nil {
		return err
	}
	if repo, ok := vals["repo"]; ok {
		if _, err := gitx.TopLevel(repo); err != nil {
			return exitcode.New(exitcode.Config, fmt.Sprintf("gate: --repo %q is not a git repository", repo))
		}
		opts.Repo = repo
	}
	out, hasOut := vals["out"]
	if hasOut {
		prev, err := gate.CheckOut(out, folders)
		if err != nil {
			return exitcode.New(exitcode.Config, err.Error())
		}
		opts.Out, opts.PreviousGateDigest = out, prev
	}
	// The renderings written to files of their own, checked in this
	// order, each against --out and those before it, before the gate
	// reads anything: a refusal writes nothing.
	taken := [][2]string{{"--out", out}}
	var files []file
	for _, f := range renderings {
		path, ok := vals[f.flag]
		if !ok {
			continue
		}
		if err := gate.CheckExport(f.Rendering, path, folders, taken); err != nil {
			return exitcode.New(exitcode.Config, err.Error())
		}
		taken = append(taken, [2]string{f.Flag, path})
		files = append(files, file{path: path, format: f.format, flag: f.Flag})
	}
	var rep *gate.Report
	var gated []sarif.Round
	mdOnly := len(files) == 0 && format == "md"
	if len(files) > 0 || format != "json" {
		// The code-host renderings read the gated rounds' findings and
		// the states the gate gave them; so does the Markdown report, for
		// each open finding's claim and place. A round whose findings do
		// not load whole leaves the Markdown report its table alone.
		if rep, gated, err = gate.Findings(opts); err != nil {
			if !mdOnly {
				return exitcode.New(exitcode.Internal, err.Error())
			}
			rep = gate.Explain(opts)
		}
	} else {
		rep = gate.Explain(opts)
	}
	// Every rendering is of this one decision.
	record, err := pipe.MarshalIndent(rep.Record)
	if err != nil {
		return err
	}
	render := func(format string) ([]byte, error) {
		switch format {
		case "md":
			return []byte(codehost.StepSummary(rep.MarkdownWith(gate.MarkdownOptions{FileURL: codehost.FileURL(os.Getenv)}))), nil
		case "rdjsonl":
			return codehost.RDJSONL(gated), nil
		case "codequality":
			return codehost.CodeQuality(gated), nil
		case "sarif":
			return pipe.MarshalIndent(sarif.Export(gated))
		}
		return record, nil
	}
	for _, f := range files {
		b, err := render(f.format)
		if err != nil {
			return err
		}
		if err := atomic.WriteFileUnlocked(f.path, b, 0o644); err != nil {
			return exitcode.New(exitcode.IO, fmt.Sprintf("%s %q: %v", f.flag, f.path, err))
		}
	}
	if hasOut {
		if err := atomic.WriteFileUnlocked(out, record, 0o644); err != nil {
			return exitcode.New(exitcode.IO, fmt.Sprintf("--out %q: %v", out, err))
		}
	}
	b, err := render(format)
	if err != nil {
		return err
	}
	if _, err := stdout.Write(b); err != nil {
		return exitcode.New(exitcode.IO, "stdout: "+err.Error())
	}
	for _, l := range rep.Lines() {
		fmt.Fprintln(stderr, cli.Command(name)+": "+l)
	}
	if rep.Record.State == gate.Blocked {
		return exitcode.New(exitcode.Blocked, "")
	}
	return nil
}

func runCapReport(args []string, stdout io.Writer) error {
	pos, vals, err := parse(args, capFlags)
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
		return exitcode.New(exitcode.Config, "cap-report: "+refusal.Msg)
	}
	if err != nil {
		return err
	}
	if format == "json" {
		b, err := pipe.MarshalIndent(rep)
		if err != nil {
			return err
		}
		_, err = stdout.Write(b)
		return err
	}
	_, err = io.WriteString(stdout, rep.Markdown())
	return err
}
