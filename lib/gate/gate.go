package gate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jaekit/spar/lib/document"
	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/escape"
	"github.com/jaekit/spar/lib/gitx"
	"github.com/jaekit/spar/lib/glob"
	"github.com/jaekit/spar/lib/growth"
	"github.com/jaekit/spar/lib/round"
	"github.com/jaekit/spar/lib/sarif"
	"github.com/jaekit/spar/lib/sign"
)

// Options are the arguments of one gate.
type Options struct {
	// Rounds are the round folders as given (G29), in the given order.
	Rounds []string
	// Series are series folders gated whole, after Rounds: every round of
	// each, in series order, but the rounds the gate leaves out (dry runs,
	// rounds that stopped before recording; Targets tells the two kinds of
	// folder apart).
	Series []string
	// ExpectHead is --expect-head (G27); ExpectHeadGiven tells "" apart
	// from not given.
	ExpectHead      string
	ExpectHeadGiven bool
	// ExpectBase is --expect-base: the commit the change under review
	// starts from (CI: the pull request's base), expectbase.go.
	ExpectBase      string
	ExpectBaseGiven bool
	// Out is --out as given ("" when not given); it only appears in the
	// commands the reasons suggest.
	Out string
	// PreviousGateDigest is the sha256 of the existing --out file (G28).
	PreviousGateDigest *string
	// Now is the clock of decided_at.
	Now func() time.Time
	// Getenv is the environment the gate's own configuration is found in
	// (lib/config: the user configuration); nil is os.Getenv.
	Getenv func(string) string
	// Signers is --signers FILE read (SignersPath: FILE as given), and
	// SignersFrom is --signers-from REV: the keys whose signatures alone
	// count (signatures.go); nil and not given: signatures are only shown.
	Signers          *sign.Signers
	SignersPath      string
	SignersFrom      string
	SignersFromGiven bool
	// Repo is --repo: the repository the rounds' commits are found in
	// (repository.go); "" finds it from the series folder, else the
	// working folder.
	Repo string
	// RerunChecks is --rerun-checks: every check record that re-derives
	// is run again (lib/fixcheck) and must verify its fix again
	// (fixcheck.go, reason 10r). Context stops those runs; nil is
	// Background. Progress gets a line per run.
	RerunChecks bool
	Context     context.Context
	Progress    io.Writer
}

// seriesData is one series of the list.
type seriesData struct {
	abs     string
	display string // the series as the user's paths spell it
	whole   bool   // given as a series folder: gated whole
	listErr string // why a series gated whole lists no round
	rounds  []*roundData
	byName  map[string]*roundData
	index   map[*roundData]int
	listed  []*listedRound
	latest  *roundData // latest counted round (else the latest published one)
	// required is the series' required reviewers (trust.go required),
	// worked out once.
	required     []envelope.RequiredReviewer
	requiredDone bool
	// requiredSource is where they came from (RequiredSource).
	requiredSource RequiredSource
	input          []*roundData // latest and its reruns: the series' latest input
	repo           string
	head           string // the gate's head for this series ("" when it does not resolve)
	headErr        error  // why the repository's HEAD does not resolve
	expect         *string
	expectErr      error // why --expect-head does not resolve
	// requireSigned: only rounds the signers signed count (signatures.go);
	// signers and signersSource are the keys and where they came from,
	// signersErr why they could not be read.
	requireSigned bool
	signers       *sign.Signers
	signersSource string
	signersErr    error
	// nextRunAdd: the reviewers the series' next run adds (nextRun).
	nextRunAdd []string
	// lacks: the rounds' commits the repository lacks, changeBase: the
	// merge base of --expect-base and the head (missingCommits).
	lacks      map[string]bool
	changeBase string
	// gated: the head the gate was asked about when it was credited by
	// content with the latest round, whose head s.head then is; judged:
	// blocked by content instead (7r, 7x; rebase.go).
	gated  string
	judged bool
	// residualBase: the replay commit a residual (7r) names, from which
	// the round that clears it reviews the head (replay.Commit); full:
	// the next run gets a first round's packet (--full), the last
	// reviewed head being one a rebase left behind (nextRunCommand).
	residualBase string
	full         bool
	// rewritten: the gate's head and the latest round's head have
	// diverged, neither containing the other (rebaseAdvice).
	rewritten bool
	// nextBase: the base of the next run when a rebase left the latest
	// round's base behind: the merge base of --expect-base and the head.
	nextBase string
}

type listedRound struct {
	given   string // as given
	display string // cleaned
	abs     string
	series  *seriesData
	data    *roundData
	dup     bool // listed twice: only the first counts
	left    bool // a round of a series gated whole that the gate leaves out
}

// gated is the listed round whose findings the gate judges: read and
// published, no dry run, listed once; nil otherwise.
func (l *listedRound) gated() *roundData {
	if r := l.data; !l.dup && r != nil && r.state == published && !r.rec.DryRun {
		return r
	}
	return nil
}

// run reads the rounds and decides, keeping what the SARIF export needs.
func run(o Options) *gate { return runKeeping(o, false) }

