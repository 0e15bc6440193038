package gate

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/jaekit/spar/lib/convergence"
	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/escape"
	"github.com/jaekit/spar/lib/gitx"
	"github.com/jaekit/spar/lib/round"
	"github.com/jaekit/spar/lib/summary"
)

// StatusSchema is the schema of `spar status --format json`
// (docs/status.md).
const StatusSchema = "spar-status/v1"

// Status is where each series stands and the one command that moves it on
// (docs/status.md). Every open or closed in it is the gate's own decision:
// Status runs the gate over every round of the series that G29 lists.
type Status struct {
	Schema string         `json:"schema"`
	Series []SeriesStatus `json:"series"`
}

// SeriesStatus is one series.
type SeriesStatus struct {
	Series string `json:"series"`
	// State is the gate's (passed, blocked), or empty: no recorded round.
	State             string          `json:"state"`
	Latest            *StatusRound    `json:"latest"`
	Head              StatusHead      `json:"head"`
	Findings          []StatusFinding `json:"findings"`
	Corroborated      []Corroboration `json:"corroborated"`
	RequiredReviewers []Required      `json:"required_reviewers"`
	// Incomplete names every reviewer of the latest input that completed
	// no review of it, required or not, with its status and reason
	// (incomplete.go), as spar gate's notes do.
	Incomplete []string `json:"incomplete_reviewers"`
	// FixClaims are the gated code rounds' defects closed as fixed, each
	// verified by a check or not, as the gate record's fix_claims;
	// UnverifiedFixes are the gate's notes on those no check verified
	// (empty when the head's configuration requires verified fixes: they
	// are reasons then).
	FixClaims       []FixClaim  `json:"fix_claims"`
	UnverifiedFixes []string    `json:"unverified_fixes"`
	Caps            []StatusCap `json:"caps"`
	// CapsError says why the caps could not be read ("" when they were).
	CapsError string `json:"caps_error,omitempty"`
	// PossibleRepeats are findings that restate nothing but read like an
	// earlier round's (lib/convergence), each with the triage that links
	// it.
	PossibleRepeats []PossibleRepeat `json:"possible_repeats"`
	// Convergence is the loop's figures: per round, a trend line, per
	// reviewer (null with no recorded round).
	Convergence *convergence.Report `json:"convergence"`
	// Spend is the latest round's spend against its budgets
	// (docs/review-round.md "Spend and budgets"); absent when no budget
	// applied to it.
	Spend *StatusSpend `json:"spend,omitempty"`
	// Reasons are the gate's blocked reasons, as spar gate prints them.
	Reasons []string `json:"reasons"`
	// Next is the one command that moves the series forward.
	Next string `json:"next"`
}

// StatusSpend is a round's spend against its budgets.
type StatusSpend struct {
	Round string `json:"round"`
	round.Spend
}

// States of a series beside the gate's passed and blocked.
const StatusEmpty = "empty"

// StatusRound is the series' latest round (the gate's: the latest counted
// round, else the latest recorded one).
type StatusRound struct {
	Name    string `json:"name"`
	Dir     string `json:"dir"`
	Stage   string `json:"stage"`
	Base    string `json:"base"`
	Head    string `json:"head"`
	Counted bool   `json:"counted"`
}

// Relations of the latest round's head to the repository's HEAD.
const (
	HeadSame        = "same"
	HeadBehind      = "behind"
	HeadNotAncestor = "not_an_ancestor"
	HeadUnresolved  = "unresolved"
)

// StatusHead is the latest round's head against the repository's HEAD.
type StatusHead struct {
	Repository string  `json:"repository"`
	Commit     *string `json:"commit"` // the repository's HEAD; null when it does not resolve
	Relation   string  `json:"relation"`
	// Behind is how many commits HEAD has that the reviewed head lacks
	// (relation behind; else 0).
	Behind int `json:"behind"`
}

// StatusFinding is one finding of a listed round.
type StatusFinding struct {
	Round       string `json:"round"`
	ID          string `json:"id"`
	Reviewer    string `json:"reviewer"`
	Class       string `json:"class"`
	ClassReason string `json:"class_reason"`
	Location    string `json:"location"`
	Claim       string `json:"claim"`
	// Open is the gate's decision; Blocks is open and of a class that
	// blocks (defect, requirement-question).
	Open   bool `json:"open"`
	Blocks bool `json:"blocks"`
	// Why says why it is open ("" when closed).
	Why string `json:"why"`
	// Disposition is its deciding ledger line in words ("" when none).
	Disposition string `json:"disposition"`
	// RepeatOf is the earlier finding it restates (ROUND/ID), "" when none.
	RepeatOf string `json:"repeat_of,omitempty"`
	// Clear is the spar triage that closes it ("" when closed or when it
	// does not block).
	Clear string `json:"clear"`
}

