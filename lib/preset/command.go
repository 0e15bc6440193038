package preset

import (
	"strings"

	"github.com/jaekit/spar/lib/envelope"
)

// command: the configured argv with {prompt}, {workspace} and {schema}
// replaced anywhere inside an argument, any other {…} left as is (G21);
// stdin is /dev/null and stdout, whole, is the result (docs/review-round.md §4). Not
// monitored: its isolation grade is unverified. There is no version check:
// an arbitrary program need not understand --version.
type command struct{}

func (command) Name() string          { return envelope.PresetCommand }
func (command) Isolation() string     { return "unverified" }
func (command) VersionArgs() []string { return nil }

// Substitute replaces the three placeholders in one pass, so that text a
// path brings in is never replaced again.
func Substitute(argv []string, prompt, workspace, schema string) []string {
	r := strings.NewReplacer("{prompt}", prompt, "{workspace}", workspace, "{schema}", schema)
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = r.Replace(a)
	}
	return out
}

func (command) Invoke(c Call) Invocation {
	args := Substitute(c.Argv, c.Prompt, c.Workspace, c.SchemaPath)
	args[0] = c.Exe
	return Invocation{Args: args}
}

func (command) NewMonitor() Monitor { return &commandMonitor{} }

// commandMonitor takes stdout whole, byte for byte, once the process ended.
type commandMonitor struct {
	out []byte
}

func (m *commandMonitor) Line([]byte) Signal { return Signal{} }

func (m *commandMonitor) Stdout(b []byte) { m.out = b }

func (m *commandMonitor) Finish() Outcome {
	o := Outcome{Tools: []string{}}
	// G1: stdout is the result as given, empty included; spar-check decides
	// (an empty result is invalid_output for every consumer alike).
	s := string(m.out)
	o.Result = &s
	return o
}
