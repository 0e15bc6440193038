// Package sarif exports the findings of gated rounds as SARIF 2.1.0, so that
// code hosts (GitHub code scanning and other SARIF viewers) show spar's
// findings on the change. docs/pipeline.md ("SARIF export") tabulates every
// mapping below.
package sarif

import (
	"fmt"
	"github.com/jaekit/spar/lib/version"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/packet"
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
	Blocks      bool   // open, and the gate blocks on it (lib/gate owns the rule)
	Detail      string // commit, evidence, target, user's words: the justification's detail
}

// Round is one gated round with its findings and their states.
type Round struct {
	Series   string // series folder name, for automation IDs
	Dir      string // the round folder's path as the gate read it ("": the record's series/name)
	Record   *round.Record
	Findings []envelope.Finding
	States   map[string]State // by finding ID
	// GatedHead is the head the gate checked, when it is not the round's
	// own head: a finding's lines are shown where they read at it, through
	// Lines (the diff from the round's head, lib/gitx.LineMap).
	GatedHead string
	Lines     interface {
		Map(path string, start, end int) (string, int, int, bool)
	}
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
	Version        string         `json:"version"`
	InformationURI string         `json:"informationUri"`
	Rules          []Rule         `json:"rules"`
	Properties     map[string]any `json:"properties,omitempty"`
}

type Rule struct {
	ID               string  `json:"id"`
	Name             string  `json:"name"`
	ShortDescription Message `json:"shortDescription"`
	FullDescription  Message `json:"fullDescription"`
	Help             Help    `json:"help"`
	DefaultConfig    *Config `json:"defaultConfiguration,omitempty"`
}

// Help is a rule's help: plain text, and the same in Markdown.
type Help struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown"`
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

// FingerprintKey is the partialFingerprints key. Its value is the
// <round>/<id> of the first finding of the finding's chain of repeats and
// duplicates (Roots): the same however often the log is exported, and the
// same for a finding and its repeats, so viewers track it as one.
const FingerprintKey = "sparFinding/v1"

// classLevel is a finding's SARIF level by its class: error for the two
// classes whose open findings block the gate, as rdjsonl's ERROR and Code
// Quality's blocker and major; a result the gate blocks on is an error
// whatever its class (a hardening finding that blocks as its committed
// class, docs/review-gate.md 9c).
var classLevel = map[string]string{
	envelope.ClassDefect:              "error",
	envelope.ClassRequirementQuestion: "error",
	envelope.ClassHardening:           "note",
	envelope.ClassNote:                "note",
}

var classText = map[string]string{
	envelope.ClassDefect:              "a defect the change must not keep",
	envelope.ClassRequirementQuestion: "a question about the requirement for the user",
	envelope.ClassHardening:           "hardening that makes the change sturdier",
	envelope.ClassNote:                "a note",
}

// classGate says what spar's gate does with an open finding of the class
// (docs/review-gate.md, "Why a finding is open"), for a rule's help.
var classGate = map[string]string{
	envelope.ClassDefect:              "An open defect blocks spar's gate until it is triaged: fixed by a commit the gated head contains, rejected with evidence, accepted or deferred in the user's words, or marked a duplicate of a finding closed so.",
	envelope.ClassRequirementQuestion: "An open requirement-question blocks spar's gate until the user answers it, or it is rejected with evidence, deferred in the user's words, or marked a duplicate of a finding closed so.",
	envelope.ClassHardening:           "Hardening never blocks spar's gate; unless triaged it is deferred automatically.",
	envelope.ClassNote:                "A note never blocks spar's gate.",
}