// runKeeping is run; keep says whether each round's derived findings are
// kept whole (spar status).
func runKeeping(o Options, keep bool) *gate {
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	rec := &Record{
		Schema:             Schema,
		Reasons:            []string{},
		ReasonDetails:      []ReasonDetail{},
		Rounds:             []RoundRef{},
		RequiredReviewers:  []Required{},
		RequiredSources:    []RequiredSource{},
		Growth:             []Growth{},
		PreviousGateDigest: o.PreviousGateDigest,
	}
	if o.ExpectBaseGiven {
		rec.ExpectBase = &ExpectBase{Rev: o.ExpectBase}
	}
	g := &gate{opts: o, rec: rec, states: map[*roundData]map[string]sarif.State{}, rederiving: true, keepFindings: keep}
	defer g.closeTrees()
	g.collect()
	g.decide()
	if len(rec.Reasons) == 0 {
		rec.State = Passed
	} else {
		rec.State = Blocked
	}
	rec.DecidedAt = now().UTC().Format(time.RFC3339)
	return g
}

// Decide reads the rounds and decides. Every problem with the records is a
// blocked reason in the record; nothing is written.
func Decide(o Options) *Record { return run(o).rec }

type gate struct {
	opts Options
	// rederiving: the rounds of each series are derived again as they are
	// read (trust.go); the verdict line's tally (RoundVerdict) does not.
	rederiving bool
	// keepFindings: each round's derived findings are kept (roundData
	// findings), for spar status, which shows every finding whole.
	keepFindings bool
	rec          *Record
	series       []*seriesData
	listed       []*listedRound
	// states is what the gate decided about each finding of each listed,
	// published round: the SARIF export's suppressions.
	states map[*roundData]map[string]sarif.State
	// configs is the gate's own configuration per repository (trust.go).
	configs map[string]configResult
	// reasons are rec.Reasons split for the readable forms (report.go).
	reasons []Reason
	// open is why each open finding of a listed, published round is open
	// (findings.go); a finding not in it is closed.
	open map[*roundData]map[string]openFinding
	// pending replaces the round folder of the same absolute path when the
	// series is read: a round spar-record is recording, not yet published
	// (RoundVerdict).
	pending *roundData
	// tallyOnly: only which findings are open counts (RoundVerdict): no
	// reasons, hints or SARIF states are built, so that the verdict line of
	// a large round costs spar-record no memory beyond the judgement.
	tallyOnly bool
	// trees loads the re-derived rounds' commit trees, per repository
	// (trust.go).
	trees   map[string]*gitx.Trees
	treesMu sync.Mutex
	// blobCache holds the head blobs recomputeInputs read, by repository
	// and id.
	blobCache map[string][]byte
	blobsMu   sync.Mutex
	// fixStates is what re-deriving each fixed line's check gave
	// (fixcheck.go).
	fixStates map[*round.LedgerEntry]fixState
	// diffs are the paths that differ between pairs of commits, per
	// repository (content.go).
	diffs   map[[3]string]pathSet
	diffsMu sync.Mutex
	// repos is the repository of each series folder (repository.go).
	repos   map[string]string
	reposMu sync.Mutex
}

// openFinding is why the gate counts one finding open and the triage that
// closes it.
type openFinding struct {
	why    string
	hint   string
	blocks bool
}

// clearSep ends a reason's problem and starts what clears it (docs/review-gate.md §3).
const clearSep = "; to clear: "

// menu marks the last reason as one that a disposition of class closes
// (or a waiver, waiverMenu): the readable forms list what closes each such
// class once, after the reasons (report.go).
func (g *gate) menu(class string) {
	if g.tallyOnly || len(g.reasons) == 0 {
		return
	}
	g.reasons[len(g.reasons)-1].Menu = class
}

// verbs counts the arguments a format's verbs take (%% takes none; every
// format of this package uses plain verbs, no argument indexes or *).
func verbs(format string) int {
	n := 0
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		i++
		if i < len(format) && format[i] != '%' {
			n++
		}
	}
	return n
}

// oneLineText is a reason's text on one line: with a control or
// bidirectional formatting character (escape.Escaped: a terminal escape,
// a C1 control, U+202E) the whole text is Go-quoted, so that nothing of it
// acts on a terminal or reorders what a reader sees.
func oneLineText(s string) string {
	if strings.IndexFunc(s, escape.Escaped) >= 0 {
		q := strconv.Quote(s)
		return q[1 : len(q)-1]
	}
	return s
}

