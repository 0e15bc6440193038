// Package summary writes a round's summary.md (docs/review-round.md §9): the verdict
// line, the findings table, the smallest fixes, each reviewer and the
// uncovered standpoints. It shows the same facts as round.json and
// findings.json, never more: it is rendered from those records only.
package summary

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"

	"github.com/jaekit/spar/lib/classify"
	"github.com/jaekit/spar/lib/corroboration"
	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/escape"
	"github.com/jaekit/spar/lib/round"
)

// Tally is what the verdict line says about open and closed findings: the
// round's findings per class as the gate decides them (lib/gate owns what
// closes a finding; RoundVerdict computes this) and the open defects and
// requirement-questions of the series' other rounds.
type Tally struct {
	Open   round.Counts
	Closed round.Counts
	Others []RoundOpen
	// Possible are the round's open findings that read like an earlier
	// round's without restating it (lib/convergence).
	Possible []Possible
}

// Possible is a finding that is possibly a repeat of an earlier one, with
// the one triage that links it.
type Possible struct {
	Finding    string
	Of         string // ROUND/ID
	Similarity float64
	Triage     string
}

// RoundOpen is one other round of the series and how many of its findings
// are open and block the gate.
type RoundOpen struct {
	Round string
	Open  int
}

// VerdictLine is the first line a person reads, and the line `spar run`
// prints last: the findings per class (with t, how many are open and
// closed, and the open findings of the series' other rounds) and which
// reviewers completed (docs/review-round.md §9). t nil is the line of a
// reader that cannot ask the gate: the counts only.
func VerdictLine(rec *round.Record, findings []envelope.Finding, t *Tally) string {
	if rec.DryRun {
		return fmt.Sprintf("Dry run: no reviewer ran (%d %s not run); nothing is counted", len(rec.Reviewers), plural(len(rec.Reviewers), "reviewer", "reviewers"))
	}
	c := CountClasses(findings)
	var done []string
	for _, r := range rec.Reviewers {
		switch {
		case r.Status == envelope.StatusCompleted:
			done = append(done, r.Name)
		case r.CompletedIn != nil:
			done = append(done, fmt.Sprintf("%s (in %s)", r.Name, *r.CompletedIn))
		}
	}
	list := "none"
	if len(done) > 0 {
		list = strings.Join(done, ", ")
	}
	class := func(n int, one, many string, open, closed int) string {
		s := fmt.Sprintf("%d %s", n, plural(n, one, many))
		if t != nil && n > 0 {
			s += fmt.Sprintf(" (%d open, %d closed)", open, closed)
		}
		return s
	}
	var o, cl round.Counts
	if t != nil {
		o, cl = t.Open, t.Closed
	}
	others := ""
	if t != nil && len(t.Others) > 0 {
		n := 0
		var parts []string
		for _, r := range t.Others {
			n += r.Open
			parts = append(parts, fmt.Sprintf("%s: %d", r.Round, r.Open))
		}
		others = fmt.Sprintf("; open in other rounds of the series: %d (%s)", n, strings.Join(parts, ", "))
	}
	// Spend against the budget, only where a budget applied.
	spent := ""
	if s, ok := round.RecordSpend(rec); ok {
		spent = "; " + SpendText(s)
	}
	notCounted := ""
	if rec.Cap.NotCounted != nil {
		notCounted = "; not counted: " + *rec.Cap.NotCounted
	}
	return fmt.Sprintf("Verdict: %s, %s, %s, %s%s; completed: %s (%d of %d %s)%s",
		class(c.Defect, "defect", "defects", o.Defect, cl.Defect),
		class(c.RequirementQuestion, "requirement-question", "requirement-questions", o.RequirementQuestion, cl.RequirementQuestion),
		class(c.Hardening, "hardening", "hardening", o.Hardening, cl.Hardening),
		class(c.Note, "note", "notes", o.Note, cl.Note),
		others,
		list, len(done), len(rec.Reviewers), plural(len(rec.Reviewers), "reviewer", "reviewers"), spent+notCounted)
}

