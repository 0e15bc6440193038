package gate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/jaekit/spar/lib/config"
	"github.com/jaekit/spar/lib/disposition"
	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/sarif"
)

// Report is one decision with what its readable forms show (docs/review-
// gate.md §1 "Output"): the review-gate/v1 record, each of its reasons split
// into what is wrong and what clears it, how each listed round was read, and
// the state of each finding of the listed published rounds.
type Report struct {
	Record   *Record
	Reasons  []Reason
	Rounds   []RoundState
	Findings []FindingState
	// Notes say what counts for nothing without blocking by itself: a
	// round no trusted key signed, where only signed rounds count.
	Notes []string
	// full are the gated rounds with their whole findings, when the
	// report came from Findings: the Markdown report then shows each open
	// finding's claim, place, failure and fix (report_open.go).
	full []sarif.Round
}

// Reason is one blocked reason: Record.Reasons holds Problem + "; to clear:
// " + Clear. Clear ends in the one command that clears it when a command
// does (CommandOf); a reason that only restoring records by hand clears has
// none.
type Reason struct {
	// Code is the kind of reason (reasons.go, docs/review-gate.md §3).
	Code    Code
	Problem string
	Clear   string
	// Menu is the class of finding (or waiverMenu) whose closing
	// dispositions clear it too; the readable forms list each once, after
	// the reasons (MenuLine). "" when none.
	Menu string
	// run: the series whose next run ends Clear, until finish writes it.
	run *seriesData
}

// waiverMenu is the Menu of a required reviewer without a review: a waiver
// with the user's words clears it too.
const waiverMenu = "required reviewer"

// RoundState is one listed round (Record.Rounds, same order) and how the
// gate read it: recorded, dry run, stopped, unreadable, listed twice.
type RoundState struct {
	RoundRef
	State string
}

// FindingState is one finding of a listed, published round: open or
// closed as the gate decided (a defect or question by §3's table, hardening
// and notes by any disposition), and its last disposition ("" when none)
// with what that line names.
type FindingState struct {
	Round       string // the round folder as listed
	ID          string
	Class       string
	Open        bool
	Disposition string
	Detail      string
	dir         string // the round folder as the gate read it
}

// Explain decides like Decide and keeps what the readable forms show.
func Explain(o Options) *Report { return run(o).report() }

func (g *gate) report() *Report {
	rep := &Report{Record: g.rec, Reasons: g.reasons, Rounds: make([]RoundState, 0, len(g.listed))}
	for _, s := range g.series {
		rep.Notes = append(rep.Notes, g.signatureNotes(s)...)
		rep.Notes = append(rep.Notes, g.incompleteNotes(s)...)
		rep.Notes = append(rep.Notes, g.fixClaimNotes(s)...)
	}
	n := 0
	for _, l := range g.listed {
		if r := l.gated(); r != nil {
			n += len(r.finds)
		}
	}
	rep.Findings = make([]FindingState, 0, n)
	for i, l := range g.listed {
		st := "recorded"
		switch r := l.data; {
		case l.dup:
			st = "listed twice"
		case r == nil || r.state == unreadable:
			st = "unreadable"
		case r.state == unfinished:
			st = "stopped before recording"
		case r.dryRun():
			st = "dry run"
		}
		rep.Rounds = append(rep.Rounds, RoundState{RoundRef: g.rec.Rounds[i], State: st})
		r := l.gated()
		if r == nil {
			continue
		}
		for _, f := range r.finds {
			s := g.states[r][f.ID]
			rep.Findings = append(rep.Findings, FindingState{Round: l.display, ID: f.ID, Class: f.Class, Open: !s.Closed, Disposition: s.Disposition, Detail: s.Detail, dir: r.abs})
		}
	}
	return rep
}

// Line is the reason as the record holds it.
func (r Reason) Line() string {
	if r.Clear == "" {
		return r.Problem
	}
	return r.Problem + clearSep + r.Clear
}

// CommandOf splits what clears a reason into its words and the command at
// its end: the whole of it when it is a command, else what follows the first
// ": " that starts a spar or git command ("" when none does). The first: the
// command's own quoted values may hold ": spar ", the words before it never
// do (they are this package's text, not a record's).
func CommandOf(clear string) (words, command string) {
	starts := func(s string) bool { return strings.HasPrefix(s, "spar ") || strings.HasPrefix(s, "git ") }
	if starts(clear) {
		return "", clear
	}
	for i := 0; ; {
		j := strings.Index(clear[i:], ": ")
		if j < 0 {
			return clear, ""
		}
		i += j + 2
		if starts(clear[i:]) {
			return clear[:i-2], clear[i:]
		}
	}
}

// Verdict is the one line that says the outcome: passed or blocked (with
// how many reasons), how many rounds of which series, and the gate's head.
func (r *Report) Verdict() string {
	rec := r.Record
	var series []string
	seen := map[string]bool{}
	for _, x := range rec.Rounds {
		if !seen[x.Series] {
			seen[x.Series] = true
			series = append(series, x.Series)
		}
	}
	what := plural(len(rec.Rounds), "round")
	if len(series) > 0 {
		what += " of " + strings.Join(series, ", ")
	}
	what += ", " + headText(rec)
	if rec.State == Passed {
		return "passed: " + what
	}
	return fmt.Sprintf("blocked by %s: %s", plural(len(rec.Reasons), "reason"), what)
}