// collect groups the listed rounds by series (the parent folder) in order of
// first appearance and reads every series once.
func (g *gate) collect() {
	bySeries := map[string]*seriesData{}
	seen := map[string]bool{}
	for _, given := range g.opts.Rounds {
		display := filepath.Clean(given)
		abs, err := filepath.Abs(display)
		if err != nil {
			abs = display
		}
		sAbs := filepath.Dir(abs)
		s := bySeries[sAbs]
		if s == nil {
			s = &seriesData{abs: sAbs, display: filepath.Dir(display)}
			bySeries[sAbs] = s
			g.series = append(g.series, s)
		}
		l := &listedRound{given: given, display: display, abs: abs, series: s, dup: seen[abs]}
		seen[abs] = true
		s.listed = append(s.listed, l)
		g.listed = append(g.listed, l)
	}
	for _, dir := range g.opts.Series {
		g.listSeries(dir, bySeries, seen)
	}
	for _, s := range g.series {
		var abs []string
		for _, l := range s.listed {
			abs = append(abs, l.abs)
		}
		var derive rederiver
		if g.rederiving {
			derive = g
		}
		rounds, extra := readSeries(s.abs, abs, derive, true)
		if p := g.pending; p != nil && filepath.Dir(p.abs) == s.abs {
			for i, r := range rounds {
				if r.abs == p.abs {
					rounds[i] = p
				}
			}
		}
		s.rounds = rounds
		s.byName = map[string]*roundData{}
		s.index = map[*roundData]int{}
		byAbs := map[string]*roundData{}
		for i, r := range rounds {
			s.byName[r.name] = r
			s.index[r] = i
			byAbs[r.abs] = r
		}
		for _, l := range s.listed {
			if r, ok := byAbs[l.abs]; ok {
				l.data = r
			} else {
				l.data = extra[l.abs]
			}
		}
		if s.whole {
			s.leaveOut()
		}
		g.signatures(s)
		s.pickLatest()
	}
	kept := g.listed[:0]
	for _, l := range g.listed {
		if !l.left {
			kept = append(kept, l)
		}
	}
	g.listed = kept
}

// pickLatest finds the series' latest counted round and its reruns (the
// series' latest input, docs/review-gate.md §3), its repository and head.
//
// Rounds are read with only the fields every round needs; the rounds of the
// latest input are read whole here (reviewers, documents, run arguments).
// One that does not read whole is unreadable, and the choice is made again.
func (s *seriesData) pickLatest() {
	for {
		s.latest, s.input = nil, nil
		s.choose()
		ok := true
		for _, r := range s.input {
			ok = (r.full || fullRecord(r)) && ok
		}
		if ok {
			break
		}
	}
	if s.latest != nil {
		s.repo = s.latest.rec.Repo
	}
}

func (s *seriesData) choose() {
	for _, r := range s.rounds {
		if r.state != published || r.rec.DryRun || !s.counts(r) {
			continue
		}
		if r.rec.Cap.Counted {
			s.latest = r
		}
	}
	if s.latest == nil {
		// Only rounds that count for nothing (hand-made records): the latest
		// published one still decides the head and the reviewers.
		for _, r := range s.rounds {
			if r.state == published && !r.rec.DryRun && s.counts(r) {
				s.latest = r
			}
		}
	}
	if s.latest == nil {
		return
	}
	s.input = []*roundData{s.latest}
	for _, r := range s.rounds {
		if r == s.latest || r.state != published || r.rec.DryRun || r.rec.Cap.Counted || r.rec.Cap.RerunOf == nil || !s.counts(r) {
			continue
		}
		if filepath.Base(*r.rec.Cap.RerunOf) == s.latest.name {
			s.input = append(s.input, r)
		}
	}
}

func (s *seriesData) dirOf(r *roundData) string {
	return filepath.Join(s.display, r.name)
}

func (g *gate) decide() {
	for _, l := range g.listed {
		ref := RoundRef{Dir: l.display, Series: l.series.display, Name: filepath.Base(l.abs)}
		if r := l.data; r != nil && r.rec != nil && r.state != unreadable {
			ref.Stage, ref.Base, ref.Head, ref.Counted = r.rec.Stage, r.rec.Base, r.rec.Head, r.rec.Cap.Counted && !r.rec.DryRun && r.state == published
			ref.Signature = r.signature
		}
		g.rec.Rounds = append(g.rec.Rounds, ref)
	}
	for _, s := range g.series {
		if s.signers != nil || s.signersErr != nil {
			keys := 0
			if s.signers != nil {
				keys = s.signers.Len()
			}
			g.rec.Signers = append(g.rec.Signers, Signers{Series: s.display, Source: s.signersSource, Keys: keys, Required: s.requireSigned})
		}
	}
	g.resolveHeads()
	fix := g.fixedList()
	for _, s := range g.series {
		g.listedProblems(s, fix)
		g.missingRounds(s, fix)
		g.removedRounds(s)
		g.dangling(s)
		g.published(s)
		g.creditByContent(s)
		g.rebaseAdvice(s)
		g.headMismatch(s)
		g.shallowHistory(s)
		g.missingCommits(s)
		g.staleDocuments(s)
		g.rederive(s)
		g.checkRecords(s)
		g.followUps(s)
		g.findings(s)
		g.repeats(s)
		g.agentInputs(s)
		g.verifiedFixes(s)
		g.requiredReviewers(s)
		g.noReview(s)
		g.coverage(s)
		g.expectedBase(s)
		g.signatureReasons(s)
		g.growth(s)
	}
	g.finish()
}