// CountClasses counts findings per class.
func CountClasses(findings []envelope.Finding) round.Counts {
	var c round.Counts
	for _, f := range findings {
		c.Add(f.Class)
	}
	return c
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// lastLines is each finding's last ledger line, the one that decides.
func lastLines(ledger []round.LedgerEntry) map[string]*round.LedgerEntry {
	last := make(map[string]*round.LedgerEntry, len(ledger))
	for i := range ledger {
		last[ledger[i].Finding] = &ledger[i]
	}
	return last
}

// disposition is the summary's disposition column for a finding: its last
// ledger line decides (last, lastLines); none is "-". One look per finding:
// a round of 60,000 findings has as many ledger lines.
func disposition(last map[string]*round.LedgerEntry, id string) string {
	e := last[id]
	if e == nil {
		return "-"
	}
	if e.Auto {
		return e.Disposition + " (auto)"
	}
	return e.Disposition
}

// cell makes text safe inside one Markdown table cell.
func cell(s string) string {
	s = line(s)
	s = strings.ReplaceAll(s, "|", `\|`)
	if strings.TrimSpace(s) == "" {
		return " "
	}
	return s
}

// line keeps free text on one Markdown line. People read summary.md with
// cat: any other control character a reviewer wrote (a terminal escape,
// NUL) is shown escaped (\x1b), never written raw.
func line(s string) string {
	s = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "\t", " ").Replace(s)
	return escape.Controls(s)
}

func short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

func strOr(p *string, none string) string {
	if p == nil {
		return none
	}
	return *p
}

// Render returns summary.md of a round. t is the verdict line's tally
// (VerdictLine); nil shows the counts only.
func Render(rec *round.Record, findings []envelope.Finding, ledger []round.LedgerEntry, t *Tally) []byte {
	var b bytes.Buffer
	RenderTo(&b, rec, findings, ledger, t) // a bytes.Buffer does not fail
	return b.Bytes()
}

