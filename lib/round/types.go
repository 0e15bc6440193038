// Package round holds the review-round/v1 records of a round folder and a
// series (docs/review-round.md §7): round.json, findings.json, ledger.jsonl,
// waivers.jsonl and the series' extensions.jsonl. spar-exec writes the first
// round.json (without finished_at); spar-record writes everything after it;
// spar-gate only reads.
package round

import (
	"path/filepath"

	"github.com/jaekit/spar/lib/envelope"
)

// Schema is the schema of round.json and findings.json.
const Schema = "review-round/v1"

// File names inside a round folder (G20 reserves them as reviewer names).
const (
	RoundFile     = "round.json"
	PacketFile    = "packet.md"
	SchemaFile    = "schema.json"
	FindingsFile  = "findings.json"
	LedgerFile    = "ledger.jsonl"
	SummaryFile   = "summary.md"
	WaiversFile   = "waivers.jsonl"
	WorkspaceDir  = "workspace"
	ExtensionFile = "extensions.jsonl" // in the series folder
	LockFile      = ".lock"            // in the series folder
)

// Record is round.json.
type Record struct {
	Schema         string                `json:"schema"` // review-round/v1
	Name           string                `json:"name"`   // the round folder's name
	Series         string                `json:"series"` // absolute series folder when written
	Repo           string                `json:"repo"`   // absolute repository root
	Stage          string                `json:"stage"`  // plan, plan-delta, code
	Base           string                `json:"base"`   // full commit IDs
	Head           string                `json:"head"`
	DryRun         bool                  `json:"dry_run"`
	Workspace      string                `json:"workspace,omitempty"` // real path the <round>/workspace link names (see WorkspacePath)
	StartedAt      string                `json:"started_at"`
	FinishedAt     *string               `json:"finished_at"`     // null until spar-record publishes the round
	FindingsSHA256 *string               `json:"findings_sha256"` // sha256 of findings.json's bytes, with finished_at
	PacketSHA256   string                `json:"packet_sha256"`
	SchemaSHA256   string                `json:"schema_sha256"`
	Cap            envelope.Cap          `json:"cap"`
	Config         envelope.Config       `json:"config"`
	CheckPaths     []string              `json:"check_paths"` // config.check_paths plus --check-path
	Documents      []envelope.Document   `json:"documents"`
	Links          Links                 `json:"links"`
	CriteriaDigest string                `json:"criteria_digest"`
	Decisions      []envelope.Decision   `json:"decisions"`
	Standpoints    []envelope.Standpoint `json:"standpoints"`
	// StandpointsUncovered names reviewers with a standpoint and no completed review.
	StandpointsUncovered []string          `json:"standpoints_uncovered"`
	Changes              []envelope.Change `json:"changes"`
	// Excluded are the changed files the project configuration's exclude
	// left out of Changes and the packet (absent when none).
	Excluded  []string   `json:"excluded,omitempty"`
	Reviewers []Reviewer `json:"reviewers"`
	Counts    Counts     `json:"counts"`
	// Usage is the round's total of tokens and cost over every reviewer's
	// attempts (SumUsage); null in records written before it existed.
	Usage *UsageTotal `json:"usage"`
	// Recording is set only while spar-record publishes the round: the
	// writes it has staged in .recording/ and will make, so that the next
	// writer of the series finishes them (docs/review-round.md §1, "Crashes roll forward", recording.go).
	// Absent in a published round.json.
	Recording *Recording `json:"recording,omitempty"`
	// CommittedCheckPaths are the check_paths of the head commit's
	// .jaekit/spar.toml (run.committed_check_paths); null in records
	// written before it existed.
	CommittedCheckPaths []string `json:"committed_check_paths"`
	// DirtyInputs are the inputs read from the working tree that differ
	// from the head commit's version (run.dirty_inputs): the gate blocks
	// on a round that has any (docs/review-gate.md).
	DirtyInputs []envelope.DirtyInput `json:"dirty_inputs"`
	// FollowUp is run.follow_up of a follow-up round (docs/review-round.md
	// §2.4); absent for a first-round packet and in older records.
	FollowUp *envelope.FollowUp `json:"follow_up,omitempty"`
}

// Links is what link confirmation was checked against.
type Links struct {
	Rules       []RuleLink `json:"rules"`
	CriteriaIDs []string   `json:"criteria_ids"`
}

// RuleLink is one rule document as G8 sees it.
type RuleLink struct {
	Names    []string `json:"names"` // G26 name, real absolute path
	FileName string   `json:"file_name"`
	Lines    int      `json:"lines"` // G8 line count
}

