// Command spar-example-reviewer is an example reviewer for spar's `command`
// preset: a small, honest static reviewer. It reads the packet and the
// read-only workspace, diffs each changed Go file between base/ and head/,
// runs two kinds of checks on the lines the change adds or modifies, and
// prints one result object on stdout (G1–G6).
//
//   - rules: a secret's value compared with == or != (not in constant
//     time), and a secret handed to a log call, linked to the rule document
//     line that forbids it. A secret is a value whose name ends in token,
//     secret, password, … (rules.go): not a nil or length check, not a
//     literal, not a client or a type.
//   - checks: a Go test function in the check paths, added or modified by
//     the change, that asserts nothing, so only a panic can fail it (no
//     failure call on its *testing.T, t handed to no function, no panic, no
//     goroutine, no compile-time assertion such as `var _ I = new(T)`),
//     linked to the rule line that says checks must fail.
//
// introduced_by_change follows the diff: yes for what the change adds; for
// a modified test, no when it could not fail in base either.
//
// It is the example of writing your own reviewer (docs/usage.md), not a
// canned answer: every finding comes from the code in workspace/head.
//
// Usage, as argv of a [[reviewers]] entry with preset = "command":
//
//	["spar-example-reviewer", "--packet", "{prompt}", "--workspace", "{workspace}", "--focus", "rules"]
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("spar-example-reviewer", flag.ContinueOnError)
	fs.SetOutput(stderr)
	packet := fs.String("packet", "", "the packet file (spar passes it as {prompt})")
	workspace := fs.String("workspace", "", "the round's workspace folder with head/ and base/ ({workspace})")
	focus := fs.String("focus", "all", "which checks to run: rules, checks or all")
	usage := func(w io.Writer) {
		fmt.Fprintf(w, `usage: spar-example-reviewer --packet FILE --workspace DIR [--focus rules|checks|all]

An example reviewer for spar's command preset. It reads the packet and the
read-only workspace and prints one JSON result on stdout.

Flags:
`)
		fs.SetOutput(w)
		fs.PrintDefaults()
		fs.SetOutput(stderr)
		fmt.Fprintf(w, `
Exit codes: 0 a result was printed, 2 usage error, 1 the packet or workspace
could not be read.

Example:
  spar-example-reviewer --packet round/packet.md --workspace round/workspace --focus checks
`)
	}
	fs.Usage = func() { usage(stderr) }
	for _, a := range args {
		if a == "-h" || a == "--help" || a == "-help" {
			usage(stdout)
			return 0
		}
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	if *packet == "" || *workspace == "" || fs.NArg() != 0 {
		fs.Usage()
		return 2
	}
	if *focus != "rules" && *focus != "checks" && *focus != "all" {
		fmt.Fprintf(stderr, "spar-example-reviewer: --focus %q: want rules, checks or all\n", *focus)
		return 2
	}
	text, err := os.ReadFile(*packet)
	if err != nil {
		fmt.Fprintf(stderr, "spar-example-reviewer: %v\n", err)
		return 1
	}
	p, err := parsePacket(string(text))
	if err != nil {
		fmt.Fprintf(stderr, "spar-example-reviewer: %s: %v\n", *packet, err)
		return 1
	}
	res, err := review(p, *workspace, *focus)
	if err != nil {
		fmt.Fprintf(stderr, "spar-example-reviewer: %v\n", err)
		return 1
	}
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(res); err != nil {
		fmt.Fprintf(stderr, "spar-example-reviewer: %v\n", err)
		return 1
	}
	return 0
}
