package packet

import (
	"fmt"
	"strings"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/escape"
)

// textLimit bounds each reviewer text an earlier finding shows (claim,
// evidence, a disposition's words): 4 KiB, cut at a character boundary.
const textLimit = 4 << 10

// writeFollowUp writes a follow-up round's two sections
// (docs/review-round.md §2.4): the change since the last reviewed head,
// to attack first, and every earlier finding with what was decided.
func writeFollowUp(b *strings.Builder, run *envelope.Run) {
	fu := run.FollowUp
	b.WriteString("## Since the last reviewed round\n\n")
	if fu.Since == "" {
		b.WriteString("This is a follow-up round, but no earlier round of this series was reviewed by every required reviewer: review the whole change above.\n\n")
	} else {
		fmt.Fprintf(b, "This is a follow-up round. Round %s reviewed the head `%s`. Attack first what changed since then: the files below, read in `head/`. The whole change from the base stays in the list above and in the workspace; a defect elsewhere in it still counts.\n\n", code(fu.SinceRound), fu.Since)
		if fu.Since == run.Head {
			b.WriteString("Nothing changed since that head: review the whole change above.\n\n")
		} else {
			fmt.Fprintf(b, "### Files changed since `%s`: attack these first\n\n", short(fu.Since))
			writeChanges(b, fu.Delta)
			fmt.Fprintf(b, "### Diff since `%s`\n\n", short(fu.Since))
			switch {
			case len(fu.Delta) == 0:
				b.WriteString("None: every file changed since then is left out by the project configuration's `exclude` globs.\n\n")
			case run.DeltaDiff == "":
				b.WriteString("The changes are binary or modes only: see the list above.\n\n")
			default:
				fenced(b, "diff", run.DeltaDiff)
				if run.DeltaDiffCut {
					b.WriteString("The diff is cut at 256 KiB; read the rest of the files listed above in `head/`.\n\n")
				}
			}
		}
	}
	b.WriteString("## Earlier findings\n\n")
	if len(run.EarlierFindings) == 0 {
		b.WriteString("The earlier rounds of this series reported no findings.\n\n")
		return
	}
	for _, f := range run.EarlierFindings {
		if f.Disposition != nil && f.Disposition.Check != nil {
			b.WriteString("Some fixes below were verified by a check spar ran: the command, the check files' diff and both outputs are shown. Judge whether the check tests the claim: a check that fails before the fix for another reason, or could not fail at all, verifies nothing, and is a finding of its own (angle `check-validity`).\n\n")
			break
		}
	}
	b.WriteString("Every finding of the earlier rounds of this series, with what was decided about it. Verify each fix claim against this round's head. Restate an earlier finding only when its decision does not hold (the fix does not fix it, the rejection's evidence is wrong, the deferral no longer holds): then give that finding's id exactly as shown here (for example `code-1/codex-F3`) as your finding's `id`, with your own new evidence. Do not restate a finding whose decision holds, and give a new finding an `id` of your own.\n\n")
	for _, f := range run.EarlierFindings {
		fmt.Fprintf(b, "### %s (%s, by %s)\n\n", code(f.Round+"/"+f.Finding), f.Class, code(f.Reviewer))
		fmt.Fprintf(b, "- Location: %s\n", code(clip(f.Location, 1024)))
		if f.RepeatOf != nil {
			fmt.Fprintf(b, "- Restates: %s\n", code(f.RepeatOf.Round+"/"+f.RepeatOf.Finding))
		}
		fmt.Fprintf(b, "- Decision: %s\n\n", decided(f.Disposition))
		b.WriteString("Claim:\n\n")
		fenced(b, "text", verbatim(clip(f.Claim, textLimit)))
		if strings.TrimSpace(f.Evidence) != "" {
			b.WriteString("The reviewer's evidence:\n\n")
			fenced(b, "text", verbatim(clip(f.Evidence, textLimit)))
		}
		if d := f.Disposition; d != nil && d.Check != nil {
			writeCheck(b, d.Check)
		}
		if d := f.Disposition; d != nil {
			for _, w := range []struct{ label, text string }{{"The evidence of the decision", d.Evidence}, {"The user's words", d.UserQuote}} {
				if strings.TrimSpace(w.text) != "" {
					fmt.Fprintf(b, "%s:\n\n", w.label)
					fenced(b, "text", verbatim(clip(w.text, textLimit)))
				}
			}
		}
	}
}

// decided is one line on a ledger line: its kind and what it names.
func decided(d *envelope.Disposition) string {
	if d == nil {
		return "none yet (open)"
	}
	switch d.Kind {
	case envelope.DispositionUnknown:
		return "unknown: the round's ledger.jsonl cannot be read"
	case "fixed":
		s := "fixed by the commit " + code(clip(d.Commit, 200))
		var checks []string
		if d.FailedBefore != "" {
			checks = append(checks, "failed before: "+code(clip(d.FailedBefore, 500)))
		}
		if d.PassedAfter != "" {
			checks = append(checks, "passed after: "+code(clip(d.PassedAfter, 500)))
		}
		if len(checks) > 0 {
			s += " (" + strings.Join(checks, "; ") + ")"
		}
		return s
	case "duplicate":
		return "a duplicate of " + code(clip(d.Of, 200))
	case "deferred":
		if d.Auto {
			return "deferred automatically (hardening)"
		}
		if d.To != "" {
			return "deferred to " + code(clip(d.To, 500))
		}
		return "deferred"
	}
	return clip(d.Kind, 40)
}

// clip cuts s to at most n bytes at a character boundary, saying so.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return escape.Prefix(s, n) + " … (cut)"
}

func short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// writeCheck shows a fix's check (docs/review-round.md §2.4): what ran,
// what it printed on each side, and the check files' diff.
func writeCheck(b *strings.Builder, c *envelope.CheckShown) {
	verdict := "verified the fix"
	if c.Refusal != "" {
		verdict = "does not verify the fix: " + clip(c.Refusal, 500)
	}
	fmt.Fprintf(b, "The check spar ran, %s: %s, exit codes before the fix %v, after %v; network %s.\n\n", verdict, code(clip(c.Command, 1024)), c.BeforeExits, c.AfterExits, clip(c.Network, 200))
	if len(c.Files) == 0 {
		b.WriteString("No check files: the fix adds or changes no file under the check paths.\n\n")
	} else {
		b.WriteString("The check files' diff from the round's head to the fix:\n\n")
		fenced(b, "diff", verbatim(c.Diff))
		if c.DiffCut {
			b.WriteString("The diff is cut at 16 KiB.\n\n")
		}
	}
	for _, o := range []struct{ label, text string }{{"Its output before the fix (run 1, the last 2 KiB)", c.BeforeTail}, {"Its output after the fix (run 1, the last 2 KiB)", c.AfterTail}} {
		fmt.Fprintf(b, "%s:\n\n", o.label)
		fenced(b, "text", verbatim(o.text))
	}
}
