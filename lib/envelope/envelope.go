// Package envelope holds the Go types of the keys that flow down the stage
// pipeline (docs/pipeline.md §1). Each key has exactly one owning
// stage; every other stage only reads it. Stages never import each other:
// they share these types.
package envelope

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// ---------------------------------------------------------------- config
// Owner: spar-config. The applied configuration record (docs/pipeline.md
// §1), exactly what `spar config` prints, and `config` in round.json.

type Config struct {
	Source             Source             `json:"source"`
	Override           *Override          `json:"override"`
	Choices            []Choice           `json:"choices"`
	ConfiguredRequired []RequiredReviewer `json:"configured_required"`
	Files              []ConfigFile       `json:"files"`
	Reviewers          []Reviewer         `json:"reviewers"`
	Angles             []string           `json:"angles"`
	Caps               Caps               `json:"caps"`
	CheckPaths         []string           `json:"check_paths"`
	// Exclude are the project configuration's exclude globs: files the
	// packet leaves out of its file list (never out of the workspace).
	// Absent when the configuration has none, so that records and digests
	// without it stay as they were.
	Exclude []string `json:"exclude,omitempty"`
	Rules   []string `json:"rules"`
	Digest  string   `json:"digest"`
	// BudgetUSD is the user configuration's top-level budget_usd: the
	// most the round's reviewers may spend together, in US dollars
	// (docs/review-round.md "Spend and budgets"). Absent when not written,
	// so that records and digests without it stay as they were.
	BudgetUSD *float64 `json:"budget_usd,omitempty"`

	// ConfiguredNames are the names of every reviewer the user
	// configuration determines, whatever --reviewers picked. They are not
	// part of the record (docs/pipeline.md §1 lists its fields): spar-config
	// passes them in the envelope key "configured_reviewers" so that
	// spar-packet accepts a standpoint for a configured reviewer this run
	// omits ("Standpoint arguments": the union of the configured reviewers
	// and --reviewers).
	ConfiguredNames []string `json:"-"`
}

// Source says where the reviewer list came from.
type Source struct {
	Kind    string   `json:"kind"` // SPAR_CONFIG, XDG_CONFIG_HOME, HOME, clean-review, default
	Path    string   `json:"path"` // "" for default
	Skipped []string `json:"skipped"`
	Note    string   `json:"note"`
}

type Override struct {
	Kind  string   `json:"kind"` // "--reviewers"
	Names []string `json:"names"`
}

// Choice is one --model or --effort value the agent gave, as received.
type Choice struct {
	Reviewer string `json:"reviewer"`
	Key      string `json:"key"` // model, effort
	Value    string `json:"value"`
}

type RequiredReviewer struct {
	Name   string `json:"name"`
	Preset string `json:"preset"`
}

type ConfigFile struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

// Reviewer is one applied reviewer. Fields a preset does not use are null.
type Reviewer struct {
	Name           string   `json:"name"`
	Preset         string   `json:"preset"`    // claude codex agy native command
	Isolation      string   `json:"isolation"` // verified host unverified
	Required       bool     `json:"required"`
	Model          *string  `json:"model"`
	FallbackModel  *string  `json:"fallback_model"`
	Effort         *string  `json:"effort"`
	Binary         *string  `json:"binary"`
	Argv           []string `json:"argv"`
	TimeoutSeconds int      `json:"timeout_seconds"`
	// claude, codex, agy only (effort_* for claude and codex only).
	ModelSource    string   `json:"model_source,omitempty"`  // user, agent, preset
	EffortSource   string   `json:"effort_source,omitempty"` // user, agent, preset
	DefaultModel   *string  `json:"default_model,omitempty"`
	DefaultEffort  *string  `json:"default_effort,omitempty"`
	AllowedModels  []string `json:"allowed_models,omitempty"`
	AllowedEfforts []string `json:"allowed_efforts,omitempty"`
	// Env names the variables (or prefixes ending in *) the reviewer's
	// process gets beyond its preset's (spar's own entry key, docs/sandbox.md
	// "The environment"); absent when the entry names none.
	Env []string `json:"env,omitempty"`
	// BudgetUSD is the entry's budget_usd: the most one attempt of the
	// reviewer may spend, in US dollars (spar's own key); absent when not
	// written.
	BudgetUSD *float64 `json:"budget_usd,omitempty"`
}

