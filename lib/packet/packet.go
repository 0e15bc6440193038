// Package packet builds what every reviewer receives: packet.md (the one
// shared packet, whose sha256 decides whether a round is a rerun),
// schema.json, and each reviewer's own input (docs/review-round.md §2).
//
// The packet holds only what is the same for every reviewer of every round
// that reviews the same input: stage, base, head, series, changes, subject,
// angles, check paths, documents, criteria, decisions and standpoints. It
// never holds the round's name, its folder, the date or the reviewers of this
// run: a rerun of unfinished reviewers in a new round folder must give the
// same packet_sha256 (docs/review-round.md §8.6; the standpoints are in the
// packet, §2.3).
package packet

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/jaekit/spar/lib/envelope"
)

// Build renders packet.md and the schema, and every reviewer's input. The
// texts are as JSON carries them (JSONText): a byte of a path that is not
// UTF-8 is U+FFFD already here, so that packet.md, written from the
// envelope, has the sha256 given here, and the packet built again from the
// envelope's run is this one (Verify).
func Build(run *envelope.Run, cfg *envelope.Config) envelope.Packet {
	md := JSONText(Markdown(run, cfg.Angles))
	sum := sha256.Sum256([]byte(md))
	inputs := Inputs(run, cfg.Reviewers, md)
	for i := range inputs {
		inputs[i].Text = JSONText(inputs[i].Text)
		for j := range inputs[i].Files {
			inputs[i].Files[j].Text = JSONText(inputs[i].Files[j].Text)
		}
	}
	return envelope.Packet{
		Markdown: md,
		SHA256:   hex.EncodeToString(sum[:]),
		Schema:   SchemaFor(len(run.Standpoints) > 0),
		Inputs:   inputs,
	}
}

// Markdown renders packet.md. Every section is fixed; "## Decisions the
// user made" and "## Standpoints for this round" appear only when there are
// decisions or standpoints, "## Since the last reviewed round" and
// "## Earlier findings" only in a follow-up round, so a packet without them
// is byte for byte the packet of a spar without those features.
func Markdown(run *envelope.Run, angles []string) string {
	var b strings.Builder
	b.WriteString("# Review packet\n\n")
	b.WriteString("This packet is the same for every reviewer of this round. Review the change it describes and answer as \"How to report\" says.\n\n")

	writeChange(&b, run)
	if run.Replay != nil {
		writeReplay(&b, run)
	}
	if run.FollowUp != nil && !run.FollowUp.Full {
		writeFollowUp(&b, run)
	}
	writeSubject(&b, run)
	writeAngles(&b, angles)
	writeCheckPaths(&b, run.CheckPaths)
	writeRules(&b, run.Documents)
	writeCriteria(&b, run)
	if len(run.Decisions) > 0 {
		writeDecisions(&b, run.Decisions)
	}
	if len(run.Standpoints) > 0 {
		writeStandpoints(&b, run.Standpoints)
	}
	writeHowToReport(&b, run)
	return b.String()
}

func writeChange(b *strings.Builder, run *envelope.Run) {
	b.WriteString("## The change\n\n")
	fmt.Fprintf(b, "- Stage: `%s`\n", run.Stage)
	fmt.Fprintf(b, "- Base: `%s`\n", run.Base)
	fmt.Fprintf(b, "- Head: `%s`\n", run.Head)
	fmt.Fprintf(b, "- Series: %s\n\n", code(filepath.Base(run.Series)))
	b.WriteString("The workspace holds read-only copies of the head commit's tree in `head/` and of the base commit's tree in `base/`.\n\n")
	var inCheck, other []envelope.Change
	for _, c := range run.Changes {
		if c.CheckPath {
			inCheck = append(inCheck, c)
		} else {
			other = append(other, c)
		}
	}
	fmt.Fprintf(b, "Files changed from base to head: %d (%d in check paths, %d other).\n\n", len(run.Changes), len(inCheck), len(other))
	if len(run.Excluded) > 0 {
		fmt.Fprintf(b, "Left out of this list by the project configuration's `exclude` globs: %d more changed files (generated or vendored); they are still in the workspace.\n\n", len(run.Excluded))
	}
	b.WriteString("### Files changed in check paths\n\n")
	writeChanges(b, inCheck)
	b.WriteString("### Other files changed\n\n")
	writeChanges(b, other)
}

