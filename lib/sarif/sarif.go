// Package sarif exports the findings of gated rounds as SARIF 2.1.0, so that
// code hosts (GitHub code scanning and other SARIF viewers) show spar's
// findings on the change. docs/pipeline.md ("SARIF export") tabulates every
// mapping below.
package sarif

import (
	"fmt"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/round"
)

// Version and SchemaURI name the SARIF version written.
const (
	Version   = "2.1.0"
	SchemaURI = "https://json.schemastore.org/sarif-2.1.0.json"
)

// State is what the gate decided about one finding.
type State struct {
	Disposition string // last ledger disposition, "" when none
	Closed      bool   // closes the finding for the gate (duplicate chains followed)
	Detail      string // commit, evidence, target, user's words: the justification's detail
}

// Round is one gated round with its findings and their states.
type Round struct {
	Series   string // series folder name, for automation IDs
	Record   *round.Record
	Findings []envelope.Finding
	States   map[string]State // by finding ID
}

// Log is a SARIF log. Only the properties spar writes are modelled.
type Log struct {
	Schema  string `json:"$schema"`
	Version string `json:"version"`
	Runs    []Run  `json:"runs"`
}

type Run struct {
	Tool              Tool               `json:"tool"`
	AutomationDetails *AutomationDetails `json:"automationDetails,omitempty"`
	OriginalURIBaseID map[string]URIBase `json:"originalUriBaseIds,omitempty"`
	Results           []Result           `json:"results"`
	Properties        map[string]any     `json:"properties,omitempty"`
}

type URIBase struct {
	URI string `json:"uri"`
}

type AutomationDetails struct {
	ID string `json:"id"`
}

type Tool struct {
	Driver Driver `json:"driver"`
}

type Driver struct {
	Name           string         `json:"name"`
	InformationURI string         `json:"informationUri,omitempty"`
	Rules          []Rule         `json:"rules"`
	Properties     map[string]any `json:"properties,omitempty"`
}

type Rule struct {
	ID               string  `json:"id"`
	Name             string  `json:"name"`
	ShortDescription Message `json:"shortDescription"`
	DefaultConfig    *Config `json:"defaultConfiguration,omitempty"`
}

type Config struct {
	Level string `json:"level"`
}

type Message struct {
	Text string `json:"text"`
}

type Result struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           int               `json:"ruleIndex"`
	Level               string            `json:"level"`
	Message             Message           `json:"message"`
	Locations           []Location        `json:"locations,omitempty"`
	PartialFingerprints map[string]string `json:"partialFingerprints"`
	Suppressions        []Suppression     `json:"suppressions,omitempty"`
	Properties          map[string]any    `json:"properties"`
}

type Location struct {
	PhysicalLocation PhysicalLocation `json:"physicalLocation"`
}

type PhysicalLocation struct {
	ArtifactLocation ArtifactLocation `json:"artifactLocation"`
	Region           *Region          `json:"region,omitempty"`
}

type ArtifactLocation struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId,omitempty"`
}

type Region struct {
	StartLine int `json:"startLine"`
	EndLine   int `json:"endLine,omitempty"`
}

type Suppression struct {
	Kind          string `json:"kind"`
	Status        string `json:"status"`
	Justification string `json:"justification"`
}

// FingerprintKey is the partialFingerprints key: the finding's round and ID
// stay the same however often the log is exported, so viewers track it.
const FingerprintKey = "sparFinding/v1"

// classLevel is a finding's SARIF level by its class.
var classLevel = map[string]string{
	"defect":               "error",
	"requirement-question": "warning",
	"hardening":            "note",
	"note":                 "note",
}

var classText = map[string]string{
	"defect":               "a defect the change must not keep",
	"requirement-question": "a question about the requirement for the user",
	"hardening":            "hardening that makes the change sturdier",
	"note":                 "a note",
}

// Export builds the SARIF log: one run per reviewer of each round, in the
// order of the rounds and the round's reviewers.
func Export(rounds []Round) Log {
	log := Log{Schema: SchemaURI, Version: Version, Runs: []Run{}}
	for _, r := range rounds {
		byReviewer := map[string][]envelope.Finding{}
		for _, f := range r.Findings {
			byReviewer[f.Reviewer] = append(byReviewer[f.Reviewer], f)
		}
		for _, rv := range r.Record.Reviewers {
			log.Runs = append(log.Runs, reviewerRun(r, rv, byReviewer[rv.Name]))
		}
	}
	return log
}

