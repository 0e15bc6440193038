// Package gate decides whether a change may pass (docs/review-gate.md: the
// blocked reasons of §3, G27–G29, G32, and the freshness rules of §8). It only reads records: it never locks (G33) and never
// writes anything (the caller writes --out). Every blocked reason is one
// line that names the series, the round and the finding, reviewer or
// document, and the command that clears it.
package gate

import (
	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/growth"
)

// Schema is the schema of the gate record.
const Schema = "review-gate/v1"

// States of the gate.
const (
	Passed  = "passed"
	Blocked = "blocked"
)

// Record is the review-gate/v1 record `spar gate` prints and writes to --out.
type Record struct {
	Schema  string   `json:"schema"`
	State   string   `json:"state"`
	Reasons []string `json:"reasons"`
	// ReasonDetails are the reasons as data, in the same order: each one's
	// code (reasons.go) beside its problem and what clears it.
	ReasonDetails     []ReasonDetail `json:"reason_details"`
	Rounds            []RoundRef     `json:"rounds"`
	RequiredReviewers []Required     `json:"required_reviewers"`
	// RequiredSources say, per series with a counted round, where its
	// required reviewers came from (trust.go required), so that the
	// laptop's gate and CI's can be compared.
	RequiredSources []RequiredSource `json:"required_sources"`
	Findings        ClassCounts      `json:"findings"`
	AutoDeferred    int              `json:"auto_deferred"`
	Growth          []Growth         `json:"growth"`
	// Head is the gate's head of the first series and where it came from
	// (docs/review-gate.md §3: --expect-head, else the repository's HEAD).
	Head       *Head       `json:"head"`
	ExpectHead *ExpectHead `json:"expect_head"`
	// Signers are, per series whose rounds were checked against signers,
	// where the keys came from and whether only signed rounds count;
	// absent when no series had any.
	Signers []Signers `json:"signers,omitempty"`
	// ExpectBase is --expect-base, only when given.
	ExpectBase *ExpectBase `json:"expect_base,omitempty"`
	// Credits are the heads the gate credited by content with a round
	// that reviewed another commit (rebase.go), only when there is one.
	Credits []Credit `json:"credits,omitempty"`
	// FixClaims are the fixed lines of the gated code rounds' defects,
	// each verified by a check or not (fixcheck.go); absent when there is
	// none.
	FixClaims []FixClaim `json:"fix_claims,omitempty"`
	// PreviousGateDigest is the sha256 of the bytes of the gate record that
	// --out replaced (G28), or null.
	PreviousGateDigest *string `json:"previous_gate_digest"`
	DecidedAt          string  `json:"decided_at"`
}

// RoundRef is one round of the list, in the given order. An unreadable
// round keeps only dir, series and name.
type RoundRef struct {
	Dir     string `json:"dir"`
	Series  string `json:"series"`
	Name    string `json:"name"`
	Stage   string `json:"stage"`
	Base    string `json:"base"`
	Head    string `json:"head"`
	Counted bool   `json:"counted"`
	// Signature is the round's signature as the gate checked it, only
	// when the gate had signers (docs/review-gate.md §4).
	Signature *RoundSignature `json:"signature,omitempty"`
}

// Required is one required reviewer of a series: configured_required of the
// series' latest counted round.
type Required struct {
	Series string `json:"series"`
	Name   string `json:"name"`
	Preset string `json:"preset"`
	// Status is completed, waived or missing.
	Status string `json:"status"`
	// Round is the round where it completed or was waived; null when missing.
	Round *string `json:"round"`
}

// RequiredSource is where one series' required reviewers came from
// (required_reviewers is their union): the configured_required its latest
// counted round recorded, with the user configuration that round read, and
// the required reviewers of the configuration the gate itself read, with
// its source (both null when it cannot be read).
type RequiredSource struct {
	Series        string                      `json:"series"`
	Round         string                      `json:"round"`
	RoundSource   ConfigSource                `json:"round_source"`
	RoundRequired []envelope.RequiredReviewer `json:"round_required"`
	GateSource    *ConfigSource               `json:"gate_source"`
	GateRequired  []envelope.RequiredReviewer `json:"gate_required"`
}

// ConfigSource is a user configuration's source: its kind (SPAR_CONFIG,
// XDG_CONFIG_HOME, HOME, clean-review, default) and path ("" for the
// default list).
type ConfigSource struct {
	Kind string `json:"kind"`
	Path string `json:"path"`
}

// Status values of a required reviewer.
const (
	ReviewerCompleted = "completed"
	ReviewerWaived    = "waived"
	ReviewerMissing   = "missing"
)

// Count is the findings of one class in the listed rounds.
type Count struct {
	Open   int `json:"open"`
	Closed int `json:"closed"`
}

// ClassCounts is Count per class.
type ClassCounts struct {
	Defect              Count `json:"defect"`
	RequirementQuestion Count `json:"requirement-question"`
	Hardening           Count `json:"hardening"`
	Note                Count `json:"note"`
}

// Growth is one counted code round's growth (G24).
type Growth struct {
	Series     string      `json:"series"`
	Round      string      `json:"round"`
	From       string      `json:"from"`
	To         string      `json:"to"`
	CheckPaths growth.Side `json:"check_paths"`
	Other      growth.Side `json:"other"`
	// Error says why git could not measure it ("" when measured).
	Error string `json:"error,omitempty"`
}

// ExpectHead is --expect-head as given and the commit it resolved to (G27)
// in the repository of the first series (null when it does not resolve).
type ExpectHead struct {
	Rev    string  `json:"rev"`
	Commit *string `json:"commit"`
}

// ExpectBase is --expect-base as given, the commit it resolved to and its
// merge base with the gate's head, where the change the reviews must cover
// starts (in the repository of the first series; null when either does not
// resolve).
type ExpectBase struct {
	Rev       string  `json:"rev"`
	Commit    *string `json:"commit"`
	MergeBase *string `json:"merge_base"`
}

// Sources of the gate's head.
const (
	HeadFromExpect = "expect-head"
	HeadFromRepo   = "repository HEAD"
)

// Head is the gate's head: the commit the rounds are held against (null
// when it does not resolve) and its source, HeadFromExpect or HeadFromRepo.
type Head struct {
	Commit *string `json:"commit"`
	Source string  `json:"source"`
}

// FixClaim is one code-round defect's deciding fixed line: the round, the
// finding and the fix commit, whether a check verified it (a check record
// that re-derives, run with the network closed), the check's command and
// network when the line carries one, and why it is not verified.
type FixClaim struct {
	Series   string `json:"series"`
	Round    string `json:"round"`
	Finding  string `json:"finding"`
	Commit   string `json:"commit"`
	Verified bool   `json:"verified"`
	Command  string `json:"command,omitempty"`
	Network  string `json:"network,omitempty"`
	Why      string `json:"why,omitempty"`
	// Rerun is what the gate's own run of the check gave under
	// --rerun-checks: "verified", or why it did not verify the fix
	// (absent without --rerun-checks or without a check).
	Rerun string `json:"rerun,omitempty"`
	// r is the claim's round (the notes ask whether its finding closed).
	r *roundData
}