type Caps struct {
	Plan      int `json:"plan"`
	PlanDelta int `json:"plan_delta"`
	Code      int `json:"code"`
}

// ---------------------------------------------------------------- run
// Owner: spar-packet. The normalized run arguments.

type Run struct {
	Repo           string       `json:"repo"`  // absolute repository root (working tree)
	Stage          string       `json:"stage"` // plan, plan-delta, code
	Base           string       `json:"base"`  // full commit ID
	Head           string       `json:"head"`  // full commit ID
	Out            string       `json:"out"`   // absolute round folder (does not exist yet)
	Series         string       `json:"series"`
	Name           string       `json:"name"` // round name: base name of Out
	DryRun         bool         `json:"dry_run"`
	CheckPaths     []string     `json:"check_paths"` // config.check_paths plus --check-path
	Documents      []Document   `json:"documents"`
	CriteriaIDs    []string     `json:"criteria_ids"`
	CriteriaDigest string       `json:"criteria_digest"`
	Decisions      []Decision   `json:"decisions"`
	Standpoints    []Standpoint `json:"standpoints"`
	Changes        []Change     `json:"changes"` // files changed base..head
	// Excluded are the changed files config.exclude left out of Changes
	// (the packet's file list), by path; absent when none.
	Excluded []string `json:"excluded,omitempty"`

	// CommittedCheckPaths are the check_paths of the head commit's
	// .jaekit/spar.toml ([] when it lists none or has no such file): a class
	// that holds only through a check path outside them does not count for
	// the gate (docs/trust.md "Inputs the agent can edit"). Null in records
	// written before it existed: every check path then counts as committed.
	CommittedCheckPaths []string `json:"committed_check_paths"`
	// DirtyInputs are the inputs read from the working tree that differ
	// from the head commit's version of their path (docs/trust.md).
	DirtyInputs []DirtyInput `json:"dirty_inputs"`

	// Replay is set when the round's base is a replay commit (lib/replay:
	// git's replay of a reviewed head onto a new base, which the gate
	// writes for a residual, docs/review-gate.md §3): the packet then says
	// so, and names the files where the replay conflicted. Absent for any
	// other base.
	Replay *ReplayBase `json:"replay,omitempty"`

	// FollowUp is set for a follow-up code round (lib/followup,
	// docs/review-round.md §2.4): a code round of a series that already
	// has a published round with a completed review; absent otherwise and
	// with spar run --full. round.json keeps it as it is.
	FollowUp *FollowUp `json:"follow_up,omitempty"`
	// EarlierFindings are the earlier rounds' findings with what was
	// decided about them, and DeltaDiff the diff from FollowUp.Since to the
	// head (cut at followup.DiffLimit: DeltaDiffCut), as the follow-up
	// packet shows them: spar-packet's alone, never in the envelope
	// (packet.md holds them; round.json keeps only the IDs,
	// FollowUp.Earlier).
	EarlierFindings []EarlierFinding `json:"-"`
	DeltaDiff       string           `json:"-"`
	DeltaDiffCut    bool             `json:"-"`
}

// ReplayBase is what a round's base is when it is a replay commit: the
// new base (its first parent), the reviewed head replayed onto it (its
// second parent), and the files where git's replay conflicted (holding
// git's conflict markers at the base).
type ReplayBase struct {
	Onto      string   `json:"onto"`
	Reviewed  string   `json:"reviewed"`
	Conflicts []string `json:"conflicts"`
}