// RenderTo writes summary.md of a round to out as it is rendered (a round
// of 60,000 findings is never held whole as text, docs/pipeline.md
// "Memory"); the error is out's first.
func RenderTo(out io.Writer, rec *round.Record, findings []envelope.Finding, ledger []round.LedgerEntry, t *Tally) error {
	b := bufio.NewWriterSize(out, 64<<10)
	w := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }

	w("# Review round %s\n\n", rec.Name)
	w("%s\n\n", VerdictLine(rec, findings, t))
	w("Stage %s, base %s, head %s. ", rec.Stage, short(rec.Base), short(rec.Head))
	switch {
	case rec.DryRun:
		w("Dry run: not counted.\n")
	case rec.Cap.RerunOf != nil:
		w("Rerun of %s: not counted (limit %d).\n", *rec.Cap.RerunOf, rec.Cap.Limit)
	case rec.Cap.NotCounted != nil:
		w("Not counted: %s (it would have been round %d of %s; limit %d).\n", *rec.Cap.NotCounted, rec.Cap.Number, rec.Cap.Stage, rec.Cap.Limit)
	case rec.Cap.Counted:
		w("Counted round %d of %s (limit %d).\n", rec.Cap.Number, rec.Cap.Stage, rec.Cap.Limit)
	default:
		w("Not counted.\n")
	}
	// docs/review-round.md §2.4: what the packet put first.
	if fu := rec.FollowUp; fu != nil {
		switch {
		case fu.Full:
			w("The first round's packet (spar run --full), though the series had reviewed rounds.\n")
		case fu.Since != "":
			w("Follow-up of %s: the packet put the change since its head %s first (%d %s) and listed %d earlier %s.\n", fu.SinceRound, short(fu.Since), len(fu.Delta), plural(len(fu.Delta), "file", "files"), len(fu.Earlier), plural(len(fu.Earlier), "finding", "findings"))
		default:
			w("Follow-up: the packet listed %d earlier %s; no earlier round was reviewed by every required reviewer, so it put no delta first.\n", len(fu.Earlier), plural(len(fu.Earlier), "finding", "findings"))
		}
	}

	// docs/trust.md "Inputs the agent can edit": only when there are any.
	if len(rec.DirtyInputs) > 0 {
		w("\n## Inputs that differ from the head commit\n\n")
		w("spar read these from the working tree, where they differ from the head commit's version; the gate blocks on this round until they are committed and a new round runs.\n\n")
		for _, d := range rec.DirtyInputs {
			w("- %s (%s): %s\n", line(d.Path), line(d.Role), line(d.Change))
		}
	}

	w("\n## Findings\n\n")
	if len(findings) == 0 {
		w("No findings.\n")
	} else {
		w("| id | class | location | claim | disposition |\n| --- | --- | --- | --- | --- |\n")
		last := lastLines(ledger)
		for _, f := range findings {
			loc := f.Location
			if f.LocationUnreadable {
				// G7, docs/review-round.md §6.1: the mark in the location column.
				loc += " (unreadable location)"
			}
			class := f.Class
			if classify.UncommittedOnly(f.Class, f.CommittedClass) {
				// docs/trust.md: the gate blocks on it as its committed class.
				class += fmt.Sprintf(" (only through the uncommitted check path %s; %s by the committed ones)", f.CheckPath, f.CommittedClass)
			}
			w("| %s | %s | %s | %s | %s |\n", cell(f.ID), cell(class), cell(loc), cell(f.Claim), cell(disposition(last, f.ID)))
		}
	}

	renderWhy(w, findings, ledger)
	renderRepeats(w, rec, findings, t)

	// G5: an empty smallest_fix and an absent one both mean no direction.
	w("\n## Smallest fixes\n\n")
	n := 0
	for _, f := range findings {
		if f.SmallestFix == "" {
			continue
		}
		w("- %s: %s\n", f.ID, line(f.SmallestFix))
		n++
	}
	if n == 0 {
		w("None given.\n")
	}

	withStandpoints := len(rec.Standpoints) > 0
	w("\n## Reviewers\n")
	for _, r := range rec.Reviewers {
		w("\n### %s (%s)\n\n", r.Name, r.Preset)
		status := r.Status
		if r.Reason != "" {
			status += ": " + line(r.Reason)
		}
		w("- status: %s\n", status)
		if r.CompletedIn != nil {
			w("- completed in: %s\n", *r.CompletedIn)
		}
		if r.Sandbox != "" {
			// docs/sandbox.md: what confined its processes.
			w("- sandbox: %s\n", line(r.Sandbox))
		}
		// G12: an observed model the output did not state is unknown.
		w("- model asked: %s; observed: %s\n", line(strOr(r.Model, "none")), line(strOr(r.ObservedModel, "unknown")))
		if r.Effort != nil {
			w("- effort: %s\n", *r.Effort)
		}
		if r.Verdict != nil {
			w("- verdict: %s\n", *r.Verdict)
		}
		if len(r.AnglesChecked) > 0 || len(r.AnglesUnchecked) > 0 {
			var chk, unchk []string
			for _, a := range r.AnglesChecked {
				chk = append(chk, a.Angle)
			}
			for _, a := range r.AnglesUnchecked {
				unchk = append(unchk, fmt.Sprintf("%s (%s)", a.Angle, line(strOr(a.Reason, ""))))
			}
			w("- angles checked: %s\n", joinOr(chk, "none"))
			w("- angles unchecked: %s\n", joinOr(unchk, "none"))
			// What the reviewer found on each angle it checked, as it
			// wrote it (G4: repeats kept).
			var res []string
			for _, a := range r.AnglesChecked {
				if a.Result != nil && strings.TrimSpace(*a.Result) != "" {
					res = append(res, fmt.Sprintf("  - %s: %s\n", line(a.Angle), line(*a.Result)))
				}
			}
			if len(res) > 0 {
				w("- angle results:\n%s", strings.Join(res, ""))
			}
		}
		if withStandpoints {
			w("- standpoint: %s\n", line(strOr(r.Standpoint, "none (reviews the whole change)")))
			switch {
			case r.StandpointReport == nil:
				w("- standpoint report: none\n")
			case r.StandpointReport.Checked:
				w("- standpoint report: checked: %s\n", line(r.StandpointReport.Detail))
			default:
				w("- standpoint report: not checked: %s\n", line(r.StandpointReport.Detail))
			}
		}
		if r.Limits != nil && *r.Limits != "" {
			w("- limits: %s\n", line(*r.Limits))
		}
		if len(r.Warnings) > 0 {
			var ws []string
			for _, x := range r.Warnings {
				if x.Tool != "" {
					ws = append(ws, fmt.Sprintf("%s (%s)", x.Kind, x.Tool))
				} else {
					ws = append(ws, x.Kind)
				}
			}
			w("- warnings: %s\n", strings.Join(ws, ", "))
		}
		if len(r.Attempts) > 1 {
			w("- attempts: %d\n", len(r.Attempts))
		}
		// Provenance and usage of each attempt (G14, docs/review-round.md §4): a
		// reviewer named claude that is another program on PATH shows
		// its path and sha256 here.
		for i, a := range r.Attempts {
			head := fmt.Sprintf("attempt %d", i+1)
			if a.Model != nil {
				head += fmt.Sprintf(" (model %s)", line(*a.Model))
			}
			st := a.Status
			if a.Reason != "" {
				st += ": " + line(a.Reason)
			}
			w("- %s: %s\n", head, st)
			w("  - %s\n", ExecutableText(a.Executable))
			w("  - %s\n", AttemptUsageText(a))
			if a.Spend != nil {
				w("  - %s\n", AttemptSpendText(a))
			}
		}
		if r.Resets != nil {
			w("- resets: %s\n", line(*r.Resets))
		}
	}

	renderUsage(w, rec)

	if withStandpoints {
		w("\n## Uncovered standpoints\n\n")
		if len(rec.StandpointsUncovered) == 0 {
			w("None.\n")
		}
		for _, name := range rec.StandpointsUncovered {
			for _, s := range rec.Standpoints {
				if s.Reviewer == name {
					w("- %s: %s\n", name, line(s.Text))
				}
			}
		}
	}
	return b.Flush()
}