// Reviewer is one reviewer of the run, in the applied order.
type Reviewer struct {
	Name             string                     `json:"name"`
	Preset           string                     `json:"preset"`
	Isolation        string                     `json:"isolation"`
	Required         bool                       `json:"required"`
	Status           string                     `json:"status"`
	Reason           string                     `json:"reason"` // "" when completed
	Model            *string                    `json:"model"`
	FallbackModel    *string                    `json:"fallback_model"`
	Effort           *string                    `json:"effort"`
	ObservedModel    *string                    `json:"observed_model"` // G12: null when unknown
	Version          string                     `json:"version"`
	TimeoutSeconds   int                        `json:"timeout_seconds"`
	Attempts         []envelope.Attempt         `json:"attempts"`
	Resets           *string                    `json:"resets"`
	Warnings         []envelope.Warning         `json:"warnings"`
	Verdict          *string                    `json:"verdict"`
	AnglesChecked    []AngleItem                `json:"angles_checked"`
	AnglesUnchecked  []AngleItem                `json:"angles_unchecked"`
	Limits           *string                    `json:"limits"`
	Standpoint       *string                    `json:"standpoint"`
	StandpointReport *envelope.StandpointReport `json:"standpoint_report"`
	Findings         int                        `json:"findings"`
	// CompletedIn names the round of the same input whose completed review
	// this reviewer kept (status not_run in a rerun), or null.
	CompletedIn *string `json:"completed_in"`
	// RunStatus and RunReason are the run's own status and reason before the
	// result check (runs[].status): what `spar record` loads back so that
	// spar-check decides the final status again. Absent in records that
	// predate them: the final status is used.
	RunStatus string `json:"run_status,omitempty"`
	RunReason string `json:"run_reason,omitempty"`
	// Tools are the tools and item kinds seen in the run (G10).
	Tools []string `json:"tools,omitempty"`
	// RecordedFrom is how spar record took a native result: "transcript"
	// or "result" (envelope.ReviewerRun.RecordedFrom); absent otherwise.
	RecordedFrom string `json:"recorded_from,omitempty"`
	// Usage is the total of this reviewer's attempts (SumUsage); null in
	// records written before it existed.
	Usage *UsageTotal `json:"usage"`
	// Sandbox is what confined the reviewer's processes (docs/sandbox.md),
	// or "none: <why>"; absent when spar started none.
	Sandbox string `json:"sandbox,omitempty"`
	// Env names the environment variables its last process got
	// (envelope.ReviewerRun.Env); absent when spar started none or passed
	// its whole environment.
	Env []string `json:"env,omitempty"`
}

// NeedsWorkspace reports whether a reviewer of the round can still need the
// workspace: a native reviewer still pending (its subagent reads the
// workspace, then spar record records it). spar removes the workspace once
// none is (docs/review-round.md "The workspace").
func (r *Record) NeedsWorkspace() bool {
	for _, rv := range r.Reviewers {
		if rv.Preset == envelope.PresetNative && rv.Status == envelope.StatusPending {
			return true
		}
	}
	return false
}

// IncompleteRequired are the required reviewers of the round that neither
// completed it nor kept a completed review of the same input (a rerun's
// not_run with completed_in): what fails a CI job's own review
// (spar-record verdict --require-complete, docs/usage.md §7).
func (r *Record) IncompleteRequired() []Reviewer {
	var out []Reviewer
	for _, rv := range r.Reviewers {
		if !rv.Required || rv.Status == envelope.StatusCompleted || rv.Status == envelope.StatusNotRun && rv.CompletedIn != nil {
			continue
		}
		out = append(out, rv)
	}
	return out
}

// WorkspacePath is where the round's reviewers read the copies. Workspace
// is the real path of the workspace, in spar's cache folder outside every
// repository; <round>/workspace is a symbolic link to it and dangles once
// spar removed it (docs/review-round.md "The workspace"). A dry run has
// none; a round that predates the field had the folder <dir>/workspace.
func (r *Record) WorkspacePath(dir string) string {
	if r.Workspace != "" {
		return r.Workspace
	}
	return filepath.Join(dir, WorkspaceDir)
}

// AngleItem is one item of angles_checked ({angle, result}) or
// angles_unchecked ({angle, reason}), as received (G4): the key the item
// has is kept, an empty string included.
type AngleItem struct {
	Angle  string  `json:"angle"`
	Result *string `json:"result,omitempty"`
	Reason *string `json:"reason,omitempty"`
}

// Counts is the number of findings per class.
type Counts struct {
	Defect              int `json:"defect"`
	RequirementQuestion int `json:"requirement-question"`
	Hardening           int `json:"hardening"`
	Note                int `json:"note"`
}

// Findings is findings.json.
type Findings struct {
	Schema   string             `json:"schema"`
	Round    string             `json:"round"`
	Findings []envelope.Finding `json:"findings"`
}

