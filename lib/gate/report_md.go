package gate

import (
	"fmt"
	"strings"

	"github.com/jaekit/spar/lib/escape"
)

// MarkdownFindingsMax is how many findings the Markdown report lists one
// by one; past it only the open ones are listed (a CI step summary is
// bounded; the JSON record counts every finding).
var MarkdownFindingsMax = 500

// Markdown is the report for a CI step summary or a pull-request comment
// (docs/review-gate.md §1 "Output"): the verdict, the rounds, the findings
// with their state and disposition, the reasons with their clearing
// commands as code spans, and once what else clears them.
func (r *Report) Markdown() string { return r.MarkdownWith(MarkdownOptions{}) }

// MarkdownWith is Markdown with the open findings linked to the code host
// (o.FileURL).
func (r *Report) MarkdownWith(o MarkdownOptions) string {
	rec := r.Record
	var b strings.Builder
	word := "passed"
	if rec.State != Passed {
		word = "blocked"
	}
	fmt.Fprintf(&b, "# spar gate: %s\n\n", word)
	b.WriteString(mdText(r.Verdict()) + "\n")
	if l := r.RequiredLine(); l != "" {
		b.WriteString("\n" + mdText("R"+l[1:]) + "\n")
	}
	for _, c := range rec.Credits {
		b.WriteString("\n" + mdText(fmt.Sprintf("Credited: %s: the head %s %s", c.Series, c.Head, c.Words)) + "\n")
	}

	b.WriteString("\n## Rounds\n\n| round | stage | state | base | head | counted |\n| --- | --- | --- | --- | --- | --- |\n")
	for _, x := range r.Rounds {
		counted := "no"
		if x.Counted {
			counted = "yes"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", code(x.Dir), cell(orDash(x.Stage)), cell(x.State), shortCode(x.Base), shortCode(x.Head), counted)
	}

	c := rec.Findings
	fmt.Fprintf(&b, "\n## Findings\n\n%d open, %d closed: defect %d/%d, requirement-question %d/%d, hardening %d/%d, note %d/%d (open/closed); %d hardening deferred automatically.\n",
		c.Defect.Open+c.RequirementQuestion.Open+c.Hardening.Open+c.Note.Open,
		c.Defect.Closed+c.RequirementQuestion.Closed+c.Hardening.Closed+c.Note.Closed,
		c.Defect.Open, c.Defect.Closed, c.RequirementQuestion.Open, c.RequirementQuestion.Closed,
		c.Hardening.Open, c.Hardening.Closed, c.Note.Open, c.Note.Closed, rec.AutoDeferred)
	rows, left := r.Findings, 0
	if len(rows) > MarkdownFindingsMax {
		rows = nil
		for _, f := range r.Findings {
			if f.Open {
				rows = append(rows, f)
			}
		}
		left = len(r.Findings) - len(rows)
	}
	r.openFindings(&b, o)
	if len(rows) > 0 {
		// A long table (every finding, closed ones too) is folded: the
		// open ones are listed above whole.
		fold := len(rows) > OpenShown*2 && r.full != nil
		if fold {
			fmt.Fprintf(&b, "\n<details><summary>All %d findings</summary>\n", len(rows))
		}
		b.WriteString("\n| round | id | class | state | disposition |\n| --- | --- | --- | --- | --- |\n")
		for _, f := range rows {
			state := "closed"
			if f.Open {
				state = "**open**"
			}
			disp := "-"
			if f.Disposition != "" {
				disp = cell(f.Disposition)
				if f.Detail != "" {
					disp += ": " + mdText(f.Detail)
				}
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", code(f.Round), code(f.ID), cell(f.Class), state, disp)
		}
		if fold {
			b.WriteString("\n</details>\n")
		}
	}
	if left > 0 {
		fmt.Fprintf(&b, "\n%s not listed: only the open findings are, past %d.\n", plural(left, "closed finding"), MarkdownFindingsMax)
	}

	if len(r.Reasons) > 0 {
		b.WriteString("\n## Reasons\n\n")
		for i, x := range r.Reasons {
			fmt.Fprintf(&b, "%d. %s", i+1, mdText(x.Problem))
			if x.Clear != "" {
				words, cmd := CommandOf(x.Clear)
				b.WriteString("  \n   To clear: ")
				switch {
				case cmd == "":
					b.WriteString(mdText(words))
				case words == "":
					b.WriteString(code(cmd))
				default:
					b.WriteString(mdText(words) + ": " + code(cmd))
				}
			}
			b.WriteString("\n")
		}
	}
	if len(r.Notes) > 0 {
		b.WriteString("\n## Notes\n\n")
		for _, n := range r.Notes {
			b.WriteString("- " + mdText(n) + "\n")
		}
	}
	if ms := r.menus(); len(ms) > 0 {
		b.WriteString("\n## Other ways to clear\n\n")
		for _, m := range ms {
			label, cmds := MenuLine(m)
			spans := make([]string, len(cmds))
			for i, c := range cmds {
				spans[i] = code(c)
			}
			fmt.Fprintf(&b, "- %s: %s\n", mdText(label), strings.Join(spans, ", "))
		}
	}
	return b.String()
}

// code is s as one Markdown code span: fenced by more backticks than any
// run inside it, padded when it starts or ends with one; | escaped, so that
// it stays one table cell (GitHub reads \| inside a span as |).
// A control character other than a line break is shown as its Go escape
// (\x1b, escape.Controls): the report is printed to terminals too.
func code(s string) string {
	s = escape.Controls(strings.NewReplacer("\r", " ", "\n", " ", "|", `\|`).Replace(s))
	run, longest := 0, 0
	for _, c := range s {
		if c == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if longest > 0 || s == "" {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}

// mdText is prose from a record shown as text: Markdown's markup characters
// escaped, one line; any other control character (a terminal escape, NUL)
// shown as its Go escape (\x1b, escape.Controls), its backslash escaped so
// that Markdown shows it too.
func mdText(s string) string {
	var b strings.Builder
	for _, c := range s {
		switch {
		case strings.ContainsRune("\\`*_[]<>|#~", c):
			b.WriteByte('\\')
			b.WriteRune(c)
		case c == '\n' || c == '\r' || c == '\t':
			b.WriteByte(' ')
		case escape.Escaped(c):
			b.WriteString(`\` + escape.Controls(string(c)))
		default:
			b.WriteRune(c)
		}
	}
	return b.String()
}

// shortCode is a commit as a code span of its first 12 characters ("-"
// when none).
func shortCode(commit string) string {
	if commit == "" {
		return "-"
	}
	return code(short(commit))
}