// PossibleRepeat is a finding that may restate an earlier one (same path
// and angle, near-identical claim) without saying so; Triage links it.
type PossibleRepeat struct {
	Round      string  `json:"round"`
	ID         string  `json:"id"`
	Of         string  `json:"of"` // ROUND/ID
	Similarity float64 `json:"similarity"`
	Triage     string  `json:"triage"`
}

// Corroboration is findings several reviewers report at the same place
// (lib/corroboration) across the series' listed rounds; Duplicates is the
// spar triage --as duplicate for each open one after the first.
type Corroboration struct {
	Class      string   `json:"class"`
	Place      string   `json:"place"`
	Findings   []string `json:"findings"` // ROUND/ID
	Duplicates []string `json:"duplicates"`
}

// StatusCap is one stage: counted rounds used and the limit (the cap with
// its extensions; null when unknown).
type StatusCap struct {
	Stage string `json:"stage"`
	Used  int    `json:"used"`
	Limit *int   `json:"limit"`
}

// StatusOf builds the status of the given series folders, in order. A
// round folder stands for its series. A path that is no folder, or a
// folder that is no series, is refused (RefusalError).
func StatusOf(dirs []string) (*Status, error) {
	st := &Status{Schema: StatusSchema, Series: []SeriesStatus{}}
	seen := map[string]bool{}
	for _, d := range dirs {
		series, err := seriesOf(d)
		if err != nil {
			return nil, err
		}
		abs, _ := filepath.Abs(series)
		if seen[abs] {
			continue
		}
		seen[abs] = true
		st.Series = append(st.Series, seriesStatus(series))
	}
	return st, nil
}

// StatusFolders is the default of spar status: every series folder under
// reviews/ of the repository dir is in (git rev-parse --show-toplevel),
// shown relative to the working folder cwd when it is inside it.
func StatusFolders(dir, cwd string) ([]string, error) {
	top, err := gitx.TopLevel(dir)
	if err != nil {
		return nil, &RefusalError{fmt.Sprintf("%s is not in a git repository: give a series folder", dir)}
	}
	reviews := filepath.Join(top, "reviews")
	ents, err := os.ReadDir(reviews)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, &RefusalError{fmt.Sprintf("%s: %v", reviews, errText(err))}
	}
	var out []string
	for _, e := range ents {
		p := filepath.Join(reviews, e.Name())
		if fi, err := os.Stat(p); err != nil || !fi.IsDir() || !isSeries(p) {
			continue
		}
		if rel, err := filepath.Rel(cwd, p); err == nil && !strings.HasPrefix(rel, "..") {
			p = rel
		}
		out = append(out, p)
	}
	return out, nil
}

func seriesOf(d string) (string, error) {
	if err := checkFolder("status", d); err != nil {
		return "", err
	}
	fi, err := os.Stat(d)
	if err != nil {
		return "", &RefusalError{fmt.Sprintf("%q: %v", d, errText(err))}
	}
	if !fi.IsDir() {
		return "", &RefusalError{fmt.Sprintf("%q is not a folder", d)}
	}
	clean := filepath.Clean(d)
	if round.HoldsRecord(clean) {
		return filepath.Dir(clean), nil
	}
	// A series: a folder whose sub-folders hold rounds (isSeries, as the
	// gate reads one), or one holding only its extensions.jsonl.
	if !isSeries(clean) && !isFile(filepath.Join(clean, round.ExtensionFile)) {
		return "", &RefusalError{fmt.Sprintf("%q is not a series or a round: it holds no round (a series is the parent folder of spar run --out)", d)}
	}
	return clean, nil
}