func joinOr(list []string, none string) string {
	if len(list) == 0 {
		return none
	}
	return strings.Join(list, ", ")
}

// renderRepeats writes, only when there are any, the findings that
// restate an earlier round's (repeat_of) and those that possibly do
// (docs/review-round.md §9).
func renderRepeats(w func(string, ...any), rec *round.Record, findings []envelope.Finding, t *Tally) {
	var lines []string
	for _, f := range findings {
		if f.RepeatOf != nil {
			lines = append(lines, fmt.Sprintf("- %s restates %s/%s: the reviewer says its decision does not hold\n", f.ID, f.RepeatOf.Round, f.RepeatOf.Finding))
		}
	}
	if t != nil {
		for _, p := range t.Possible {
			lines = append(lines, fmt.Sprintf("- %s is possibly a repeat of %s (same path and angle, claims %d%% alike); to link it: %s\n", p.Finding, p.Of, int(p.Similarity*100), line(p.Triage)))
		}
	}
	if len(lines) == 0 {
		return
	}
	w("\n## Repeats\n\n")
	for _, l := range lines {
		w("%s", l)
	}
}

// renderWhy writes why each finding stands where it does: its class
// reason (classify's), the findings several reviewers report at the same
// place, and each finding's deciding disposition with what it rests on
// (the commit and checks, the evidence, the user's words).
func renderWhy(w func(string, ...any), findings []envelope.Finding, ledger []round.LedgerEntry) {
	if len(findings) == 0 {
		return
	}
	w("\n## Why each class\n\n")
	for _, f := range findings {
		reason := f.ClassReason
		if strings.TrimSpace(reason) == "" {
			reason = "no reason recorded"
		}
		w("- %s (%s): %s\n", f.ID, f.Class, line(reason))
	}

	if groups := Corroborated(findings); len(groups) > 0 {
		w("\n## Corroborated\n\n")
		w("Several reviewers report these at the same place (same path, overlapping lines, same class); each stays a finding of its own.\n\n")
		for _, g := range groups {
			ids := make([]string, len(g))
			for i, k := range g {
				ids[i] = findings[k].ID
			}
			f := findings[g[0]]
			w("- %s (%s): %s\n", line(Place(f)), f.Class, strings.Join(ids, ", "))
		}
	}

	last := lastLines(ledger)
	head := false
	for _, f := range findings {
		e, ok := last[f.ID]
		if !ok {
			continue
		}
		if !head {
			w("\n## Dispositions\n\n")
			w("The last ledger line of each finding decides; spar gate decides whether it closes the finding.\n\n")
			head = true
		}
		w("- %s: %s\n", f.ID, line(DispositionText(*e)))
	}
}