// nextRun is the one spar run that clears every reason of the series that
// a new run clears (a head the latest round did not review, a changed
// document, a required reviewer without a review): the reasons hold it as
// their last argument (reason, finish), so that the commands they suggest
// are one, never several runs into one folder with different heads or
// reviewers. add names reviewers the run must include (a required reviewer
// missing from a --reviewers list).
func (s *seriesData) nextRun(add ...string) nextRunArg {
	for _, a := range add {
		if !contains(s.nextRunAdd, a) {
			s.nextRunAdd = append(s.nextRunAdd, a)
		}
	}
	return nextRunArg{s}
}

// nextRunCommand repeats the latest counted round's arguments for the head
// the gate checks (the repository's HEAD, or --expect-head; the latest
// round's head when that does not resolve), with every reviewer added.
func (s *seriesData) nextRunCommand() string {
	head := s.head
	if head == "" {
		head = s.latest.rec.Head
	}
	base := s.latest.rec.Base
	switch {
	case s.residualBase != "":
		base = s.residualBase
	case s.nextBase != "":
		base = s.nextBase
	}
	cmd := runLike(s, s.latest.rec, s.latest.name, base, head, s.nextRunAdd...)
	if (s.full || s.residualBase != "") && s.latest.rec.Stage == "code" {
		cmd += " --full"
	}
	return cmd
}

// removedRounds blocks when a counted round of the series is gone: spar
// numbers the counted rounds of a stage 1, 2, … (cap.number, docs/review-round.md §8.6),
// so a number below the highest with no published round is a round folder
// someone removed, with whatever open findings it held (review-freshness:
// obsolete or incomplete records never satisfy the gate). Removing the
// latest counted round leaves no gap; the caps still count it no more.
func (g *gate) removedRounds(s *seriesData) {
	have := map[string]map[int]bool{}
	top := map[string]int{}
	var stages []string
	for _, r := range s.rounds {
		if r.state == unreadable {
			// Its own reason blocks already, and it may be the missing number.
			return
		}
	}
	for _, r := range s.rounds {
		if r.state != published || r.rec == nil || r.rec.DryRun || !r.rec.Cap.Counted || r.rec.Cap.Number < 1 {
			continue
		}
		st := r.rec.Stage
		if have[st] == nil {
			have[st] = map[int]bool{}
			stages = append(stages, st)
		}
		have[st][r.rec.Cap.Number] = true
		top[st] = max(top[st], r.rec.Cap.Number)
	}
	for _, st := range stages {
		for n := 1; n < top[st]; n++ {
			if !have[st][n] {
				g.reason("5r", "%s: counted %s round number %d of the series is missing (the series has counted %s rounds up to number %d): a round folder was removed, and with it its findings; to clear: restore it, or review the change in a new series",
					s.display, st, n, st, top[st])
			}
		}
	}
}

// fixedList is the round list that would clear the list's own problems:
// the given rounds that can be gated, then every round of their series that
// must be listed and is not (G29), in series order. A series gated whole is
// given as its folder again. It is empty when no listed round can be gated.
func (g *gate) fixedList() []string {
	var parts []string
	whole := map[*seriesData]bool{}
	for _, l := range g.listed {
		if l.dup || (l.data != nil && l.data.state == unfinished) || (l.data != nil && l.data.dryRun()) {
			continue
		}
		if s := l.series; s.whole {
			if !whole[s] {
				whole[s] = true
				parts = append(parts, shellQuote(s.display))
			}
			continue
		}
		parts = append(parts, shellQuote(l.given))
	}
	for _, s := range g.series {
		if s.whole {
			continue
		}
		for _, r := range s.missing() {
			parts = append(parts, shellQuote(s.dirOf(r)))
		}
	}
	return parts
}

// gateCommand is the spar gate of list, with --expect-head (rev when
// given, else the gate's own) and --out kept.
func (g *gate) gateCommand(list []string, rev string) string {
	cmd := "spar gate " + strings.Join(list, " ")
	if rev == "" && g.opts.ExpectHeadGiven {
		rev = shellQuote(g.opts.ExpectHead)
	}
	if rev != "" {
		cmd += " --expect-head " + rev
	}
	if g.opts.ExpectBaseGiven {
		cmd += " --expect-base " + shellQuote(g.opts.ExpectBase)
	}
	if g.opts.Out != "" {
		cmd += " --out " + shellQuote(g.opts.Out)
	}
	return cmd
}

// missing returns the rounds of the series that G29 requires in the list
// and the list lacks: every round that is not a dry run and did not stop
// before recording (an unreadable one cannot prove it is either).
func (s *seriesData) missing() []*roundData {
	listed := map[*roundData]bool{}
	for _, l := range s.listed {
		listed[l.data] = true
	}
	var out []*roundData
	for _, r := range s.rounds {
		if listed[r] || r.state == unfinished || r.dryRun() {
			continue
		}
		out = append(out, r)
	}
	return out
}