func seriesStatus(series string) SeriesStatus {
	out := SeriesStatus{Series: series, State: StatusEmpty, Findings: []StatusFinding{}, Corroborated: []Corroboration{},
		RequiredReviewers: []Required{}, Incomplete: []string{}, FixClaims: []FixClaim{}, UnverifiedFixes: []string{}, Caps: []StatusCap{}, Reasons: []string{}, PossibleRepeats: []PossibleRepeat{}}
	caps := func(rep *CapReport, err error) {
		if err != nil {
			out.CapsError = err.Error()
			return
		}
		for _, s := range rep.Stages {
			out.Caps = append(out.Caps, StatusCap{Stage: s.Stage, Used: s.Counted, Limit: s.Limit})
		}
	}
	abs, err := filepath.Abs(series)
	if err != nil {
		abs = series
	}
	var listed []string
	for _, d := range gatedRounds(abs, nil) {
		listed = append(listed, filepath.Join(series, filepath.Base(d)))
	}
	if len(listed) == 0 {
		caps(Caps(series))
		out.Next = "spar run --stage code --base REV --head HEAD --out " + shellQuote(filepath.Join(series, "code-1"))
		return out
	}
	g := runKeeping(Options{Rounds: listed}, true)
	if len(g.series) == 1 && g.series[0].abs == abs {
		// The caps of the rounds the gate read (each round read once).
		caps(capReport(series, abs, g.series[0].rounds))
	} else {
		caps(Caps(series))
	}
	out.State = g.rec.State
	out.Reasons = g.rec.Reasons
	out.RequiredReviewers = g.rec.RequiredReviewers
	if len(g.series) != 1 {
		out.Next = firstClear(out.Reasons)
		return out
	}
	s := g.series[0]
	out.Incomplete = append(out.Incomplete, g.incompleteNotes(s)...)
	out.FixClaims = append(out.FixClaims, g.rec.FixClaims...)
	out.UnverifiedFixes = append(out.UnverifiedFixes, g.fixClaimNotes(s)...)
	if s.latest != nil {
		out.Latest = &StatusRound{Name: s.latest.name, Dir: s.dirOf(s.latest), Stage: s.latest.rec.Stage,
			Base: s.latest.rec.Base, Head: s.latest.rec.Head, Counted: s.latest.rec.Cap.Counted && !s.latest.rec.DryRun}
		out.Head = headRelation(s)
		rec := s.latest.rec
		if !s.latest.full {
			rec, _ = round.ReadRecord(s.latest.abs)
		}
		if rec != nil {
			if sp, ok := round.RecordSpend(rec); ok {
				out.Spend = &StatusSpend{Round: s.latest.name, Spend: sp}
			}
		}
	}
	type member struct {
		r *roundData
		f envelope.Finding
	}
	var all []member
	for _, l := range s.listed {
		r := l.gated()
		if r == nil {
			continue
		}
		finds, ok := r.wholeFindings()
		if !ok {
			continue
		}
		for _, f := range finds {
			all = append(all, member{r, f})
			sf := StatusFinding{Round: r.name, ID: f.ID, Reviewer: f.Reviewer, Class: f.Class, ClassReason: f.ClassReason,
				Location: f.Location, Claim: f.Claim}
			if o, isOpen := g.open[r][f.ID]; isOpen {
				sf.Open, sf.Blocks, sf.Why, sf.Clear = true, o.blocks, o.why, o.hint
			}
			if e := r.last[f.ID]; e != nil {
				sf.Disposition = summary.DispositionText(*e)
			}
			if f.RepeatOf != nil {
				sf.RepeatOf = f.RepeatOf.Round + "/" + f.RepeatOf.Finding
			}
			out.Findings = append(out.Findings, sf)
		}
	}
	// Corroboration across the listed rounds: the first of a group stays,
	// each open one after it may be triaged as its duplicate (G30: of a
	// finding of this round or an earlier one, which series order gives).
	places := make([]envelope.Finding, len(all))
	for i, m := range all {
		places[i] = m.f
	}
	dupOf := map[int]string{}
	for _, grp := range summary.Corroborated(places) {
		first := all[grp[0]]
		c := Corroboration{Class: first.f.Class, Place: summary.Place(first.f), Findings: []string{}, Duplicates: []string{}}
		for k, i := range grp {
			m := all[i]
			c.Findings = append(c.Findings, m.r.name+"/"+m.f.ID)
			if e := m.r.last[m.f.ID]; k == 0 || !out.Findings[i].Open || (e != nil && e.Disposition == "duplicate") {
				// The first stays; a closed one or one already triaged as
				// a duplicate needs no suggestion.
				continue
			}
			if rep, d := m.r.byID[m.f.ID], first.r.byID[first.f.ID]; rep != nil && d != nil && !s.dupClosesRepeat(target{m.r, rep}, target{first.r, d}) {
				// A repeat of the first (or of a finding its chain
				// leads to): that duplicate would close nothing (the
				// gate's 9r); the gate's triage stays the advice.
				continue
			}
			of := first.r.name + "/" + first.f.ID
			if first.r == m.r {
				of = first.f.ID
			}
			cmd := "spar triage " + shellQuote(s.dirOf(m.r)) + " " + shellQuote(m.f.ID) + " --as duplicate --of " + shellQuote(of)
			c.Duplicates = append(c.Duplicates, cmd)
			dupOf[i] = cmd
		}
		out.Corroborated = append(out.Corroborated, c)
	}
	// The loop (lib/convergence): figures over every round of the series,
	// and the open findings that look like repeats of earlier ones.
	crs := convergenceRounds(s.rounds)
	conv := convergenceOf(crs, s.repo)
	out.Convergence = &conv
	at := map[string]int{}
	for i, m := range all {
		at[m.r.name+"/"+m.f.ID] = i
	}
	for _, p := range convergence.PossibleRepeats(crs) {
		i, ok := at[p.Round+"/"+p.Finding]
		if !ok || !out.Findings[i].Open {
			continue
		}
		cmd := "spar triage " + shellQuote(s.dirOf(all[i].r)) + " " + shellQuote(p.Finding) + " --as duplicate --of " + shellQuote(p.Of)
		out.PossibleRepeats = append(out.PossibleRepeats, PossibleRepeat{Round: p.Round, ID: p.Finding, Of: p.Of, Similarity: p.Similarity, Triage: cmd})
		if _, has := dupOf[i]; !has {
			dupOf[i] = cmd
		}
	}
	out.Next = next(s, out, dupOf)
	return out
}