// rule is the reporting descriptor of the findings of one class and angle.
// GitHub code scanning requires fullDescription and help on every rule
// (the SARIF Multitool's GH2012); both say in words what the class means,
// which question of the angle found it and what the gate does with it.
func rule(class, angle string) Rule {
	ct := classText[class]
	if ct == "" {
		ct = "a finding of class " + class
	}
	gate := classGate[class]
	if gate == "" {
		gate = "spar's gate decides by the finding's class."
	}
	found := fmt.Sprintf("The reviewer found it from the %s angle", angle)
	if q := packet.AngleSentence(angle); q != "" {
		found += ", whose question is: " + q
	} else {
		found += "."
	}
	full := fmt.Sprintf("spar classified the finding %s. %s", ct, found)
	text := full + " " + gate + " Each result's properties keep the reviewer's failure scenario, evidence and smallest fix; `spar gate` prints the spar triage command that closes an open finding."
	md := fmt.Sprintf("**%s** (`%s`): spar classified the finding %s.\n\n%s\n\n%s\n\nEach result's properties keep the reviewer's failure scenario, evidence and smallest fix; `spar gate` prints the `spar triage` command that closes an open finding.",
		class, class+"/"+angle, ct, found, gate)
	return Rule{
		ID:               class + "/" + angle,
		Name:             class + " (" + angle + ")",
		ShortDescription: Message{Text: fmt.Sprintf("%s found from the %s angle", ct, angle)},
		FullDescription:  Message{Text: full},
		Help:             Help{Text: text, Markdown: md},
		DefaultConfig:    &Config{Level: level(class)},
	}
}

func level(class string) string {
	if l := classLevel[class]; l != "" {
		return l
	}
	return "note" // the SARIF level, not the class

}

// Export builds the SARIF log: one run per reviewer of each round, in the
// order of the rounds and the round's reviewers.
func Export(rounds []Round) Log {
	log := Log{Schema: SchemaURI, Version: Version, Runs: []Run{}}
	roots := Roots(rounds)
	for _, r := range rounds {
		byReviewer := map[string][]envelope.Finding{}
		for _, f := range r.Findings {
			byReviewer[f.Reviewer] = append(byReviewer[f.Reviewer], f)
		}
		for _, rv := range r.Record.Reviewers {
			log.Runs = append(log.Runs, reviewerRun(r, rv, byReviewer[rv.Name], roots))
		}
	}
	return log
}

func reviewerRun(r Round, rv round.Reviewer, findings []envelope.Finding, roots map[string]string) Run {
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
			Name:           "spar/" + rv.Name,
			Version:        ToolVersion(),
			InformationURI: InformationURI,
			Rules:          []Rule{},
			Properties:     props,
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
		run.OriginalURIBaseID["%SRCROOT%"] = URIBase{URI: fileURI(r.Record.Repo) + "/"}
	}
	ruleIndex := map[string]int{}
	for _, f := range findings {
		id := f.Class + "/" + f.Angle
		if _, ok := ruleIndex[id]; !ok {
			ruleIndex[id] = len(run.Tool.Driver.Rules)
			run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, rule(f.Class, f.Angle))
		}
		run.Results = append(run.Results, result(r, f, id, ruleIndex[id], roots[r.Record.Name+"/"+f.ID]))
	}
	return run
}

