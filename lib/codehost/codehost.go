// Package codehost renders the findings of gated rounds for code hosts, in
// the formats their tools read (docs/pipeline.md "Code-host formats"):
// reviewdog's Diagnostic format as JSON lines (rdjsonl), which reviewdog
// posts as pull-request comments or annotations on any host it knows, and
// GitLab's Code Quality report (codequality), which GitLab shows on a merge
// request. Each is a rendering of the same findings and the states the gate
// gave them (lib/sarif's Round): only findings the gate counts open are
// written, so the output agrees with the gate's verdict.
package codehost

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/escape"
	"github.com/jaekit/spar/lib/sarif"
)

// open is one open finding of a round, with what every format needs.
type open struct {
	round   sarif.Round
	f       envelope.Finding
	blocks  bool   // the gate blocks on it (sarif.State.Blocks)
	class   string // the class it is judged as
	root    string // <round>/<id> of the first finding of its chain of repeats and duplicates (sarif.Roots)
	display string // <round>/<id>
}

// opens lists the open findings of rounds in round and findings.json order.
func opens(rounds []sarif.Round) []open {
	roots := sarif.Roots(rounds)
	var out []open
	for _, r := range rounds {
		for _, f := range r.Findings {
			st, ok := r.States[f.ID]
			if !ok || st.Closed {
				continue
			}
			class := f.Class
			if f.CommittedClass == envelope.ClassDefect || f.CommittedClass == envelope.ClassRequirementQuestion {
				class = f.CommittedClass // blocks as that (docs/review-gate.md 9c)
			}
			key := r.Record.Name + "/" + f.ID
			out = append(out, open{
				round: r, f: f, class: class, display: key,
				blocks: st.Blocks, // the gate's decision (lib/gate)
				root:   roots[key],
			})
		}
	}
	return out
}

// message is a finding in words: its class, claim, failure scenario,
// evidence and smallest fix, and where spar keeps it. Each text of the
// reviewer's is cut at max bytes (clip).
func message(o open, max int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[spar %s, %s angle] %s", o.class, o.f.Angle, clip(oneLine(o.f.Claim), max))
	if s := oneLine(o.f.FailureScenario); s != "" {
		b.WriteString("\nFailure: " + clip(s, max))
	}
	if s := oneLine(o.f.Evidence); s != "" {
		b.WriteString("\nEvidence: " + clip(s, max))
	}
	if s := oneLine(o.f.SmallestFix); s != "" {
		b.WriteString("\nSmallest fix: " + clip(s, max))
	}
	if o.f.LocationUnreadable || o.f.Path == "" {
		fmt.Fprintf(&b, "\nThe reviewer's location %q names no file of the change: shown at the repository root.", clip(o.f.Location, max))
	} else if _, _, _, gone := sarif.Place(o.round, o.f); gone != "" {
		b.WriteString("\nShown at the file's start: " + gone + ".")
	}
	fmt.Fprintf(&b, "\nspar finding %s (series %s); spar gate prints the triage that closes it.", o.display, o.round.Series)
	return escape.Lines(b.String())
}

// textMax is the most of one text of a reviewer's (claim, failure
// scenario, evidence, smallest fix, location) a code-host message holds:
// a review comment or annotation is for reading, and the whole text stays
// in findings.json and the SARIF log.
const textMax = 4 << 10

// clip cuts s after at most max bytes, at a character's start, and says
// how much was cut and where the whole text is.
func clip(s string, max int) string {
	if len(s) <= max {
		return s
	}
	head := escape.Prefix(s, max)
	return fmt.Sprintf("%s … (%d more bytes cut: spar gate --sarif and findings.json hold the whole text)", head, len(s)-len(head))
}

// oneLine is free text on one line (runs of white space, line breaks
// among them, are one space).
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Diagnostic is reviewdog's Diagnostic message (RDFormat), the fields spar
// writes.
type Diagnostic struct {
	Message  string     `json:"message"`
	Location RDLocation `json:"location"`
	Severity string     `json:"severity"`
	Source   RDSource   `json:"source"`
	Code     RDCode     `json:"code"`
	// OriginalOutput is the diagnostic as one line of a compiler's
	// output (<path>:<line>: <severity>: <claim>): what reviewdog's local
	// reporter prints.
	OriginalOutput string `json:"original_output"`
}

type RDLocation struct {
	Path  string   `json:"path"`
	Range *RDRange `json:"range,omitempty"`
}

type RDRange struct {
	Start RDPosition  `json:"start"`
	End   *RDPosition `json:"end,omitempty"`
}

type RDPosition struct {
	Line int `json:"line"`
}

type RDSource struct {
	Name string `json:"name"`
}

type RDCode struct {
	Value string `json:"value"`
}