// Corroborated groups the findings several reviewers report at the same
// place (lib/corroboration), as indexes into findings.
func Corroborated(findings []envelope.Finding) [][]int {
	places := make([]corroboration.Place, len(findings))
	for i, f := range findings {
		places[i] = corroboration.Place{Reviewer: f.Reviewer, Class: f.Class, Path: f.Path, Start: f.LineStart, End: f.LineEnd}
	}
	return corroboration.Groups(places)
}

// Place is a finding's path and lines as people read them (path:10-12).
func Place(f envelope.Finding) string {
	switch {
	case f.LineStart == nil:
		return f.Path
	case f.LineEnd == nil || *f.LineEnd == *f.LineStart:
		return fmt.Sprintf("%s:%d", f.Path, *f.LineStart)
	}
	return fmt.Sprintf("%s:%d-%d", f.Path, *f.LineStart, *f.LineEnd)
}

// DispositionText is one ledger line in words: the disposition and what it
// rests on.
func DispositionText(e round.LedgerEntry) string {
	var parts []string
	add := func(format, v string) {
		if strings.TrimSpace(v) != "" {
			parts = append(parts, fmt.Sprintf(format, v))
		}
	}
	switch e.Disposition {
	case "fixed":
		add("by the commit %s", e.Commit)
		if c := e.Check; c != nil {
			// spar ran it (spar triage --check); whether the record
			// still holds is the gate's to say (8v, 10r).
			parts = append(parts, fmt.Sprintf("checked by spar: %s failed on the round's head (exit %s) and passed on the fix (exit %s), network %s, outputs in %s",
				c.Command, exits(c.Before), exits(c.After), c.Network, path.Dir(firstOutput(c))))
		} else {
			add("failed before: %s", e.FailedBefore)
			add("passed after: %s", e.PassedAfter)
		}
	case "duplicate":
		of := e.Of
		if e.OfRound != "" && !strings.Contains(of, "/") {
			of = e.OfRound + "/" + of
		}
		add("of %s", of)
	default:
		add("evidence: %s", e.Evidence)
		add("to: %s", e.To)
	}
	if e.Auto && strings.TrimSpace(e.To) == "" {
		parts = append(parts, "automatic deferral of hardening")
	}
	add("the user's words: %q", e.UserQuote)
	if len(parts) == 0 {
		return e.Disposition
	}
	return e.Disposition + " (" + strings.Join(parts, "; ") + ")"
}

// exits are a check side's exit codes, "1, 1".
func exits(runs []round.CheckRun) string {
	out := make([]string, len(runs))
	for i, r := range runs {
		out[i] = strconv.Itoa(r.Exit)
	}
	return strings.Join(out, ", ")
}

// firstOutput is the path of a check record's first output file.
func firstOutput(c *round.FixCheck) string {
	if len(c.Before) > 0 {
		return c.Before[0].Output
	}
	return round.ChecksDir + "/"
}
