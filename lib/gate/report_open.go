package gate

import (
	"fmt"
	"strings"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/sarif"
)

// OpenShown is how many open findings the Markdown report shows unfolded;
// the rest sit in a <details> block.
var OpenShown = 10

// MarkdownOptions say what the Markdown report links to.
type MarkdownOptions struct {
	// FileURL is the address of path at commit, line line, on the code
	// host (lib/codehost.FileURL); nil: places are shown, not linked.
	FileURL func(commit, path string, line int) string
}

// openFindings: docs/review-gate.md §1.1 "Open findings". Each open
// finding of the report, in report order, with its class, where it is
// (path:line, linked to the file at the gated head where its lines still
// read there, else at the head its round reviewed), its claim, failure
// scenario and smallest fix; past OpenShown the rest folded. Only a report
// from Findings has the whole findings; another shows the table alone.
func (r *Report) openFindings(b *strings.Builder, o MarkdownOptions) {
	if r.full == nil {
		return
	}
	type key struct{ dir, id string }
	whole := map[key]*envelope.Finding{}
	in := map[string]*sarif.Round{}
	for i := range r.full {
		sr := &r.full[i]
		in[sr.Dir] = sr
		for j := range sr.Findings {
			whole[key{sr.Dir, sr.Findings[j].ID}] = &sr.Findings[j]
		}
	}
	n := 0
	for _, fs := range r.Findings {
		if !fs.Open {
			continue
		}
		f := whole[key{fs.dir, fs.ID}]
		if f == nil {
			continue
		}
		if n == 0 {
			b.WriteString("\n## Open findings\n\n")
		}
		if n == OpenShown {
			left := 0
			for _, x := range r.Findings {
				if x.Open {
					left++
				}
			}
			fmt.Fprintf(b, "<details><summary>%d more open findings</summary>\n\n", left-OpenShown)
		}
		n++
		fmt.Fprintf(b, "%d. **%s** %s", n, mdText(fs.Class), code(fs.Round+"/"+fs.ID))
		if place := r.place(in[fs.dir], f, o); place != "" {
			b.WriteString(" at " + place)
		}
		if f.Angle != "" {
			fmt.Fprintf(b, " (%s angle)", mdText(f.Angle))
		}
		b.WriteString("  \n   " + mdText(f.Claim))
		if f.FailureScenario != "" {
			b.WriteString("  \n   Failure: " + mdText(f.FailureScenario))
		}
		if f.SmallestFix != "" {
			b.WriteString("  \n   Smallest fix: " + mdText(f.SmallestFix))
		}
		b.WriteString("\n")
	}
	if n > OpenShown {
		b.WriteString("\n</details>\n")
	}
}

// place is a finding's path:line, as a link when the code host is known:
// at the gated head when its lines read there unchanged, else at the head
// its round reviewed (said so).
func (r *Report) place(sr *sarif.Round, f *envelope.Finding, o MarkdownOptions) string {
	if f.Path == "" || f.LocationUnreadable {
		if f.Location == "" {
			return ""
		}
		return code(f.Location)
	}
	path, start, end := f.Path, 0, 0
	if f.LineStart != nil {
		start = *f.LineStart
		end = start
		if f.LineEnd != nil {
			end = *f.LineEnd
		}
	}
	commit, note := "", ""
	if sr != nil && sr.Record != nil {
		commit = sr.Record.Head
		if sr.GatedHead != "" && sr.Lines != nil {
			if p, s, e, ok := sr.Lines.Map(path, max(start, 1), max(end, 1)); ok {
				commit, path = sr.GatedHead, p
				if start > 0 {
					start, end = s, e
				}
			} else {
				note = " (as reviewed at " + short(sr.Record.Head) + ": changed since)"
			}
		}
	}
	text := path
	if start > 0 {
		text = fmt.Sprintf("%s:%d", path, start)
		if end > start {
			text = fmt.Sprintf("%s-%d", text, end)
		}
	}
	if o.FileURL == nil || commit == "" {
		return code(text) + note
	}
	return "[" + code(text) + "](" + o.FileURL(commit, path, start) + ")" + note
}
