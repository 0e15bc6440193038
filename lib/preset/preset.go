// Package preset holds the five reviewer presets of docs/review-round.md §4 (G10, G12,
// G14, G21): for each one, the argv it runs, how the reviewer's input is fed,
// and how its output is read: which tools it used (G10), which model the
// output states (G12), the error messages scanned for refusals (docs/review-round.md
// "Refusal phrases"), and
// the result. Parsing is tolerant of events it does not know (a newer CLI
// adds some) and strict about the result: only the final result event of the
// CLI's documented form is a result.
package preset

import (
	"fmt"
	"strings"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/escape"
)

// Call is what one attempt of a reviewer needs to build its invocation.
type Call struct {
	Exe        string  // the resolved executable (G14)
	Model      *string // this attempt's model (the fallback model on a second attempt)
	Effort     *string // nil or "" is not passed (G21)
	Input      envelope.Input
	Argv       []string // command only: the configured argv
	Prompt     string   // absolute path substituted for {prompt}
	Workspace  string   // absolute <round>/workspace
	SchemaPath string   // absolute <round>/schema.json
	SchemaText string   // schema.json's text
	// TimeoutSeconds is the reviewer's time limit (agy passes it on as
	// --print-timeout); 0 for none.
	TimeoutSeconds int
	// Confined says that spar's Landlock sandbox will confine the process
	// (lib/sandbox.Confines, decided before the attempt starts;
	// docs/sandbox.md): codex then runs without a sandbox of its own.
	Confined bool
}

// Invocation is the process one attempt runs.
type Invocation struct {
	Args  []string // Args[0] is the executable
	Stdin *string  // nil: /dev/null
	// Confined: the invocation relies on spar's Landlock sandbox (codex's
	// --sandbox danger-full-access); the launcher refuses to start it
	// when the ruleset cannot be applied after all.
	Confined bool
}

// Outcome is what a monitor read from the output once the process ended.
type Outcome struct {
	Result        *string  // the result text; nil when the output has none
	ObservedModel *string  // G12: nil when the output states none
	Tools         []string // G10: tools and item kinds seen, first appearance order
	Errors        []string // error messages of the output (scanned for refusal phrases, G13)
	Problem       string   // why Result is nil ("" when it is not)
	// Usage is what the output states of tokens and cost, nil for nothing.
	Usage *envelope.Usage
	// Failure is why the run failed as the output itself states it
	// (codex's turn.failed), "" when it states none. It explains a
	// failed attempt before stderr's last line, which may be incidental
	// logging (docs/review-round.md §4).
	Failure string
	// Warnings are what the output warns of, each kind once (kind and
	// tool only, never content: codex's "error" items).
	Warnings []envelope.Warning
	// Invalid marks an output whose CLI itself gave up on the answer's
	// format (claude's error_max_structured_output_retries): the reviewer
	// answered outside the format, invalid_output with Problem as reason.
	Invalid bool
}

// Signal is what one stdout line tells the runner while the reviewer runs.
type Signal struct {
	// Violation is a tool_violation reason (G10, G11): the runner stops
	// the reviewer at once.
	Violation string
	// Retry is the message of an event in which the CLI says it will try
	// a refused request again (claude's system/api_retry, codex's
	// "Reconnecting…" errors). When the message holds a refusal phrase of
	// docs/review-round.md "Refusal phrases" (lib/refusal decides), the runner stops the attempt at
	// once and records the refusal: a quota refusal must not cost the
	// time limit.
	Retry string
	// Calls is how many tool calls this line began (a claude message may
	// hold several tool_use blocks, a codex command item or an agy tool
	// step is one), and Last the last one as a short line ("Read
	// /ws/head/app/main.go"): the runner counts them for the progress
	// heartbeat (docs/review-round.md "Progress"). They never change a
	// status.
	Calls int
	Last  string
	// Spend is the attempt's spend so far as this line states it (nil:
	// the line states none): the runner holds it against the budgets
	// (docs/review-round.md "Spend and budgets").
	Spend *Spend
}

// Spend is an attempt's spend so far, in US dollars, counted from what its
// output has stated up to a line.
type Spend struct {
	USD float64
	// Unpriced says why some stated tokens could not be priced (a model
	// not in lib/spend's table), "" when all were.
	Unpriced string
	// End: the line ends the turn (claude's result event, codex's
	// turn.completed): the spend is the attempt's whole and nothing is
	// left to stop.
	End bool
}

// Pricer is a Monitor that prices tokens at the model the attempt asked
// for, because its output does not name the model (codex); the runner
// gives it the attempt's model before the first line.
type Pricer interface {
	PriceAs(model *string)
}

// Activity is a Signal of only tool calls: Calls is 0 for nothing.
func (s Signal) Activity() bool { return s.Calls > 0 }

// callLine is one tool call as a progress line: the tool's name and its
// main argument, on one line and at most 120 bytes of it.
func callLine(name, arg string) string {
	arg = strings.Join(strings.Fields(arg), " ")
	if len(arg) > 120 {
		arg = escape.Prefix(arg, 120) + "…"
	}
	if arg == "" {
		return name
	}
	return name + " " + arg
}

// Monitor reads one attempt's stdout line by line while it runs.
type Monitor interface {
	// Line gets each stdout line (without its newline) as it arrives.
	Line(line []byte) Signal
	// Finish returns what the output held once the process ended.
	Finish() Outcome
}

// WholeStdout is a Monitor that takes the whole stdout (at most the
// runner's cap) once the process ended, before Finish: command, whose
// result is its stdout byte for byte.
type WholeStdout interface {
	Stdout(b []byte)
}

// WholeStderr is a Monitor that takes the attempt's stderr (at most the
// runner's cap) once the process ended, before Finish: agy states why a
// turn failed on stderr's AGY_ERROR line, not in its stream.
type WholeStderr interface {
	Stderr(b []byte)
}

// Preset is one of claude, codex, agy, native, command.
type Preset interface {
	Name() string
	// Isolation is the preset's grade (the preset table, docs/pipeline.md "The applied reviewers").
	Isolation() string
	// Invoke builds the process of one attempt.
	Invoke(c Call) Invocation
	// VersionArgs are the arguments of the version check, nil for none.
	VersionArgs() []string
	NewMonitor() Monitor
}

// Get returns the preset of a name (G21's five).
func Get(name string) (Preset, error) {
	switch name {
	case envelope.PresetClaude:
		return claude{}, nil
	case envelope.PresetCodex:
		return codex{}, nil
	case envelope.PresetAgy:
		return agy{}, nil
	case envelope.PresetNative:
		return native{}, nil
	case envelope.PresetCommand:
		return command{}, nil
	}
	return nil, fmt.Errorf("unknown preset %q", name)
}

func set(p *string) bool { return p != nil && *p != "" }

// tools keeps the distinct names in first-appearance order.
type tools struct {
	seen map[string]bool
	list []string
}

func (t *tools) add(name string) {
	if t.seen == nil {
		t.seen = map[string]bool{}
	}
	if !t.seen[name] {
		t.seen[name] = true
		t.list = append(t.list, name)
	}
}

func (t *tools) names() []string {
	if t.list == nil {
		return []string{}
	}
	return t.list
}

func str(s string) *string { return &s }

// oneOf lists allowed names for a reason: "Read, Grep or Glob".
func oneOf(names []string) string {
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// firstLine is the first line of s, for a one-line reason.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