// next is the one command that moves the series forward (docs/status.md):
// a triage of the first open finding that blocks (a duplicate triage when
// it corroborates an earlier one), else a new round when HEAD moved past
// the latest round's head, else what clears the gate's first reason, else
// spar gate with every round of the series.
func next(s *seriesData, out SeriesStatus, dupOf map[int]string) string {
	for i, f := range out.Findings {
		if !f.Blocks {
			continue
		}
		if cmd, ok := dupOf[i]; ok {
			return cmd
		}
		if f.Clear != "" {
			cmd, _, _ := strings.Cut(f.Clear, " (or ")
			return cmd
		}
	}
	if s.latest != nil && s.headErr == nil && s.head != "" && s.head != s.latest.rec.Head {
		return s.runCommand(s.latest.rec.Base, s.head)
	}
	if out.State == Blocked {
		return firstClear(out.Reasons)
	}
	var parts []string
	for _, l := range s.listed {
		parts = append(parts, shellQuote(l.given))
	}
	return "spar gate " + strings.Join(parts, " ")
}

// firstClear is the command a blocked reason ends with ("to clear: …"):
// from its first "spar " to the alternatives (", or "), else the whole
// advice.
func firstClear(reasons []string) string {
	if len(reasons) == 0 {
		return ""
	}
	_, clear, ok := strings.Cut(reasons[0], "; to clear: ")
	if !ok {
		return reasons[0]
	}
	if i := commandAt(clear); i >= 0 {
		cmd := clear[i:]
		for _, stop := range []string{", or ", " (or "} {
			if j := strings.Index(cmd, stop); j >= 0 {
				cmd = cmd[:j]
			}
		}
		return cmd
	}
	return clear
}

// commandAt is where the first spar command of a reason's advice starts:
// "spar " at its start or after ": " or "(" (the reasons name commands so),
// never a word of the prose ("as spar wrote them"); -1 when none.
func commandAt(clear string) int {
	for i := 0; i+5 <= len(clear); i++ {
		if clear[i:i+5] == "spar " && (i == 0 || strings.HasSuffix(clear[:i], ": ") || clear[i-1] == '(') {
			return i
		}
	}
	return -1
}

// headRelation compares the latest round's head with the repository's HEAD.
func headRelation(s *seriesData) StatusHead {
	h := StatusHead{Repository: s.repo, Relation: HeadUnresolved}
	if s.headErr != nil || s.head == "" {
		return h
	}
	head := s.head
	h.Commit = &head
	reviewed := s.latest.rec.Head
	if reviewed == head {
		h.Relation = HeadSame
		return h
	}
	h.Relation = HeadNotAncestor
	if in, err := gitx.IsAncestor(s.repo, reviewed, head); err == nil && in {
		if b, err := gitx.Git(s.repo, "rev-list", "--count", "--end-of-options", reviewed+".."+head); err == nil {
			if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				h.Relation, h.Behind = HeadBehind, n
			}
		}
	}
	return h
}