// FollowUp is what a follow-up round knows of its series when spar-packet
// builds it.
type FollowUp struct {
	// Full is true when spar run --full gave this round the first round's
	// packet although the series had reviewed rounds: Since, Delta and
	// Earlier are then empty, and nothing is linked as a repeat.
	Full bool `json:"full,omitempty"`
	// Since is the last reviewed head (full commit ID): the head of the
	// latest earlier round in which every required reviewer completed a
	// review or was waived; "" when no earlier round was reviewed so.
	Since string `json:"since"`
	// SinceRound names that round ("" with Since "").
	SinceRound string `json:"since_round"`
	// Delta are the files changed from Since to the head (the part to
	// attack first), filtered as Changes are; [] without Since.
	Delta []Change `json:"delta"`
	// Earlier are the qualified IDs (<round>/<finding>) of every finding of
	// the earlier rounds, in series order: a finding whose reviewer id is
	// one of them is a repeat (Finding.RepeatOf).
	Earlier []string `json:"earlier"`
}

// EarlierFinding is one finding of an earlier round as the follow-up
// packet shows it.
type EarlierFinding struct {
	Round    string    `json:"round"`
	Finding  string    `json:"finding"`
	Reviewer string    `json:"reviewer"`
	Class    string    `json:"class"`
	Location string    `json:"location"`
	Claim    string    `json:"claim"`
	Evidence string    `json:"evidence"`
	RepeatOf *RepeatOf `json:"repeat_of,omitempty"`
	// Disposition is the ledger's last line for it, nil without one.
	Disposition *Disposition `json:"disposition,omitempty"`
}

// DispositionUnknown is a Disposition's kind when its round's ledger.jsonl
// does not read back (G32).
const DispositionUnknown = "unknown"

// Disposition is a ledger line as the follow-up packet shows it.
type Disposition struct {
	Kind         string `json:"kind"` // fixed rejected duplicate deferred accepted answered, or DispositionUnknown
	Auto         bool   `json:"auto,omitempty"`
	Commit       string `json:"commit,omitempty"`
	Of           string `json:"of,omitempty"`
	Evidence     string `json:"evidence,omitempty"`
	To           string `json:"to,omitempty"`
	UserQuote    string `json:"user_quote,omitempty"`
	FailedBefore string `json:"failed_before,omitempty"`
	PassedAfter  string `json:"passed_after,omitempty"`
	// Check is the verified fix claim's check as the follow-up packet
	// shows it (nil: no check ran).
	Check *CheckShown `json:"check,omitempty"`
}

// CheckShown is a fix's check as reviewers see it: the command, the check
// files and their diff from the round's head to the fix, each side's exit
// codes and its first run's output tail, the network it ran with, and
// whether the record verifies the fix (Refusal: why not).
type CheckShown struct {
	Command     string   `json:"command"`
	Network     string   `json:"network"`
	Files       []string `json:"files"`
	Diff        string   `json:"diff,omitempty"`
	DiffCut     bool     `json:"diff_cut,omitempty"`
	BeforeExits []int    `json:"before_exits"`
	AfterExits  []int    `json:"after_exits"`
	BeforeTail  string   `json:"before_tail"`
	AfterTail   string   `json:"after_tail"`
	Refusal     string   `json:"refusal,omitempty"`
}

// RepeatOf names the earlier finding a finding restates.
type RepeatOf struct {
	Round   string `json:"round"`
	Finding string `json:"finding"`
}

// DirtyInput is one input of the run that is a file of the repository and
// differs from the head commit's version of its path: the project
// configuration or a round document (docs/trust.md "Inputs the agent can
// edit"). Path is the repository path that was compared.
type DirtyInput struct {
	Path string `json:"path"`
	Role string `json:"role"` // config, rule, criteria, subject
	// Change is "modified" (both have it, with other bytes), "not in the
	// head commit" (only the working tree has it), "deleted" (only the head
	// commit has it) or "not a regular file in the head commit".
	Change string `json:"change"`
}

// Document is one round document (G26): a rule, a criteria document or the
// subject. Lines split the text on "\n": joining them with "\n" gives the
// exact bytes back (review-freshness: fragments stored as source lines).
type Document struct {
	Role      string `json:"role"`   // rule, criteria, subject
	Origin    string `json:"origin"` // config (project rules) or argument
	Name      string `json:"name"`   // repository path inside the repository, file name outside
	Path      string `json:"path"`   // real absolute path
	FileName  string `json:"file_name"`
	SHA256    string `json:"sha256"`
	LineCount int    `json:"line_count"` // G8: newlines, plus one when the last line has none
	Lines     Lines  `json:"lines"`
}