// writeReplay: the base is git's replay of a reviewed head onto a new
// base (a rebase), so the range holds only what the head has beyond it.
func writeReplay(b *strings.Builder, run *envelope.Run) {
	r := run.Replay
	b.WriteString("## The base of this round\n\n")
	fmt.Fprintf(b, "The base `%s` is not a commit of the branch: spar wrote it as git's replay of `%s` (a head an earlier round of this series reviewed) onto `%s` (the base the change was rebased onto). The files changed from base to head are therefore only what the head holds beyond the reviewed change, rebased: what the rebase added or altered, which no reviewer has seen.\n\n", run.Base, r.Reviewed, r.Onto)
	if len(r.Conflicts) == 0 {
		return
	}
	fmt.Fprintf(b, "Replaying the reviewed change conflicted in these files. At the base they hold git's conflict markers (`<<<<<<< %s` above the new base's side, `=======`, the reviewed side, `>>>>>>> %s`), and the head holds how they were resolved by hand:\n\n", r.Onto, r.Reviewed)
	for _, c := range r.Conflicts {
		fmt.Fprintf(b, "- %s\n", code(c))
	}
	b.WriteString("\nJudge each resolution against both sides: a resolution that drops or alters the reviewed change, or the new base's change, is a defect.\n\n")
}

func writeChanges(b *strings.Builder, cs []envelope.Change) {
	if len(cs) == 0 {
		b.WriteString("None.\n\n")
		return
	}
	for _, c := range cs {
		fmt.Fprintf(b, "- %s %s", statusWord(c.Status), code(c.Path))
		if c.OldPath != "" {
			fmt.Fprintf(b, " (from %s)", code(c.OldPath))
		}
		if c.Added < 0 || c.Deleted < 0 {
			b.WriteString(": binary\n")
		} else {
			fmt.Fprintf(b, ": +%d -%d\n", c.Added, c.Deleted)
		}
	}
	b.WriteString("\n")
}

func statusWord(s string) string {
	switch s {
	case "A":
		return "added"
	case "M":
		return "modified"
	case "D":
		return "deleted"
	case "R":
		return "renamed"
	case "C":
		return "copied"
	case "T":
		return "type changed"
	}
	return "changed (" + s + ")"
}

func writeSubject(b *strings.Builder, run *envelope.Run) {
	b.WriteString("## What to review\n\n")
	var subject *envelope.Document
	for i := range run.Documents {
		if run.Documents[i].Role == "subject" {
			subject = &run.Documents[i]
		}
	}
	if subject == nil {
		b.WriteString("The change from base to head: every file listed above, read in `head/` and compared with `base/`.\n\n")
		return
	}
	fmt.Fprintf(b, "The subject document %s below, as it was read when the round started; the changes from base to head are listed above.\n\n", code(subject.Name))
	writeDocument(b, subject)
}

func writeAngles(b *strings.Builder, angles []string) {
	b.WriteString("## Angles\n\n")
	b.WriteString("Attack the change from each of these angles. Report every one of them in `angles_checked` (what you found) or `angles_unchecked` (why you could not check it).\n\n")
	// G22: the applied angles in the fixed order, whatever order they came in.
	for _, a := range Angles {
		for _, applied := range angles {
			if a == applied {
				fmt.Fprintf(b, "- `%s`: %s\n", a, AngleSentence(a))
				break
			}
		}
	}
	b.WriteString("\n")
}

func writeCheckPaths(b *strings.Builder, globs []string) {
	b.WriteString("## Check paths\n\n")
	if len(globs) == 0 {
		b.WriteString("No check paths: no file of this repository is treated as check code.\n\n")
		return
	}
	b.WriteString("Files matching these globs are check code (tests, checks, gates). A finding located in them is judged by its `check_impact`: say `false_pass` when a check passes although the behaviour is wrong, `meaning_inverted` when it inverts a rule, `contract_violation` (with a confirmed link) when it breaks a rule or contract.\n\n")
	for _, g := range globs {
		fmt.Fprintf(b, "- %s\n", code(g))
	}
	b.WriteString("\n")
}

func writeRules(b *strings.Builder, docs []envelope.Document) {
	b.WriteString("## Rule documents\n\n")
	n := 0
	for i := range docs {
		if docs[i].Role == "rule" {
			n++
		}
	}
	if n == 0 {
		b.WriteString("No rule documents.\n\n")
		return
	}
	b.WriteString("Link a finding to a rule with `link_kind` `rule` and the document's name, real path or file name, with lines as numbered here.\n\n")
	for i := range docs {
		if docs[i].Role == "rule" {
			writeDocument(b, &docs[i])
		}
	}
}