// Text is the status for people: per series where it stands, what is
// open and why, and the next command.
func (st *Status) Text() string {
	var b strings.Builder
	w := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	if len(st.Series) == 0 {
		w("No series under reviews/: start one with spar run --stage code --base REV --head HEAD --out reviews/NAME/code-1\n")
		return b.String()
	}
	for i, s := range st.Series {
		if i > 0 {
			w("\n")
		}
		w("series %s: %s\n", s.Series, s.State)
		if s.Latest != nil {
			l := s.Latest
			w("  latest round: %s (%s%s), head %s\n", l.Name, l.Stage, map[bool]string{true: ", counted", false: ", not counted"}[l.Counted], short(l.Head))
			switch s.Head.Relation {
			case HeadSame:
				w("  HEAD: the reviewed head\n")
			case HeadBehind:
				w("  HEAD: %s, %s after the reviewed head (not reviewed)\n", short(*s.Head.Commit), plural(s.Head.Behind, "commit"))
			case HeadNotAncestor:
				w("  HEAD: %s, which does not contain the reviewed head\n", short(*s.Head.Commit))
			default:
				w("  HEAD: does not resolve in %s\n", s.Head.Repository)
			}
		}
		open, closed := 0, 0
		for _, f := range s.Findings {
			if f.Open {
				open++
			} else {
				closed++
			}
		}
		w("  findings: %d open, %d closed\n", open, closed)
		for _, f := range s.Findings {
			state := "closed"
			if f.Blocks {
				state = "open"
			} else if f.Open {
				state = "open, does not block"
			}
			w("    %s/%s %s at %s: %s", f.Round, f.ID, f.Class, oneLine(f.Location), state)
			switch {
			case f.Open:
				w(" (%s)", oneLine(f.Why))
			case f.Disposition != "":
				w(": %s", oneLine(f.Disposition))
			}
			w("\n")
			if f.ClassReason != "" {
				w("      class: %s\n", oneLine(f.ClassReason))
			}
			if f.RepeatOf != "" {
				w("      restates %s\n", f.RepeatOf)
			}
		}
		for _, p := range s.PossibleRepeats {
			w("  possibly a repeat: %s/%s of %s (claims %d%% alike): %s\n", p.Round, p.ID, p.Of, int(p.Similarity*100), p.Triage)
		}
		for _, c := range s.Corroborated {
			w("  corroborated (%s at %s): %s\n", c.Class, oneLine(c.Place), strings.Join(c.Findings, ", "))
			for _, d := range c.Duplicates {
				w("    %s\n", d)
			}
		}
		if len(s.RequiredReviewers) > 0 {
			var req []string
			for _, r := range s.RequiredReviewers {
				t := fmt.Sprintf("%s (%s) %s", r.Name, r.Preset, r.Status)
				if r.Round != nil {
					t += " in " + *r.Round
				}
				req = append(req, t)
			}
			w("  required reviewers: %s\n", strings.Join(req, ", "))
		} else {
			w("  required reviewers: none\n")
		}
		for _, n := range s.Incomplete {
			w("  did not complete: %s\n", oneLine(n))
		}
		for _, n := range s.UnverifiedFixes {
			w("  unverified fix: %s\n", oneLine(n))
		}
		if s.CapsError != "" {
			w("  caps: %s\n", oneLine(s.CapsError))
		} else if len(s.Caps) > 0 {
			var caps []string
			for _, c := range s.Caps {
				caps = append(caps, fmt.Sprintf("%s %d/%s", c.Stage, c.Used, intp(c.Limit)))
			}
			w("  caps (rounds used/limit): %s\n", strings.Join(caps, ", "))
		}
		// A loop needs a second round: one round's figures are its
		// findings above (the JSON has them always).
		if c := s.Convergence; c != nil && len(c.Rounds) >= 2 {
			w("%s", LoopText(c, "  "))
		}
		if s.Spend != nil {
			w("  budget: %s (round %s)\n", oneLine(summary.SpendText(s.Spend.Spend)), oneLine(s.Spend.Round))
		}
		if n := len(s.Reasons); n > 0 {
			w("  blocked: %s (spar gate prints each)\n", plural(n, "reason"))
		}
		w("  next: %s\n", s.Next)
	}
	// Record text (folder names, reviewers' locations, triage words) is
	// shown escaped: the text goes to the user's terminal.
	return escape.Lines(b.String())
}

// short is a commit ID cut to its first 12 characters.
func short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}
