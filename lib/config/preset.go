package config

import "github.com/jaekit/spar/lib/envelope"

// Preset is one row of the preset table of docs/pipeline.md "The applied reviewers", plus the keys
// the preset uses (G21).
type Preset struct {
	Name          string
	Isolation     string // verified, host, unverified
	Required      bool
	Model         string // "" when the preset has none
	FallbackModel string
	Effort        string
	// Keys the preset uses besides name, preset and timeout_seconds.
	UsesBinary, UsesModel, UsesEffort, UsesArgv bool
	// Priced: the output states a spend spar can price while the
	// reviewer runs (claude, codex), so the entry takes budget_usd.
	Priced bool
}

// Presets in the contract's order.
var Presets = []Preset{
	{Name: envelope.PresetClaude, Isolation: "verified", Required: true, Model: "opus", Effort: "high", UsesBinary: true, UsesModel: true, UsesEffort: true, Priced: true},
	{Name: envelope.PresetCodex, Isolation: "verified", Required: true, Model: "gpt-6-astra", Effort: "high", UsesBinary: true, UsesModel: true, UsesEffort: true, Priced: true},
	// agy does not use effort.
	{Name: envelope.PresetAgy, Isolation: "verified", Required: true, Model: "gemini-4-argon-high", FallbackModel: "gemini-3.8-flash-high", UsesBinary: true, UsesModel: true},
	{Name: envelope.PresetNative, Isolation: "host", Required: true},
	{Name: envelope.PresetCommand, Isolation: "unverified", Required: false, UsesArgv: true},
}

// LookupPreset returns the preset named name (literal comparison).
func LookupPreset(name string) (Preset, bool) {
	for _, p := range Presets {
		if p.Name == name {
			return p, true
		}
	}
	return Preset{}, false
}

// DefaultList is the reviewer list when no source names one (docs/pipeline.md "User source").
var DefaultList = []string{envelope.PresetClaude, envelope.PresetCodex, envelope.PresetAgy}

// DefaultTimeoutSeconds is spar's time limit for a reviewer when no file
// sets timeout_seconds (the contract gives none; docs/pipeline.md §3).
const DefaultTimeoutSeconds = 1800

// Angles is the fixed order of the five angles (docs/pipeline.md "Project configuration", G22).
var Angles = []string{"requirement-counterexample", "side-effects", "design", "premises", "check-validity"}

// DefaultCaps are the project caps when .jaekit/spar.toml sets none (docs/pipeline.md "Project configuration").
const (
	DefaultCapPlan      = 1
	DefaultCapPlanDelta = 1
	DefaultCapCode      = 3
)
