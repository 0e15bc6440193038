package packet

import (
	"fmt"
	"strings"

	"github.com/jaekit/spar/lib/decision"
	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/standpoint"
)

// Args are spar-packet's run arguments as given.
type Args struct {
	Repo        string
	Stage       string
	Base, Head  string
	Out         string
	Criteria    []string
	Rules       []string
	Subject     string
	HasSubject  bool
	CheckPaths  []string
	Decisions   []decision.Arg
	Standpoints []envelope.Standpoint
	DryRun      bool
	Help        bool
}

// Stages are the stage names of the contract (G31).
var Stages = []string{"plan", "plan-delta", "code"}

// UsageError is a usage error (64).
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

func usagef(format string, a ...any) error { return &UsageError{Msg: fmt.Sprintf(format, a...)} }

// ParseArgs reads the run arguments in order. Every option takes the next
// argument as its value whatever it looks like (G35: a decision text may
// start with -), or its value after "=" (--opt=value). The order of
// --decision and --decision-quote is kept for pairing (G35); either one at
// the end of the command line without a value is left to decision.Pair,
// which refuses it (65), while any other option without a value is a usage
// error (64).
func ParseArgs(argv []string) (Args, error) {
	a := Args{Repo: "."}
	seen := map[string]bool{}
	for i := 0; i < len(argv); i++ {
		arg := argv[i]
		name, val, hasVal := strings.Cut(arg, "=")
		if arg == "-h" {
			a.Help = true
			continue
		}
		if !strings.HasPrefix(name, "--") {
			return a, usagef("unexpected argument %q", arg)
		}
		switch name {
		case "--help":
			a.Help = true
			continue
		case "--dry-run":
			if hasVal {
				return a, usagef("--dry-run takes no value: %q", arg)
			}
			a.DryRun = true
			continue
		case "--repo", "--stage", "--base", "--head", "--out", "--criteria", "--rules", "--subject",
			"--check-path", "--standpoint", decision.OptDecision, decision.OptQuote:
		default:
			return a, usagef("unknown option %q", name)
		}
		if !hasVal {
			if i+1 >= len(argv) {
				if name == decision.OptDecision || name == decision.OptQuote {
					a.Decisions = append(a.Decisions, decision.Arg{Opt: name, Missing: true})
					continue
				}
				return a, usagef("%s needs a value", name)
			}
			i++
			val = argv[i]
		}
		switch name {
		case "--repo", "--stage", "--base", "--head", "--out", "--subject":
			if seen[name] {
				return a, usagef("%s given more than once", name)
			}
			seen[name] = true
		}
		switch name {
		case "--repo":
			a.Repo = val
		case "--stage":
			a.Stage = val
		case "--base":
			a.Base = val
		case "--head":
			a.Head = val
		case "--out":
			a.Out = val
		case "--subject":
			a.Subject, a.HasSubject = val, true
		case "--criteria":
			a.Criteria = append(a.Criteria, val)
		case "--rules":
			a.Rules = append(a.Rules, val)
		case "--check-path":
			a.CheckPaths = append(a.CheckPaths, val)
		case "--standpoint":
			sp, err := standpoint.Split(val)
			if err != nil {
				return a, &UsageError{Msg: err.Error()}
			}
			a.Standpoints = append(a.Standpoints, sp)
		case decision.OptDecision, decision.OptQuote:
			a.Decisions = append(a.Decisions, decision.Arg{Opt: name, Value: val})
		}
	}
	if a.Help {
		return a, nil
	}
	// G31: the stage is a stage name of the contract.
	if a.Stage == "" {
		return a, usagef("--stage is required (plan, plan-delta or code)")
	}
	ok := false
	for _, s := range Stages {
		ok = ok || a.Stage == s
	}
	if !ok {
		return a, usagef("--stage %q is not a stage (plan, plan-delta or code)", a.Stage)
	}
	for _, req := range []struct{ name, val string }{{"--base", a.Base}, {"--head", a.Head}, {"--out", a.Out}} {
		if !seen[req.name] {
			return a, usagef("%s is required", req.name)
		}
	}
	return a, nil
}