// LedgerEntry is one line of ledger.jsonl. The last line for a finding decides.
type LedgerEntry struct {
	Finding     string `json:"finding"`
	Disposition string `json:"disposition"` // fixed rejected duplicate deferred accepted answered
	Auto        bool   `json:"auto,omitempty"`
	Commit      string `json:"commit,omitempty"`
	Of          string `json:"of,omitempty"`
	// OfRound names the round that holds the finding Of (as given: ID or
	// ROUND/ID) by the rule of docs/review-round.md §8: finding IDs repeat
	// across rounds, so a duplicate also names where it was found.
	OfRound      string `json:"of_round,omitempty"`
	Evidence     string `json:"evidence,omitempty"`
	To           string `json:"to,omitempty"`
	UserQuote    string `json:"user_quote,omitempty"`
	FailedBefore string `json:"failed_before,omitempty"`
	PassedAfter  string `json:"passed_after,omitempty"`
	// Check is what spar ran to verify a fixed line (spar triage --check,
	// docs/review-round.md "Verified fix claims"); nil when the claim is
	// only the agent's words.
	Check *FixCheck `json:"check,omitempty"`
	At    string    `json:"at"`
}

// ChecksDir is the folder of a round that holds the outputs of its
// verified fix checks, one folder per ledger line's check
// (<finding>-<n>). Its name starts with a dot, which no reviewer name
// does (G20): it never meets a reviewer's folder. The round's signature
// leaves it out, like the ledger that names it.
const ChecksDir = ".checks"

// FixCheck is the record of one verified fix claim: the command, the
// check files, both sides' runs (two each: a check whose runs of the same
// tree differ is flaky and verifies nothing), where they ran, and the
// project's own check command at both commits when it names one.
type FixCheck struct {
	// Command is the shell command line, run as sh -c.
	Command string `json:"command"`
	// Head is the head of the finding's round (the before side's tree);
	// Fix is the fix commit (the after side's), the line's commit.
	Head string `json:"head"`
	Fix  string `json:"fix"`
	// Files are the check files: what the fix commit adds or changes under
	// the committed check paths, taken from it into the before side.
	Files []CheckFile `json:"files"`
	// CheckPaths are the globs Files were chosen by (the fix commit's
	// committed check_paths).
	CheckPaths     []string `json:"check_paths"`
	TimeoutSeconds int      `json:"timeout_seconds"`
	// Sandbox is what the launcher applied; Network is "closed: <how>"
	// or "open: <why>" (a check never verifies with an open network
	// under verify_fixes = "required").
	Sandbox string     `json:"sandbox"`
	Network string     `json:"network"`
	Before  []CheckRun `json:"before"`
	After   []CheckRun `json:"after"`
	// Regression is the project's check_command at the round's head and
	// at the fix (nil when the project names none).
	Regression *Regression `json:"regression,omitempty"`
}

// CheckFile is one check file: its path and its blob at the round's head
// ("" when the head lacks it) and at the fix commit.
type CheckFile struct {
	Path   string `json:"path"`
	AtHead string `json:"at_head"`
	AtFix  string `json:"at_fix"`
}

// CheckRun is one run of a check: its exit status (128+n for a signal),
// how long it took, and its output (stdout and stderr together) kept as
// a file of the round: Output is its path in the round folder, Bytes how
// much the check wrote, SHA256 the digest of the file (its tail when the
// output was cut). TimedOut: the time limit ended it; Cut: the file keeps
// only the tail.
type CheckRun struct {
	Exit       int    `json:"exit"`
	DurationMS int64  `json:"duration_ms"`
	Output     string `json:"output"`
	SHA256     string `json:"sha256"`
	Bytes      int64  `json:"bytes"`
	TimedOut   bool   `json:"timed_out,omitempty"`
	Cut        bool   `json:"cut,omitempty"`
}

// Regression is the project's check_command run once at the round's head
// and once at the fix. Allowed holds the user's words of
// --allow-regression when it passed at the head and fails at the fix.
type Regression struct {
	Command string   `json:"command"`
	AtHead  CheckRun `json:"at_head"`
	AtFix   CheckRun `json:"at_fix"`
	Allowed string   `json:"allowed,omitempty"`
}

// Waiver is one line of waivers.jsonl.
type Waiver struct {
	Reviewer  string `json:"reviewer"`
	Preset    string `json:"preset"`
	UserQuote string `json:"user_quote"`
	At        string `json:"at"`
}

// Extension is one line of the series' extensions.jsonl.
type Extension struct {
	Stage  string `json:"stage"` // plan, plan-delta, code
	By     int    `json:"by"`
	Cause  string `json:"cause,omitempty"`
	Reason string `json:"reason,omitempty"`
	At     string `json:"at"`
}

// Add counts one finding of class; a class outside the four counts nowhere.
func (c *Counts) Add(class string) {
	switch class {
	case envelope.ClassDefect:
		c.Defect++
	case envelope.ClassRequirementQuestion:
		c.RequirementQuestion++
	case envelope.ClassHardening:
		c.Hardening++
	case envelope.ClassNote:
		c.Note++
	}
}