// listedProblems: G29, G32 — a listed round that is unreadable, a dry run,
// or stopped before recording findings. Leaving a dry run or a stopped round
// out clears it when other rounds remain to gate; when none does, running
// the round again (for real) is what clears it.
func (g *gate) listedProblems(s *seriesData, fix []string) {
	if s.whole && len(s.listed) == 0 {
		g.reason("1", "%s: the series holds no round to gate (%s); to clear: review the change into it: spar run --stage STAGE --base REV --head REV --out %s",
			s.display, s.listErr, shellQuote(filepath.Join(s.display, "NAME")))
	}
	for _, l := range s.listed {
		r := l.data
		if l.dup || r == nil {
			continue
		}
		name := filepath.Base(l.abs)
		switch {
		case r.state == unreadable && !removable(l.abs):
			// Never advise removing a folder that holds other rounds or
			// series: removing it would remove them.
			g.reason("1", "%s: round %s is unreadable (%v); to clear: restore its records as spar wrote them (or gate again once spar finishes writing the round); it holds round folders of its own, so list its rounds or series instead",
				s.display, name, r.err)
		case r.state == unreadable:
			g.reason("1", "%s: round %s is unreadable (%v); to clear: restore its records as spar wrote them (or gate again once spar finishes writing the round), or remove the round folder %s and run the round again",
				s.display, name, r.err, shellQuote(l.display))
		case r.state == unfinished && len(fix) > 0:
			g.reason("2", "%s: round %s stopped before recording findings (%v); to clear: wait for spar to finish recording it if a run is still going, or leave it out of the list: %s",
				s.display, name, trimUnfinished(r.err), g.gateCommand(fix, ""))
		case r.state == unfinished:
			g.reason("2", "%s: round %s stopped before recording findings (%v); to clear: wait for spar to finish recording it if a run is still going, or run it again: %s",
				s.display, name, trimUnfinished(r.err), s.runAgain(l))
		case r.dryRun() && len(fix) > 0:
			g.reason("3", "%s: round %s is a dry run; to clear: leave it out of the list: %s", s.display, name, g.gateCommand(fix, ""))
		case r.dryRun():
			g.reason("3", "%s: round %s is a dry run, and no other round is listed; to clear: review the change for real: %s", s.display, name, s.runAgain(l))
		case r.waiversErr != nil:
			g.reason("4", "%s: round %s: %v; to clear: restore waivers.jsonl as spar waive wrote it", s.display, name, r.waiversErr)
		}
	}
}

// runAgain is the spar run that repeats a listed round that recorded
// nothing (a dry run, a round that stopped): its own arguments, without
// --dry-run, into the next free name. Its round.json is read whole here;
// when it does not read, the command names what the agent fills in.
func (s *seriesData) runAgain(l *listedRound) string {
	rec, err := round.ReadRecord(l.abs)
	if err != nil {
		return "spar run --stage STAGE --base REV --head REV --out " + shellQuote(filepath.Join(s.display, "NAME"))
	}
	return runLike(s, rec, filepath.Base(l.abs), rec.Base, rec.Head)
}

func trimUnfinished(err error) string {
	msg := err.Error()
	if i := strings.LastIndex(msg, "("); i >= 0 && strings.HasSuffix(msg, ")") {
		return msg[i+1 : len(msg)-1]
	}
	return msg
}

// missingRounds: G29 — every round of the series that is not a dry run must
// be in the list (obsolete records fail the gate, review-freshness).
func (g *gate) missingRounds(s *seriesData, fix []string) {
	for _, r := range s.missing() {
		if r.state == unreadable && !removable(filepath.Join(s.abs, r.name)) {
			g.reason("5u", "%s: round %s of the series is not in the gate list and is unreadable (%v); to clear: restore its records as spar wrote them (or gate again once spar finishes writing the round); it holds round folders of its own, so never remove it",
				s.display, r.name, r.err)
			continue
		}
		if r.state == unreadable {
			g.reason("5u", "%s: round %s of the series is not in the gate list and is unreadable (%v); to clear: restore its records as spar wrote them (or gate again once spar finishes writing the round), or remove the round folder %s",
				s.display, r.name, r.err, shellQuote(s.dirOf(r)))
			continue
		}
		g.reason("5", "%s: round %s of the series is not in the gate list; to clear: %s", s.display, r.name, g.gateCommand(fix, ""))
	}
}

