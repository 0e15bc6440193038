package packet

import (
	"github.com/jaekit/spar/lib/decision"
	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/exitcode"
)

// Args are spar-packet's run arguments as given (its command line is read
// by the stage layer, stage/sparpacket).
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
	Decisions   []decision.Arg // in command-line order, for pairing (G35)
	Standpoints []envelope.Standpoint
	DryRun      bool
	// Full (--full) gives a code round the first round's packet even when
	// its series has reviewed rounds (lib/followup).
	Full bool
	// HasBase, HasHead, HasOut: the option was given, also with an empty
	// value (Prepare judges the values).
	HasBase, HasHead, HasOut bool
}

// Stages are the stage names of the contract (G31).
var Stages = []string{"plan", "plan-delta", "code"}

// Check checks the arguments a command line must give: --stage is a stage
// name of the contract (G31), --base, --head and --out are there. A fault
// is a usage error (64); Prepare judges the values.
func (a *Args) Check() error {
	if a.Stage == "" {
		return exitcode.Usagef("--stage is required (plan, plan-delta or code)")
	}
	ok := false
	for _, s := range Stages {
		ok = ok || a.Stage == s
	}
	if !ok {
		return exitcode.Usagef("--stage %q is not a stage (plan, plan-delta or code)", a.Stage)
	}
	for _, req := range []struct {
		name  string
		given bool
	}{{"--base", a.HasBase}, {"--head", a.HasHead}, {"--out", a.HasOut}} {
		if !req.given {
			return exitcode.Usagef("%s is required", req.name)
		}
	}
	return nil
}