func result(r Round, f envelope.Finding, ruleID string, idx int, root string) Result {
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
	lvl := level(f.Class)
	if st.Blocks {
		lvl = "error"
	}
	res := Result{
		RuleID:              ruleID,
		RuleIndex:           idx,
		Level:               lvl,
		Message:             Message{Text: f.Claim},
		PartialFingerprints: map[string]string{FingerprintKey: root},
		Properties:          props,
	}
	loc, gone := location(r, f)
	res.Locations = []Location{loc}
	if gone != "" {
		// The file is kept without the finding's lines, and the result
		// says why.
		res.Message.Text += " (" + gone + ")"
		props["region"] = gone
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

// location is where a code host shows the finding. GitHub code scanning
// needs a physical location on every result (the SARIF Multitool's GH1015,
// GH1017), and one with a region (SARIF2017):
//   - a finding with a path: the path under %SRCROOT% (the round's
//     repository), with its lines; a location without lines is given line 1,
//     the start of the file or folder it names;
//   - an unreadable location or the repository root (empty path) has no
//     place in the change: it is shown at the round's findings.json, which
//     holds it, relative to the repository when the round folder lies inside
//     it (as reviews/ does), else by its absolute file URI.
//
// properties.location keeps the reviewer's words either way.
//
// When the gate checked a later head than the round's (GatedHead), a
// finding on the round's head is shown where its lines read at the gated
// head (renames followed, lines shifted); when they no longer exist there
// (changed, deleted, the file gone) the result keeps its file with no region
// of those lines (line 1, the file's start: GitHub needs a region), and gone
// says so.
func location(r Round, f envelope.Finding) (loc Location, gone string) {
	if !f.LocationUnreadable && f.Path != "" {
		path, start, end, gone := Place(r, f)
		reg := &Region{StartLine: 1}
		if start > 0 {
			reg.StartLine = start
			if f.LineEnd != nil && *f.LineEnd >= *f.LineStart {
				reg.EndLine = end
			}
		}
		return Location{PhysicalLocation: PhysicalLocation{
			ArtifactLocation: ArtifactLocation{URI: relURI(path), URIBaseID: "%SRCROOT%"},
			Region:           reg,
		}}, gone
	}
	dir := r.Dir
	if dir == "" {
		dir = filepath.Join(r.Record.Series, r.Record.Name)
	}
	rec := filepath.Join(dir, round.FindingsFile)
	art := ArtifactLocation{URI: relURI(filepath.ToSlash(rec))}
	if filepath.IsAbs(rec) {
		art.URI = fileURI(rec)
	}
	if r.Record.Repo != "" && filepath.IsAbs(rec) {
		if rel, err := filepath.Rel(r.Record.Repo, rec); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			art = ArtifactLocation{URI: relURI(filepath.ToSlash(rel)), URIBaseID: "%SRCROOT%"}
		}
	}
	return Location{PhysicalLocation: PhysicalLocation{ArtifactLocation: art, Region: &Region{StartLine: 1}}}, ""
}

// reg0 is a finding's first line as its region starts (1 without lines).
// Place is where a finding with a path reads at the head the gate checked:
// its path and lines at the round's head, mapped through r.Lines when the
// round reviewed an earlier head (a finding of base/ keeps its lines). start
// is 0 for a finding without lines, and for one whose lines no longer exist
// at the gated head (changed, deleted, the file gone): gone then says so.
// Every code-host rendering places a finding by it (SARIF, lib/codehost).
func Place(r Round, f envelope.Finding) (path string, start, end int, gone string) {
	path = f.Path
	if f.LineStart == nil || *f.LineStart <= 0 {
		return path, 0, 0, ""
	}
	start, end = *f.LineStart, *f.LineStart
	if f.LineEnd != nil && *f.LineEnd >= start {
		end = *f.LineEnd
	}
	if r.Lines == nil || r.GatedHead == "" || strings.HasPrefix(f.Location, "base/") {
		return path, start, end, ""
	}
	p, s, e, ok := r.Lines.Map(f.Path, start, end)
	if !ok {
		return path, 0, 0, fmt.Sprintf("lines %d-%d of %s at the round's head %.12s no longer exist at the gated head %.12s", start, end, f.Path, r.Record.Head, r.GatedHead)
	}
	return p, s, e, ""
}

func reg0(f envelope.Finding) int {
	if f.LineStart != nil && *f.LineStart > 0 {
		return *f.LineStart
	}
	return 1
}

// relURI is a repository path as a relative URI reference (RFC 3986, which
// SARIF requires: SARIF1002): each segment percent-encoded, and ':' too, so
// that a first segment such as "a:b.go" is not read as a scheme.
func relURI(path string) string {
	segs := strings.Split(path, "/")
	for i, s := range segs {
		segs[i] = strings.ReplaceAll(url.PathEscape(s), ":", "%3A")
	}
	return strings.Join(segs, "/")
}

// fileURI is the file URI of an absolute path.
func fileURI(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

// InformationURI is the project's home for tool.driver.informationUri (the
// SARIF Multitool's SARIF2005 wants one): the repository URL that the
// module path github.com/jaekit/spar names.
const InformationURI = "https://github.com/jaekit/spar"

// ToolVersion is spar's version for tool.driver.version (SARIF2005 wants
// one that starts with a digit): lib/version decides it.
func ToolVersion() string { return version.String() }