func reviewerRun(r Round, rv round.Reviewer, findings []envelope.Finding) Run {
	props := map[string]any{"preset": rv.Preset, "status": rv.Status}
	if rv.Model != nil {
		props["model"] = *rv.Model
	}
	if rv.ObservedModel != nil {
		props["observed_model"] = *rv.ObservedModel
	}
	if rv.Version != "" {
		props["version"] = rv.Version
	}
	run := Run{
		Tool: Tool{Driver: Driver{
			Name:       "spar/" + rv.Name,
			Rules:      []Rule{},
			Properties: props,
		}},
		AutomationDetails: &AutomationDetails{ID: fmt.Sprintf("spar/%s/%s/%s/", r.Series, r.Record.Name, rv.Name)},
		OriginalURIBaseID: map[string]URIBase{"%SRCROOT%": {URI: "file:///"}},
		Results:           []Result{},
		Properties: map[string]any{
			"round": r.Record.Name, "stage": r.Record.Stage,
			"base": r.Record.Base, "head": r.Record.Head,
		},
	}
	if r.Record.Repo != "" {
		run.OriginalURIBaseID["%SRCROOT%"] = URIBase{URI: "file://" + r.Record.Repo + "/"}
	}
	ruleIndex := map[string]int{}
	for _, f := range findings {
		id := f.Class + "/" + f.Angle
		if _, ok := ruleIndex[id]; !ok {
			ruleIndex[id] = len(run.Tool.Driver.Rules)
			run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, Rule{
				ID:               id,
				Name:             f.Class + " (" + f.Angle + ")",
				ShortDescription: Message{Text: fmt.Sprintf("%s found from the %s angle", classText[f.Class], f.Angle)},
				DefaultConfig:    &Config{Level: classLevel[f.Class]},
			})
		}
		run.Results = append(run.Results, result(r, f, id, ruleIndex[id]))
	}
	return run
}

func result(r Round, f envelope.Finding, ruleID string, idx int) Result {
	st := r.States[f.ID]
	props := map[string]any{
		"id": f.ID, "class": f.Class, "class_reason": f.ClassReason,
		"proposed_class": f.ProposedClass, "angle": f.Angle,
		"location": f.Location, "failure_scenario": f.FailureScenario,
		"evidence": f.Evidence, "confidence": f.Confidence,
		"check_impact": f.CheckImpact, "link_kind": f.LinkKind, "link": f.Link,
		"location_unreadable": f.LocationUnreadable, "in_check_paths": f.InCheckPaths,
		"disposition": st.Disposition,
	}
	if f.SmallestFix != "" {
		props["smallest_fix"] = f.SmallestFix
	}
	res := Result{
		RuleID:              ruleID,
		RuleIndex:           idx,
		Level:               classLevel[f.Class],
		Message:             Message{Text: f.Claim},
		PartialFingerprints: map[string]string{FingerprintKey: r.Record.Name + "/" + f.ID},
		Properties:          props,
	}
	if res.Level == "" {
		res.Level = "note"
	}
	// An unreadable location, or the repository root, has no physical place.
	if !f.LocationUnreadable && f.Path != "" {
		loc := Location{PhysicalLocation: PhysicalLocation{
			ArtifactLocation: ArtifactLocation{URI: f.Path, URIBaseID: "%SRCROOT%"},
		}}
		if f.LineStart != nil && *f.LineStart > 0 {
			reg := &Region{StartLine: *f.LineStart}
			if f.LineEnd != nil && *f.LineEnd >= *f.LineStart {
				reg.EndLine = *f.LineEnd
			}
			loc.PhysicalLocation.Region = reg
		}
		res.Locations = []Location{loc}
	}
	if st.Closed {
		just := st.Disposition
		if st.Detail != "" {
			just += ": " + st.Detail
		}
		res.Suppressions = []Suppression{{Kind: "external", Status: "accepted", Justification: just}}
	}
	return res
}