// Lines are a document's lines. They decode as a []string does; an array
// of strings in valid UTF-8 (what spar writes) is read with gjson, every
// line a piece of one copy of the array's text instead of a string of its
// own: the gate reads the documents of every round of a series
// (TestLinesDecodeAsStrings holds the two readings to each other).
type Lines []string

func (l *Lines) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '[' && utf8.Valid(b) {
		arr := gjson.ParseBytes(b)
		out := make([]string, 0, 16)
		ok := true
		arr.ForEach(func(_, v gjson.Result) bool {
			if v.Type != gjson.String {
				ok = false
				return false
			}
			out = append(out, v.Str)
			return true
		})
		if ok {
			*l = out
			return nil
		}
	}
	return json.Unmarshal(b, (*[]string)(l))
}

// Decision is one --decision/--decision-quote pair (G35), kept as received.
type Decision struct {
	Decision string `json:"decision"`
	Quote    string `json:"quote"`
}

type Standpoint struct {
	Reviewer string `json:"reviewer"`
	Text     string `json:"text"`
}

// Change is one file changed between base and head.
type Change struct {
	Path      string `json:"path"`
	OldPath   string `json:"old_path,omitempty"` // renames
	Status    string `json:"status"`             // A M D R T
	Added     int    `json:"added"`              // -1 for binary
	Deleted   int    `json:"deleted"`            // -1 for binary
	CheckPath bool   `json:"check_path"`
}

// ---------------------------------------------------------------- packet
// Owner: spar-packet.

type Packet struct {
	Markdown string  `json:"markdown"` // packet.md, byte for byte
	SHA256   string  `json:"sha256"`   // of Markdown
	Schema   string  `json:"schema"`   // schema.json text
	Inputs   []Input `json:"inputs"`   // one per reviewer of the run, applied order
}

// Input is what one reviewer receives.
type Input struct {
	Reviewer string `json:"reviewer"`
	Preset   string `json:"preset"`
	// Text is the reviewer's input: stdin for claude and codex, the -p
	// argument for agy, the {prompt} file for command, prompt.md for native.
	Text string `json:"text"`
	// Files are written into <round>/<reviewer>/ (input.md, prompt.md, PACKET.md).
	Files []NamedText `json:"files"`
	// PromptFile is the round-relative path substituted for {prompt}
	// (command) and named in agy's large-packet reference: "packet.md" or
	// "<reviewer>/input.md".
	PromptFile string `json:"prompt_file"`
}

type NamedText struct {
	Name string `json:"name"`
	Text string `json:"text"`
}

// ---------------------------------------------------------------- round
// Owner: spar-exec.

type Round struct {
	Dir       string `json:"dir"` // absolute round folder
	Series    string `json:"series"`
	Name      string `json:"name"`
	StartedAt string `json:"started_at"` // RFC 3339 UTC
	DryRun    bool   `json:"dry_run"`
	Cap       Cap    `json:"cap"`
	// Workspace is the real path of the round's workspace (docs/review-round.md "The workspace":
	// <round>/workspace links to it), absent in a dry run.
	Workspace string `json:"workspace,omitempty"`
}

// Cap is the cap decision (docs/review-round.md §8.6).
type Cap struct {
	Stage   string  `json:"stage"`   // plan, plan_delta, code (cap key)
	Counted bool    `json:"counted"` // false for dry runs and reruns
	Number  int     `json:"number"`  // this round's count in the stage (0 when not counted)
	Limit   int     `json:"limit"`   // cap + extensions
	RerunOf *string `json:"rerun_of"`
	// NotCounted is why a round the decision counted is recorded as not
	// counted (lib/series.Settle: "no reviewer could start"); absent
	// otherwise (records from before it: counted as decided).
	NotCounted *string `json:"not_counted,omitempty"`
}