func writeCriteria(b *strings.Builder, run *envelope.Run) {
	b.WriteString("## Acceptance criteria\n\n")
	n := 0
	for i := range run.Documents {
		if run.Documents[i].Role == "criteria" {
			n++
		}
	}
	if n == 0 {
		b.WriteString("No acceptance criteria documents.\n\n")
		return
	}
	if len(run.CriteriaIDs) == 0 {
		b.WriteString("Criterion IDs: none.\n\n")
	} else {
		fmt.Fprintf(b, "Criterion IDs: %s.\n\n", strings.Join(run.CriteriaIDs, ", "))
	}
	b.WriteString("Link a finding to a criterion with `link_kind` `criterion` and its IDs (`AC-1`, or `AC-1,AC-2`).\n\n")
	for i := range run.Documents {
		if run.Documents[i].Role == "criteria" {
			writeDocument(b, &run.Documents[i])
		}
	}
}

// writeDocument shows a document's names and its lines, numbered so that a
// reviewer can cite them (G7, G8: lines count from 1; the line count is the
// number of newlines, plus one when the last line has none).
func writeDocument(b *strings.Builder, d *envelope.Document) {
	fmt.Fprintf(b, "### %s\n\n", code(d.Name))
	fmt.Fprintf(b, "- Name: %s\n", code(d.Name))
	fmt.Fprintf(b, "- Real path: %s\n", code(d.Path))
	fmt.Fprintf(b, "- File name: %s\n", code(d.FileName))
	fmt.Fprintf(b, "- Lines: %d\n", d.LineCount)
	fmt.Fprintf(b, "- sha256: `%s`\n\n", d.SHA256)
	if d.LineCount == 0 {
		b.WriteString("The document is empty.\n\n")
		return
	}
	lines := d.Lines[:d.LineCount]
	width := len(strconv.Itoa(len(lines)))
	var body strings.Builder
	for i, l := range lines {
		fmt.Fprintf(&body, "%*d  %s\n", width, i+1, l)
	}
	fenced(b, "text", body.String())
}

func writeDecisions(b *strings.Builder, ds []envelope.Decision) {
	b.WriteString("## Decisions the user made\n\n")
	b.WriteString("The user settled these questions. Do not report a settled decision as a finding; report a change that contradicts one.\n\n")
	for i, d := range ds {
		fmt.Fprintf(b, "### Decision %d\n\n", i+1)
		b.WriteString("What it settles:\n\n")
		fenced(b, "text", verbatim(d.Decision))
		b.WriteString("The user's words:\n\n")
		fenced(b, "text", verbatim(d.Quote))
	}
}

func writeStandpoints(b *strings.Builder, sps []envelope.Standpoint) {
	b.WriteString("## Standpoints for this round\n\n")
	b.WriteString("Some reviewers have a standpoint: a risk to attack in particular, while still checking every angle. A reviewer without one reviews the whole change.\n\n")
	for i, sp := range sps {
		fmt.Fprintf(b, "### Standpoint %d: reviewer %s\n\n", i+1, code(sp.Reviewer))
		fenced(b, "text", verbatim(sp.Text))
	}
	b.WriteString("In this round the result also has the key `standpoint_report`: an object with exactly `checked` (a boolean) and `detail` (text that is not blank: what you checked when `checked` is true, why you could not check it when false). A reviewer with a standpoint must give it; a reviewer without one gives `null`.\n\n")
}