func headText(rec *Record) string {
	h := rec.Head
	if h == nil {
		return "no head (no round of the list was recorded)"
	}
	from := "the repository's HEAD"
	if h.Source == HeadFromExpect && rec.ExpectHead != nil {
		from = "--expect-head " + shellQuote(rec.ExpectHead.Rev)
	}
	if h.Commit == nil {
		return "no head (" + from + " does not resolve)"
	}
	return "head " + *h.Commit + " (" + from + ")"
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// RequiredLine says which reviewers the gate required and where each
// requirement came from, every series in one line ("" when no series has a
// counted round): "required reviewers of reviews/s: claude, codex; from
// round code-2's configuration (HOME /home/u/.config/jaekit/spar.toml) and
// the gate's (SPAR_CONFIG /ci/spar.toml)". A reviewer that only one side
// requires says which; one whose name is not its preset names the preset.
// It is what to compare between the laptop's gate and CI's.
func (r *Report) RequiredLine() string {
	var parts []string
	for _, src := range r.Record.RequiredSources {
		var names []string
		for _, q := range r.Record.RequiredReviewers {
			if q.Series != src.Series {
				continue
			}
			req := envelope.RequiredReviewer{Name: q.Name, Preset: q.Preset}
			var tags []string
			if q.Name != q.Preset {
				tags = append(tags, q.Preset)
			}
			byRound, byGate := slices.Contains(src.RoundRequired, req), slices.Contains(src.GateRequired, req)
			switch {
			case byRound && !byGate:
				tags = append(tags, "round "+src.Round+" only")
			case byGate && !byRound:
				tags = append(tags, "the gate's configuration only")
			}
			n := q.Name
			if len(tags) > 0 {
				n += " (" + strings.Join(tags, "; ") + ")"
			}
			names = append(names, n)
		}
		list := "none"
		if len(names) > 0 {
			list = strings.Join(names, ", ")
		}
		gateSrc := "unreadable"
		if src.GateSource != nil {
			gateSrc = sourceText(*src.GateSource)
		}
		parts = append(parts, fmt.Sprintf("of %s: %s; from round %s's configuration (%s) and the gate's (%s)",
			src.Series, list, src.Round, sourceText(src.RoundSource), gateSrc))
	}
	if len(parts) == 0 {
		return ""
	}
	return "required reviewers " + strings.Join(parts, "; required reviewers ")
}

// sourceText is a user configuration's source as the line shows it:
// "HOME /home/u/.config/jaekit/spar.toml", or "the default list, no user
// configuration file".
func sourceText(c ConfigSource) string {
	switch {
	case c.Kind == "":
		return "not recorded"
	case c.Kind == config.KindDefault:
		return "the default list, no user configuration file"
	case c.Path == "":
		return c.Kind
	}
	return c.Kind + " " + c.Path
}

// Lines are the report for a terminal, one line each (the stage layer
// prefixes its name): the verdict, each reason with what clears it, then
// once the dispositions or waiver that clear the reasons that name one.
func (r *Report) Lines() []string {
	lines := []string{r.Verdict()}
	if l := r.RequiredLine(); l != "" {
		lines = append(lines, l)
	}
	for _, c := range r.Record.Credits {
		lines = append(lines, fmt.Sprintf("credited: %s: the head %s %s", c.Series, c.Head, c.Words))
	}
	for _, x := range r.Reasons {
		lines = append(lines, "blocked: "+x.Line())
	}
	for _, n := range r.Notes {
		lines = append(lines, "note: "+oneLineText(n))
	}
	for _, m := range r.menus() {
		label, cmds := MenuLine(m)
		lines = append(lines, label+": "+strings.Join(cmds, " | "))
	}
	return lines
}

// menus are the reasons' menus, each once, in the order of the reasons.
func (r *Report) menus() []string {
	var out []string
	seen := map[string]bool{}
	for _, x := range r.Reasons {
		if x.Menu != "" && !seen[x.Menu] {
			seen[x.Menu] = true
			out = append(out, x.Menu)
		}
	}
	return out
}

// MenuLine is what else clears a reason whose Menu is menu: its label and
// the commands, the first one spelled out: every disposition that closes
// a finding of that class (dispositions, docs/review-round.md §8.2), the
// first with what a code round needs more (disposition.StageAlso: the
// verified --check first, then the words form), or a waiver for a required
// reviewer.
func MenuLine(menu string) (label string, commands []string) {
	if menu == waiverMenu {
		return "a required reviewer without a review is also cleared with the user's words", []string{"spar waive ROUND --reviewer NAME --user-quote WORDS"}
	}
	ds := dispositions(menu, "")
	if also := disposition.StageAlso(menu, "code"); also != "" {
		ds[0] += " (in a code round also " + also + ")"
	}
	return "a " + menu + " closes with", append([]string{"spar triage ROUND ID " + ds[0]}, ds[1:]...)
}