// ---------------------------------------------------------------- runs
// Owner: spar-exec (and spar-record's loader for `spar record`).

// The preset names of a reviewer (docs/pipeline.md §3; round.json
// reviewers[].preset): lib/preset implements each, lib/config lists them.
const (
	PresetClaude  = "claude"
	PresetCodex   = "codex"
	PresetAgy     = "agy"
	PresetNative  = "native"
	PresetCommand = "command"
)

// The statuses of a reviewer's run (docs/review-round.md §4): lib/runner ends a run
// with one, lib/resultcheck decides the final one from the result. Both
// name these.
const (
	StatusCompleted     = "completed"
	StatusFailed        = "failed"
	StatusUnavailable   = "unavailable"
	StatusTimedOut      = "timed_out"
	StatusToolViolation = "tool_violation"
	StatusInvalidOutput = "invalid_output"
	StatusPending       = "pending"
	StatusNotRun        = "not_run"
)

type ReviewerRun struct {
	Reviewer       string    `json:"reviewer"`
	Preset         string    `json:"preset"`
	Status         string    `json:"status"` // completed failed unavailable timed_out tool_violation pending not_run
	Reason         string    `json:"reason"`
	Model          *string   `json:"model"` // asked (designated)
	Effort         *string   `json:"effort"`
	ObservedModel  *string   `json:"observed_model"` // G12: null when unknown
	Version        string    `json:"version"`
	TimeoutSeconds int       `json:"timeout_seconds"`
	Attempts       []Attempt `json:"attempts"`
	Resets         *string   `json:"resets"`
	Warnings       []Warning `json:"warnings"`
	Tools          []string  `json:"tools"`  // tools and item kinds seen (G10)
	Result         *string   `json:"result"` // raw result text, nil when none
	// CompletedIn names the round of the same input where this reviewer
	// completed (series.Decision.Completed): a rerun does not run it again
	// (status not_run) and round.json keeps the name as completed_in.
	CompletedIn *string `json:"completed_in,omitempty"`
	// Sandbox is what confined the reviewer's processes (docs/sandbox.md):
	// "landlock ABI 7; pid namespace", or "none: <why>"; absent when spar
	// started no process for it.
	Sandbox string `json:"sandbox,omitempty"`
	// Env names the environment variables the reviewer's last process got
	// (docs/sandbox.md "The environment"), sorted, never their values;
	// absent when spar started no process for it or passed its whole
	// environment (SPAR_SANDBOX=off).
	Env []string `json:"env,omitempty"`
	// RecordedFrom says how `spar record` took a native reviewer's result:
	// "transcript" (the final message of --transcript) or "result" (the
	// file --result names, written by whoever ran spar record). Empty for
	// a reviewer spar ran itself. The gate counts a native review only
	// from a transcript without warnings (docs/review-gate.md, docs/trust.md "The gate").
	RecordedFrom string `json:"recorded_from,omitempty"`
}

type Attempt struct {
	Model         *string `json:"model"`
	Effort        *string `json:"effort"`
	StartedAt     string  `json:"started_at"`
	FinishedAt    string  `json:"finished_at"`
	ExitCode      *int    `json:"exit_code"`
	Status        string  `json:"status"`
	Reason        string  `json:"reason"`
	ObservedModel *string `json:"observed_model,omitempty"` // absent when unknown (G12)
	Resets        *string `json:"resets"`
	// Usage is what the reviewer's output states of tokens and cost; null
	// when it states nothing (docs/review-round.md §7.4).
	Usage *Usage `json:"usage"`
	// Executable is the program this attempt ran, after the PATH lookup
	// (G14): a reviewer named claude that is some other program on PATH
	// shows as such. Null when none was resolved.
	Executable *Executable `json:"executable"`
	// Spend is what spar counted of the attempt's spend while it ran
	// (docs/review-round.md "Spend and budgets"); absent when no budget
	// applied (neither the round's nor the reviewer's budget_usd).
	Spend *Spend `json:"spend,omitempty"`
}