// resolveHeads decides each series' head (docs/review-gate.md §3): --expect-head
// resolved in the series' repository (G27: an unresolvable revision is a
// blocked reason, never read as an option), else the HEAD of the series'
// repository, what is checked out there: never the latest round's head,
// so commits made after the last review cannot pass unseen.
func (g *gate) resolveHeads() {
	if !g.opts.ExpectHeadGiven {
		type res struct {
			id  string
			err error
		}
		byRepo := map[string]res{}
		for _, s := range g.series {
			if s.latest == nil {
				continue
			}
			r, done := byRepo[s.repo]
			if !done {
				r.id, r.err = gitx.ResolveCommit(s.repo, "HEAD")
				byRepo[s.repo] = r
			}
			s.head, s.headErr = r.id, r.err
			if g.rec.Head == nil {
				g.rec.Head = &Head{Source: HeadFromRepo}
				if r.err == nil {
					id := r.id
					g.rec.Head.Commit = &id
				}
			}
		}
		return
	}
	g.rec.ExpectHead = &ExpectHead{Rev: g.opts.ExpectHead}
	byRepo := map[string]*string{}
	expectErr := map[string]error{}
	first := true
	for _, s := range g.series {
		if s.latest == nil {
			continue
		}
		c, done := byRepo[s.repo]
		if !done {
			id, err := gitx.ResolveCommit(s.repo, g.opts.ExpectHead)
			if err == nil {
				c = &id
			}
			byRepo[s.repo], expectErr[s.repo] = c, err
		}
		s.expect, s.expectErr = c, expectErr[s.repo]
		if first {
			g.rec.ExpectHead.Commit = c
			g.rec.Head = &Head{Commit: c, Source: HeadFromExpect}
			first = false
		}
		if c != nil {
			s.head = *c
		}
	}
}

// unresolved is the reason for a revision the user gave (flag: --expect-head,
// --expect-base) that does not resolve to one commit in s's repository
// (err: gitx.ResolveCommit's); what adds why the gate needs it.
func (g *gate) unresolved(s *seriesData, code Code, flag, rev string, err error, what string) {
	var amb *gitx.AmbiguousError
	if errors.As(err, &amb) {
		g.reason("6a", "%s: %s %q is both the ref %s and the start of an object id in the repository %s, which git would take for the ref%s; to clear: give the whole commit id, or the ref's full name (%s)",
			s.display, flag, rev, amb.Ref, s.repo, what, amb.Ref)
		return
	}
	g.reason(code, "%s: %s %q does not resolve to a commit in the repository %s%s; to clear: give a revision that git resolves to a commit there, as checked by: git -C %s rev-parse --verify %s",
		s.display, flag, rev, s.repo, what, shellQuote(s.repo), shellQuote(rev+"^{commit}"))
}

// headMismatch: docs/review-gate.md §3, the series' latest round reviewed another
// head than the gate's head. Without --expect-head the gate's head is the
// repository's HEAD: commits made after the last review block until a new
// round reviews them.
func (g *gate) headMismatch(s *seriesData) {
	if s.latest == nil {
		return
	}
	if !g.opts.ExpectHeadGiven {
		if s.headErr != nil {
			g.reason("7u", "%s: the HEAD of the repository %s does not resolve to a commit (%v), so the gate has no head to hold round %s against; to clear: check out the reviewed work there, or give the head the work must be at: %s",
				s.display, s.repo, s.headErr, s.latest.name, g.gateCommand(g.fixedList(), "REV"))
			return
		}
		if s.head != s.latest.rec.Head && !s.headJudged() {
			if what, clear := g.rewrite(s); what != "" {
				g.reason("7h", "%s: round %s reviewed the head %s, but the repository's HEAD is %s%s; to clear: %sreview that head in a new round: %s",
					s.display, s.latest.name, s.latest.rec.Head, s.head, what, clear, s.nextRun())
				return
			}
			g.reason("7h", "%s: round %s reviewed the head %s, but the repository's HEAD is %s: commits made after the last review are not reviewed; to clear: review that head in a new round: %s",
				s.display, s.latest.name, s.latest.rec.Head, s.head, s.nextRun())
		}
		return
	}
	if s.expect == nil {
		g.unresolved(s, "6", "--expect-head", g.opts.ExpectHead, s.expectErr, "")
		return
	}
	if *s.expect != s.latest.rec.Head && !s.headJudged() {
		what, clear := g.rewrite(s)
		g.reason("7", "%s: round %s reviewed the head %s, not --expect-head %s (%s)%s; to clear: %sreview that head in a new round: %s",
			s.display, s.latest.name, s.latest.rec.Head, g.opts.ExpectHead, *s.expect, what, clear, s.nextRun())
	}
}

// rewrite: what 7 and 7h say when the gate's head and the reviewed head
// have diverged (rebaseAdvice: neither contains the other) and no
// --expect-base was given: the branch was rewritten, and the gate was
// not told the base to replay the reviewed change onto.
func (g *gate) rewrite(s *seriesData) (what, clear string) {
	if !s.rewritten || g.opts.ExpectBaseGiven {
		return "", ""
	}
	return ", which does not contain it: the branch was rewritten (a rebase, an amend or a squash), and without --expect-base nothing is replayed",
		"gate with the base the branch now starts from (" + g.gateCommand(g.fixedList(), "") + " --expect-base REV: a rebase without conflict is then credited by replay, anything else names what the reviews did not see), or "
}