func writeHowToReport(b *strings.Builder, run *envelope.Run) {
	b.WriteString("## How to report\n\n")
	b.WriteString("Answer with exactly one JSON object and nothing else. It follows `schema.json` and has exactly these keys:\n\n")
	fmt.Fprintf(b, "- `reviewed_head`: the head commit ID `%s`, or its first 7 or more characters.\n", run.Head)
	b.WriteString("- `verdict`: `no_blocking_findings`, `blocking_findings` or `could_not_review` (a review that could not be done is recorded as failed).\n")
	b.WriteString("- `angles_checked`: a list of `{\"angle\": ..., \"result\": ...}`; `angles_unchecked`: a list of `{\"angle\": ..., \"reason\": ...}`. Every angle of \"Angles\" appears in one of them; values are strings.\n")
	b.WriteString("- `findings`: a list of objects with exactly the string keys `id`, `proposed_class`, `angle`, `location`, `claim`, `failure_scenario`, `evidence`, `link_kind`, `link`, `introduced_by_change`, `regression`, `check_impact`, `confidence`, and optionally `smallest_fix` (a string; empty or absent means no direction).\n")
	b.WriteString("- `limits`: a string: what you could not check or rely on (may be empty).\n\n")
	b.WriteString("Enumerations:\n\n")
	b.WriteString("| key | values |\n| --- | --- |\n")
	b.WriteString("| `verdict` | `no_blocking_findings`, `blocking_findings`, `could_not_review` |\n")
	b.WriteString("| `angle` | `requirement-counterexample`, `side-effects`, `design`, `premises`, `check-validity` |\n")
	b.WriteString("| `proposed_class` | `defect`, `requirement-question`, `hardening`, `note` |\n")
	b.WriteString("| `link_kind` | `rule`, `contract`, `criterion`, `none` |\n")
	b.WriteString("| `introduced_by_change`, `regression` | `yes`, `no`, `unknown` |\n")
	b.WriteString("| `check_impact` | `none`, `false_pass`, `meaning_inverted`, `contract_violation` |\n")
	b.WriteString("| `confidence` | `high`, `medium`, `low` |\n\n")
	b.WriteString("`failure_scenario` is the concrete sequence that fails; it must not be blank. `id` is your own label; spar numbers the findings itself.\n\n")
	b.WriteString("`location` is `path`, `path:line` or `path:start-end`, optionally after the prefix `head/` (the head copy, the default), `base/` (the base copy) or `./`. The path may contain spaces; after the line may follow whitespace, `,` or `;` and any text. A path without a line names a file or folder. A round document (the subject, a rule or criteria document above) is named by its name, real path or file name. Examples: `head/app/main.go:10`, `checks/t.py:10-20`, `base/old.go:4`, `docs/PLAN.md:12`, `head/checks/`.\n\n")
	b.WriteString("`link` uses the same grammar with the prefixes `head/` and `./` only. For `link_kind` `rule` it names a rule document above; for `contract`, a rule document or a regular file of the head commit; lines must lie within the document. For `criterion` it holds criterion IDs (`AC-1`, `AC-1,AC-2`). For `none`, `link` is the empty string. Examples: `AGENTS.md:2`, `head/AGENTS.md:1-2`, `contracts/api.md:4`.\n\n")
	b.WriteString("A location outside this grammar or naming nothing in the copies or the round documents is an unreadable location: the finding is kept, but it is classified without check paths and never deferred automatically. A link outside this grammar, naming no target, or with lines outside the document is an unconfirmed link: it counts as `none`, and a proposed defect that rests only on it is recorded as a note.\n")
}

// fenced writes text (ending with a newline) in a code fence longer than any
// run of backticks inside it, so that text holding code fences is shown
// exactly.
func fenced(b *strings.Builder, info, text string) {
	fence := strings.Repeat("`", max(3, longestRun(text, '`')+1))
	fmt.Fprintf(b, "%s%s\n%s%s\n\n", fence, info, text, fence)
}

// verbatim is the fence body of a text kept as received (G35, standpoints):
// the text and one newline, always, so that "a" and "a\n" give different
// packets and the text is the body without its last newline.
func verbatim(s string) string { return s + "\n" }

func longestRun(s string, c byte) int {
	best, cur := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			cur++
			best = max(best, cur)
		} else {
			cur = 0
		}
	}
	return best
}

// code shows a name as inline code. A name with a newline or another
// control character, or with backticks at its ends, is shown as a quoted
// Go/JSON-style string instead so that it stays on one line and unambiguous.
// A byte that is not UTF-8 is U+FFFD first (JSONText), as the name reads
// once it has travelled in the envelope: the quoted form is then the same
// whichever side of the trip builds it.
func code(s string) string {
	s = JSONText(s)
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return strconv.Quote(s)
		}
	}
	if s == "" || strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || strings.HasPrefix(s, " ") || strings.HasSuffix(s, " ") {
		return strconv.Quote(s)
	}
	ticks := strings.Repeat("`", longestRun(s, '`')+1)
	return ticks + s + ticks
}

// ChangeSection is packet.md's "## The change" section for run (its stage,
// base, head, series and changed files), as Markdown writes it: what the
// gate holds a recorded packet.md to (lib/gate, reason 14b).
func ChangeSection(run *envelope.Run) string {
	var b strings.Builder
	writeChange(&b, run)
	return JSONText(b.String())
}