// Spend is one attempt's spend as spar counted it against a budget.
type Spend struct {
	// USD is the attempt's spend in US dollars: the CLI's own final cost
	// when it states one, else its tokens priced by lib/spend's table.
	USD float64 `json:"usd"`
	// BudgetUSD is the attempt's own budget (the entry's budget_usd), null
	// when it has none (only the round's applies).
	BudgetUSD *float64 `json:"budget_usd"`
	// Unpriced says why part of the spend is unknown in dollars (a model
	// not in the price table): the budget could not be enforced for it.
	// Absent when every statement was priced.
	Unpriced string `json:"unpriced,omitempty"`
}

// Usage is one attempt's token counts and cost as its output states them;
// each field is null when the output does not state it.
type Usage struct {
	InputTokens      *int64   `json:"input_tokens"`
	OutputTokens     *int64   `json:"output_tokens"`
	CacheReadTokens  *int64   `json:"cache_read_tokens"`
	CacheWriteTokens *int64   `json:"cache_write_tokens"`
	CostUSD          *float64 `json:"cost_usd"`
}

// Spent reports whether u states any figure above zero: tokens or cost
// spent. A nil u, or one stating only nulls and zeros (claude's refusal
// result: total_cost_usd 0), spent nothing.
func (u *Usage) Spent() bool {
	if u == nil {
		return false
	}
	for _, v := range []*int64{u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheWriteTokens} {
		if v != nil && *v > 0 {
			return true
		}
	}
	return u.CostUSD != nil && *u.CostUSD > 0
}

// Add sums u into t field by field: a field stays null only when it is
// null in both.
func (t *Usage) Add(u *Usage) {
	if u == nil {
		return
	}
	addI := func(dst **int64, v *int64) {
		if v == nil {
			return
		}
		if *dst == nil {
			*dst = new(int64)
		}
		**dst += *v
	}
	addI(&t.InputTokens, u.InputTokens)
	addI(&t.OutputTokens, u.OutputTokens)
	addI(&t.CacheReadTokens, u.CacheReadTokens)
	addI(&t.CacheWriteTokens, u.CacheWriteTokens)
	if u.CostUSD != nil {
		if t.CostUSD == nil {
			t.CostUSD = new(float64)
		}
		*t.CostUSD += *u.CostUSD
	}
}

// Executable is the resolved program of an attempt: its absolute path, the
// sha256 of its bytes and its version line ("" when there is no version
// check or it printed nothing).
type Executable struct {
	Path    string `json:"path"`
	SHA256  string `json:"sha256"`
	Version string `json:"version"`
}

// Warning keeps only a kind and a tool name, never a path or content (G15).
type Warning struct {
	Kind string `json:"kind"`
	Tool string `json:"tool,omitempty"`
}

// ---------------------------------------------------------------- results
// Owner: spar-check.

type Result struct {
	Reviewer         string            `json:"reviewer"`
	Status           string            `json:"status"` // final status
	Reason           string            `json:"reason"`
	Verdict          *string           `json:"verdict"`
	Result           json.RawMessage   `json:"result"` // the checked result object, null unless it passed G1–G6
	Standpoint       *string           `json:"standpoint"`
	StandpointReport *StandpointReport `json:"standpoint_report"`
}

type StandpointReport struct {
	Checked bool   `json:"checked"`
	Detail  string `json:"detail"`
}

// ---------------------------------------------------------------- findings
// Owner: spar-classify.

// The four classes of a finding (docs/review-round.md §6.1; G9: proposed_class is one of
// them, and classification gives one of them). Every package that names a
// class uses these.
const (
	ClassDefect              = "defect"
	ClassRequirementQuestion = "requirement-question"
	ClassHardening           = "hardening"
	ClassNote                = "note"
)

// Classes are the four classes in the order records count them.
var Classes = []string{ClassDefect, ClassRequirementQuestion, ClassHardening, ClassNote}