// staleDocuments: docs/review-gate.md §8 — each document of the series' latest
// counted round is read again from its real path and compared by sha256;
// a changed or missing one means the review no longer covers the inputs.
func (g *gate) staleDocuments(s *seriesData) {
	if s.latest == nil {
		return
	}
	for _, d := range s.latest.rec.Documents {
		// Read as spar run reads a document (bounded: a FIFO or a link
		// to /dev/zero put in its place is unreadable at once).
		b, err := document.ReadBytes(d.Path)
		switch {
		case err != nil:
			g.reason("8", "%s: round %s: the %s document %s (%s) cannot be read (%s); to clear: run a new round: %s",
				s.display, s.latest.name, d.Role, d.Name, d.Path, strings.TrimPrefix(err.Error(), "cannot be read: "), s.nextRun())
		case round.SHA256(b) != d.SHA256:
			g.reason("8", "%s: round %s: the %s document %s (%s) changed since the round (sha256 %s, now %s); to clear: run a new round: %s",
				s.display, s.latest.name, d.Role, d.Name, d.Path, d.SHA256, round.SHA256(b), s.nextRun())
		}
	}
}

func errText(err error) string {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err.Error()
	}
	return err.Error()
}

// requiredReviewers: each required reviewer has a completed review of the
// series' latest input (the latest counted round or its reruns) or a waiver
// in one of those rounds. The required reviewers are the round's
// configured_required plus those of the configuration the gate itself sees
// (docs/review-gate.md §3: whoever runs the gate decides what it requires). A native
// review counts only when recorded from a transcript without warnings
// (docs/trust.md "The gate", countsAsReview).
func (g *gate) requiredReviewers(s *seriesData) {
	if s.latest == nil {
		return
	}
	reqs := g.required(s)
	g.rec.RequiredSources = append(g.rec.RequiredSources, s.requiredSource)
	for _, req := range reqs {
		out := Required{Series: s.display, Name: req.Name, Preset: req.Preset, Status: ReviewerMissing}
		status, where := "not a reviewer of the round", s.latest
		doubt := ""
		for _, r := range s.input {
			for _, rv := range r.rec.Reviewers {
				if rv.Name != req.Name {
					continue
				}
				if rv.Status == envelope.StatusCompleted && rv.Preset == req.Preset && out.Status == ReviewerMissing {
					if ok, why := countsAsReview(rv); ok {
						name := r.name
						out.Status, out.Round = ReviewerCompleted, &name
					} else if doubt == "" {
						doubt, where = why, r
					}
				}
				if rv.Status != envelope.StatusNotRun || status == "not a reviewer of the round" {
					status = rv.Status
					if doubt == "" {
						where = r
					}
				}
			}
		}
		if out.Status == ReviewerMissing {
			for _, r := range s.input {
				for _, w := range r.waivers {
					if w.Reviewer == req.Name && w.Preset == req.Preset && out.Status == ReviewerMissing {
						name := r.name
						out.Status, out.Round = ReviewerWaived, &name
					}
				}
			}
		}
		g.rec.RequiredReviewers = append(g.rec.RequiredReviewers, out)
		if out.Status != ReviewerMissing {
			continue
		}
		if doubt != "" {
			g.reason("12n", "%s: round %s: required reviewer %s (%s) completed, but %s: a native review counts only when recorded from the subagent's transcript showing prompt.md read and no other warning; to clear: review again in a new round and record the subagent's transcript there (spar record ROUND --reviewer %s --transcript FILE): %s",
				s.display, where.name, req.Name, req.Preset, doubt, shellQuote(req.Name), s.nextRun())
			g.menu(waiverMenu)
			continue
		}
		// A follow-up round credits its reviewers with the delta it put
		// first: without this reviewer's review that range is unreviewed
		// by it (coverage).
		uncovered := ""
		if fu := s.latest.rec.FollowUp; fu != nil && fu.Since != "" && fu.Since != s.latest.rec.Head {
			uncovered = fmt.Sprintf(", so the change %s..%s that follow-up round put first is not covered for it", short(fu.Since), short(s.latest.rec.Head))
		}
		if status == envelope.StatusPending {
			g.reason("12", "%s: round %s: required reviewer %s (%s) has no completed review of the series' latest input (status: %s) and no waiver%s; to clear: record its review: spar record %s --reviewer %s --transcript FILE",
				s.display, s.latest.name, req.Name, req.Preset, status, uncovered, shellQuote(s.dirOf(where)), shellQuote(req.Name))
		} else {
			g.reason("12", "%s: round %s: required reviewer %s (%s) has no completed review of the series' latest input (status: %s) and no waiver%s; to clear: rerun it: %s",
				s.display, s.latest.name, req.Name, req.Preset, status, uncovered, s.nextRun(req.Name))
		}
		g.menu(waiverMenu)
	}
}

// runCommand is the spar run that repeats the latest counted round's
// arguments (stage, repository, reviewers, choices, documents given as
// arguments, added check paths, decisions, standpoints) for base and head,
// into the next free round name of the series. With the same head and
// unchanged documents it is a rerun (only the reviewers that did not
// complete run); otherwise a new counted round.
//
// add names reviewers the run must include: with a --reviewers list, a
// required reviewer missing from it is appended so that the rerun runs it.
func (s *seriesData) runCommand(base, head string, add ...string) string {
	return runLike(s, s.latest.rec, s.latest.name, base, head, add...)
}