// RDJSONL is one Diagnostic a line for every open finding: open defects and
// requirement-questions ERROR, other open findings WARNING. The path and
// lines are the finding's (G7); an unreadable location is the repository
// root (path "."), and its message says so. code.value is the finding's
// <round>/<id>.
func RDJSONL(rounds []sarif.Round) []byte {
	var buf bytes.Buffer
	for _, o := range opens(rounds) {
		d := Diagnostic{Severity: "WARNING", Source: RDSource{Name: "spar"}, Code: RDCode{Value: o.display}}
		if o.blocks {
			d.Severity = "ERROR"
		}
		d.Location.Path = "."
		if !o.f.LocationUnreadable && o.f.Path != "" {
			// Where the finding reads at the gated head (sarif.Place).
			path, start, end, _ := sarif.Place(o.round, o.f)
			d.Location.Path = path
			if start > 0 {
				d.Location.Range = &RDRange{Start: RDPosition{Line: start}}
				if end > start {
					d.Location.Range.End = &RDPosition{Line: end}
				}
			}
		}
		line := 1
		if d.Location.Range != nil {
			line = d.Location.Range.Start.Line
		}
		// Under reviewdog's line limit (RDLineMax) whatever the reviewer
		// wrote: the texts are cut shorter until the line fits.
		var b []byte
		for max := textMax; ; max /= 2 {
			d.Message = message(o, max)
			d.OriginalOutput = escape.Controls(fmt.Sprintf("%s:%d: %s: [spar %s] %s (%s)", d.Location.Path, line, d.Severity, o.class, clip(oneLine(o.f.Claim), max), o.display))
			b, _ = json.Marshal(d)
			if len(b) < RDLineMax || max == 0 {
				break
			}
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}

// Issue is one GitLab Code Quality issue (the CodeClimate subset GitLab
// reads).
type Issue struct {
	Description string     `json:"description"`
	CheckName   string     `json:"check_name"`
	Fingerprint string     `json:"fingerprint"`
	Severity    string     `json:"severity"`
	Location    CQLocation `json:"location"`
}

type CQLocation struct {
	Path  string  `json:"path"`
	Lines CQLines `json:"lines"`
}

type CQLines struct {
	Begin int `json:"begin"`
}

// cqSeverity is Code Quality's severity of an open finding's class.
var cqSeverity = map[string]string{
	envelope.ClassDefect:              "blocker",
	envelope.ClassRequirementQuestion: "major",
	envelope.ClassHardening:           "minor",
	envelope.ClassNote:                "info",
}

// CodeQuality is the Code Quality report (a JSON array) of every open
// finding: check_name spar/<class>/<angle>; the fingerprint is the sha256
// of the series and the first finding of the finding's duplicate chain, so
// it stays the same for a finding and the findings triaged as its
// duplicates in later rounds; lines.begin 1 where the finding names no
// line; an unreadable location is the repository root (path ".").
func CodeQuality(rounds []sarif.Round) []byte {
	issues := []Issue{}
	for _, o := range opens(rounds) {
		sum := sha256.Sum256([]byte("spar/v1\x00" + o.round.Series + "\x00" + o.root))
		is := Issue{
			Description: message(o, textMax),
			CheckName:   "spar/" + o.class + "/" + o.f.Angle,
			Fingerprint: hex.EncodeToString(sum[:]),
			Severity:    cqSeverity[o.class],
			Location:    CQLocation{Path: ".", Lines: CQLines{Begin: 1}},
		}
		if is.Severity == "" {
			is.Severity = "info"
		}
		if !o.f.LocationUnreadable && o.f.Path != "" {
			path, start, _, _ := sarif.Place(o.round, o.f)
			is.Location.Path = path
			if start > 0 {
				is.Location.Lines.Begin = start
			}
		}
		issues = append(issues, is)
	}
	b, _ := json.MarshalIndent(issues, "", "  ")
	return append(b, '\n')
}

// StepSummaryLimit is the most GitHub shows of a job's step summary
// ($GITHUB_STEP_SUMMARY): 1 MiB a step.
const StepSummaryLimit = 1 << 20

// StepSummary is the gate's Markdown report cut, at a line, before the
// step summary's limit, with a last line that says it was cut and where the
// rest is: a report over the limit is not shown at all.
func StepSummary(md string) string {
	if len(md) <= StepSummaryLimit {
		return md
	}
	const last = "\n\n**The report was cut here: it is longer than the 1 MiB a step summary shows. `spar gate` prints it whole (`--format md`), and its reasons on stderr.**\n"
	const closing = "\n\n</details>"
	cut := StepSummaryLimit - len(last) - len(closing)
	if i := strings.LastIndexByte(md[:cut], '\n'); i > 0 {
		cut = i
	}
	kept := md[:cut]
	// A cut inside a folded block closes it, so that the last words show.
	if strings.Count(kept, "<details>") > strings.Count(kept, "</details>") {
		kept += closing
	}
	return kept + last
}

// RDLineMax bounds one line of rdjsonl, its newline included: reviewdog
// (v0.21.0) reads rdjsonl with a bufio.Scanner of 64 KiB and ignores its
// error, so a longer line and every line after it would be dropped without
// a word.
const RDLineMax = 60 << 10

// FileURL is the code host's address of a file at a commit and line, from
// the CI job's environment: GitHub Actions' GITHUB_SERVER_URL and
// GITHUB_REPOSITORY (<server>/<repo>/blob/<commit>/<path>#L<line>), else
// GitLab CI's CI_PROJECT_URL (<project>/-/blob/<commit>/<path>#L<line>);
// nil when neither is set, or a value is not an http(s) address (the
// report then shows places without links).
func FileURL(getenv func(string) string) func(commit, path string, line int) string {
	base, blob := "", ""
	switch server, repo := getenv("GITHUB_SERVER_URL"), getenv("GITHUB_REPOSITORY"); {
	case server != "" && repo != "":
		base, blob = strings.TrimRight(server, "/")+"/"+strings.Trim(repo, "/"), "/blob/"
	case getenv("CI_PROJECT_URL") != "":
		base, blob = strings.TrimRight(getenv("CI_PROJECT_URL"), "/"), "/-/blob/"
	default:
		return nil
	}
	if u, err := url.Parse(base); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || strings.ContainsAny(base, " ()<>\"'`") {
		return nil
	}
	return func(commit, path string, line int) string {
		segs := strings.Split(path, "/")
		for i, s := range segs {
			segs[i] = url.PathEscape(s)
		}
		u := base + blob + url.PathEscape(commit) + "/" + strings.Join(segs, "/")
		if line > 0 {
			u += fmt.Sprintf("#L%d", line)
		}
		return u
	}
}