type Finding struct {
	ID                 string        `json:"id"` // <reviewer>-F<n>
	Reviewer           string        `json:"reviewer"`
	ReviewerID         string        `json:"reviewer_id"`
	ProposedClass      string        `json:"proposed_class"`
	Angle              string        `json:"angle"`
	Location           string        `json:"location"`
	Claim              string        `json:"claim"`
	FailureScenario    string        `json:"failure_scenario"`
	Evidence           string        `json:"evidence"`
	IntroducedByChange string        `json:"introduced_by_change"`
	Regression         string        `json:"regression"`
	CheckImpact        string        `json:"check_impact"`
	Confidence         string        `json:"confidence"`
	SmallestFix        string        `json:"smallest_fix"`
	Path               string        `json:"path"`
	LineStart          *int          `json:"line_start"`
	LineEnd            *int          `json:"line_end"`
	InCheckPaths       bool          `json:"in_check_paths"`
	LocationUnreadable bool          `json:"location_unreadable"`
	LinkKind           string        `json:"link_kind"` // confirmed kind or none
	Link               string        `json:"link"`      // confirmed link or ""
	ClaimedLinkKind    string        `json:"claimed_link_kind"`
	ClaimedLink        string        `json:"claimed_link"`
	LinkFragment       *LinkFragment `json:"link_fragment"`
	Class              string        `json:"class"`
	ClassReason        string        `json:"class_reason"`

	// CheckPath is the check path glob the location matched ("" when it is
	// in no check path): a glob of the committed configuration when one
	// matches, else the first that matches. CheckPathCommitted says whether
	// the head commit's .jaekit/spar.toml lists it.
	CheckPath          string `json:"check_path"`
	CheckPathCommitted bool   `json:"check_path_committed"`
	// CommittedClass is the class by the committed check paths alone: the
	// same as Class unless the location is only in a check path the head
	// commit's configuration does not list. The gate blocks on a finding
	// that does not block only because of such a glob (docs/review-gate.md).
	CommittedClass string `json:"committed_class"`
	// RepeatOf is set when the reviewer gave, as the finding's id, the
	// qualified id of a finding of an earlier round its follow-up packet
	// listed (run.follow_up.earlier): it restates that finding. Absent
	// otherwise, and in records written before it.
	RepeatOf *RepeatOf `json:"repeat_of,omitempty"`
}

// LinkFragment is the exact cited lines of a confirmed link with lines.
type LinkFragment struct {
	Document string   `json:"document"` // the document's name (G26) or head path
	Start    int      `json:"start"`
	End      int      `json:"end"`
	Lines    []string `json:"lines"`
}

// ---------------------------------------------------------------- recorded
// Owner: spar-record.

type Recorded struct {
	Round string   `json:"round"` // absolute round folder
	Files []string `json:"files"` // round-relative names written
}

// reviewerRunJSON is ReviewerRun's JSON form. A result that is not valid
// UTF-8 cannot be a JSON string as received (the encoder would replace the
// bad bytes with U+FFFD and the check would see another value), so it
// travels as result_base64 and comes back byte for byte; spar-check then
// refuses it (G1: not a JSON text).
type reviewerRunJSON struct {
	reviewerRunAlias
	ResultBase64 []byte `json:"result_base64,omitempty"`
}

type reviewerRunAlias ReviewerRun

// MarshalJSON keeps the result's bytes exactly (see reviewerRunJSON).
func (r ReviewerRun) MarshalJSON() ([]byte, error) {
	j := reviewerRunJSON{reviewerRunAlias: reviewerRunAlias(r)}
	if r.Result != nil && !utf8.ValidString(*r.Result) {
		j.ResultBase64 = []byte(*r.Result)
		j.Result = nil
	}
	// No HTML escaping, as every spar record (pipe.Marshal).
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(j); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// UnmarshalJSON reads both forms of the result.
func (r *ReviewerRun) UnmarshalJSON(b []byte) error {
	var j reviewerRunJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*r = ReviewerRun(j.reviewerRunAlias)
	if j.ResultBase64 != nil {
		s := string(j.ResultBase64)
		r.Result = &s
	}
	return nil
}