// runLike is runCommand for the round r named name.
func runLike(s *seriesData, r *round.Record, name, base, head string, add ...string) string {
	var b strings.Builder
	// Never a commit the repository lacks (missingCommits).
	base, head = s.present(base, "BASE"), s.present(head, "HEAD")
	b.WriteString("spar run --repo " + shellQuote(r.Repo) + " --stage " + r.Stage + " --base " + base + " --head " + head)
	b.WriteString(" --out " + shellQuote(filepath.Join(s.display, s.nextAfter(name))))
	if r.Config.Override != nil && r.Config.Override.Kind == "--reviewers" {
		names := append([]string{}, r.Config.Override.Names...)
		for _, a := range add {
			if !contains(names, a) {
				names = append(names, a)
			}
		}
		b.WriteString(" --reviewers " + shellQuote(strings.Join(names, ",")))
	}
	for _, c := range r.Config.Choices {
		b.WriteString(" --" + c.Key + " " + shellQuote(c.Reviewer+"="+c.Value))
	}
	for _, d := range r.Documents {
		if d.Origin != "argument" {
			continue
		}
		flag := map[string]string{"rule": "--rules", "criteria": "--criteria", "subject": "--subject"}[d.Role]
		if flag != "" {
			b.WriteString(" " + flag + " " + shellQuote(d.Path))
		}
	}
	configured := map[string]bool{}
	for _, c := range r.Config.CheckPaths {
		configured[c] = true
	}
	for _, c := range r.CheckPaths {
		if !configured[c] {
			b.WriteString(" --check-path " + shellQuote(c))
		}
	}
	for _, d := range r.Decisions {
		b.WriteString(" --decision " + shellQuote(d.Decision) + " --decision-quote " + shellQuote(d.Quote))
	}
	for _, sp := range r.Standpoints {
		b.WriteString(" --standpoint " + shellQuote(sp.Reviewer+"="+sp.Text))
	}
	return b.String()
}

// nextName is the first free round name after the latest round's: a name
// ending in -<n> counts on (code-2 → code-3), any other gets -2.
func (s *seriesData) nextName() string { return s.nextAfter(s.latest.name) }

// nextAfter is the first free round name after name.
func (s *seriesData) nextAfter(name string) string {
	base, n := name, 1
	if i := strings.LastIndexByte(base, '-'); i > 0 {
		if v, err := strconv.Atoi(base[i+1:]); err == nil && v >= 0 && base[i+1:] == strconv.Itoa(v) {
			base, n = base[:i], v
		}
	}
	for {
		n++
		name := base + "-" + strconv.Itoa(n)
		if _, err := os.Lstat(filepath.Join(s.abs, name)); err != nil {
			return name
		}
	}
}

// growth measures each counted code round of the series (G24).
func (g *gate) growth(s *seriesData) {
	g.rec.Growth = append(g.rec.Growth, measure(s.display, s.rounds)...)
}

// measure is the growth of the counted code rounds of a series, in series
// order: each from the previous counted code round's head (the first from
// its base) to its head, split by its own check paths.
func measure(series string, rounds []*roundData) []Growth {
	type job struct {
		g    Growth
		repo string
		pair growth.Pair
		err  error
	}
	var jobs []job
	prev := ""
	for _, r := range rounds {
		if r.state != published || r.rec.DryRun || !r.rec.Cap.Counted || r.rec.Stage != "code" {
			continue
		}
		from := r.rec.Base
		if prev != "" {
			from = prev
		}
		prev = r.rec.Head
		set, err := glob.CompileAll(r.rec.CheckPaths)
		jobs = append(jobs, job{
			g:    Growth{Series: series, Round: r.name, From: from, To: r.rec.Head},
			repo: r.rec.Repo, pair: growth.Pair{From: from, To: r.rec.Head, CheckPaths: set}, err: err,
		})
	}
	// One git process per repository (normally one per series).
	byRepo := map[string][]int{}
	var repos []string
	for i, j := range jobs {
		if j.err != nil {
			jobs[i].g.Error = "check paths: " + j.err.Error()
			continue
		}
		if _, ok := byRepo[j.repo]; !ok {
			repos = append(repos, j.repo)
		}
		byRepo[j.repo] = append(byRepo[j.repo], i)
	}
	for _, repo := range repos {
		idx := byRepo[repo]
		pairs := make([]growth.Pair, len(idx))
		for k, i := range idx {
			pairs[k] = jobs[i].pair
		}
		res := growth.Measure(repo, pairs)
		for k, i := range idx {
			jobs[i].g.CheckPaths, jobs[i].g.Other = res[k].CheckPaths, res[k].Other
			if res[k].Err != nil {
				jobs[i].g.Error = res[k].Err.Error()
			}
		}
	}
	out := make([]Growth, len(jobs))
	for i, j := range jobs {
		out[i] = j.g
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func quote(s string) string { return strconv.Quote(s) }

// shellQuote quotes s for a POSIX shell when it needs it (escape.Shell).
func shellQuote(s string) string { return escape.Shell(s) }
