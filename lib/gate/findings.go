package gate

import (
	"errors"
	"fmt"
	"strings"

	"github.com/jaekit/spar/lib/disposition"
	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/gitx"
	"github.com/jaekit/spar/lib/round"
	"github.com/jaekit/spar/lib/sarif"
)

// verdict is what the ledger says about one finding.
type verdict struct {
	closed bool
	// why is the open finding's state, for its reason ("has no disposition").
	why string
	// commit is set when the chain ends in fixed: closed only if the gate's
	// head contains it (decided after every commit is known).
	commit string
	// dups are the findings of the duplicate chain before its fixed end,
	// with their labels: a round of one that reviewed a head containing
	// commit found the defect again after the "fix" (docs/trust.md "The gate").
	dups []target
	// end is the finding whose disposition is fixed (the chain's end, or
	// the finding itself): its round reviewed a head that had it, so a
	// commit that head contains is no fix of it.
	end target
	// chain is the duplicate chain as the reason shows it.
	chain string
}

// target is one finding of a series.
type target struct {
	r *roundData
	f *finding
}

// resolveOf finds the finding a duplicate names by round.ResolveOf, the
// rule spar triage wrote it by (G30: a finding of this round or of an
// earlier round of the series). Only published rounds hold findings.
func (s *seriesData) resolveOf(from *roundData, of string) (target, bool) {
	at := s.index[from]
	roundOf := func(name string) *roundData {
		if name == from.name {
			return from
		}
		return s.byName[name]
	}
	earlier := func() ([]string, error) {
		names := make([]string, 0, at)
		for _, r := range s.rounds[:at] {
			names = append(names, r.name)
		}
		return names, nil
	}
	has := func(name, id string) (bool, error) {
		r := roundOf(name)
		return r != nil && r.state == published && r.byID[id] != nil, nil
	}
	name, _ := round.ResolveOf(strings.TrimSpace(of), from.name, earlier, has)
	if name == "" {
		return target{}, false
	}
	r := roundOf(name)
	_, id := round.SplitOf(strings.TrimSpace(of))
	return target{r, r.byID[id]}, true
}

func label(start, t target) string {
	if t.r == start.r {
		return t.f.ID
	}
	return t.r.name + "/" + t.f.ID
}

// judge follows a finding's disposition and its duplicate chain.
func (s *seriesData) judge(start target) verdict {
	class := start.f.Class
	w := s.dupWalk(start)
	chain := []string{start.f.ID}
	for _, t := range w.path[1:] {
		chain = append(chain, label(start, t))
	}
	switch {
	case w.unresolved != "":
		return verdict{why: fmt.Sprintf("duplicate chain %s -> %s: %q is no finding of this round or an earlier round of the series", strings.Join(chain, " -> "), w.unresolved, w.unresolved)}
	case w.cycle != nil:
		return verdict{why: "duplicate chain " + strings.Join(append(chain, label(start, *w.cycle)), " -> ") + " is a cycle"}
	}
	cur := w.path[len(w.path)-1]
	e := cur.r.last[cur.f.ID]
	if e == nil {
		if cur == start {
			return verdict{why: "no disposition"}
		}
		return verdict{why: "duplicate chain " + strings.Join(chain, " -> ") + " ends in a finding with no disposition"}
	}
	// The rules table decides, for the class of the finding the chain
	// starts from and the stage of its round: a line closes it exactly
	// when spar triage could have written it for it.
	ok, why := disposition.Closing(class, start.r.rec.Stage, e)
	if !ok {
		if cur != start {
			why = "duplicate chain " + strings.Join(chain, " -> ") + " ends where " + why
		}
		return verdict{why: why}
	}
	if e.Disposition == disposition.Fixed {
		return verdict{closed: true, commit: strings.TrimSpace(e.Commit), dups: w.path[:len(w.path)-1], end: cur, chain: strings.Join(chain, " -> ")}
	}
	return verdict{closed: true}
}

// walk is where a finding's duplicate lines lead (dupWalk): the findings
// passed, the start first and last the one whose last line is no
// duplicate (or that has none); or how the chain breaks: an of that names
// no finding (unresolved), or a finding met again (cycle).
type walk struct {
	path       []target
	unresolved string
	cycle      *target
}

// dupWalk follows start's duplicate lines, the one way every check of the
// gate follows a duplicate chain (judge, the repeats' carriesBack).
func (s *seriesData) dupWalk(start target) walk {
	w := walk{path: []target{start}}
	seen := map[*finding]bool{start.f: true}
	for cur := start; ; {
		e := cur.r.last[cur.f.ID]
		if e == nil || e.Disposition != disposition.Duplicate {
			return w
		}
		t, ok := s.resolveOf(cur.r, e.Of)
		if !ok || t.f == nil {
			w.unresolved = e.Of
			return w
		}
		if seen[t.f] {
			w.cycle = &t
			return w
		}
		seen[t.f] = true
		w.path = append(w.path, t)
		cur = t
	}
}

// findings checks every defect and requirement-question of the series'
// listed, published rounds, and counts every class. Chains ending in fixed
// are judged first, so that every fixed commit of the series is checked
// against the gate's head in one batch; reasons keep the rounds' order.
func (g *gate) findings(s *seriesData) {
	type item struct {
		r *roundData
		f *finding
		v verdict
	}
	n := 0
	for _, l := range s.listed {
		if r := l.gated(); r != nil {
			n += len(r.finds)
		}
	}
	// Sized once: an item holds a verdict, and a series holds tens of
	// thousands of findings (growing the slice was a tenth of the gate).
	items := make([]item, 0, n)
	var commits []string
	for _, l := range s.listed {
		r := l.gated()
		if r == nil {
			continue
		}
		for i := range r.finds {
			f := &r.finds[i]
			if _, ok := s.repeatTarget(r, f); ok {
				continue // g.repeats judges it (reason 9r)
			}
			it := item{r: r, f: f}
			if f.Class == envelope.ClassDefect || f.Class == envelope.ClassRequirementQuestion {
				it.v = s.judge(target{r, f})
				if it.v.commit != "" {
					commits = append(commits, it.v.commit)
				}
			}
			items = append(items, it)
		}
	}
	var contained map[string]error
	if len(commits) > 0 {
		contained = Contains(s.repo, s.head, commits)
		g.fixesByPatch(s, contained)
		g.fixesByReplay(s, contained)
	}
	// docs/trust.md "The gate": the fix commit of a duplicate chain against the head
	// of each duplicate's round, one Contains per distinct head.
	byHead := map[string][]string{}
	for _, it := range items {
		for _, d := range it.v.dups {
			byHead[d.r.rec.Head] = append(byHead[d.r.rec.Head], it.v.commit)
		}
		if it.v.commit != "" {
			h := it.v.end.r.rec.Head
			byHead[h] = append(byHead[h], it.v.commit)
		}
	}
	var bases []string
	for _, r := range s.rounds {
		if r.rec != nil && r.rec.Base != "" {
			bases = append(bases, r.rec.Base)
		}
	}
	contained2 := containsEach(s.repo, bases, byHead)
	for _, it := range items {
		r, f, v := it.r, it.f, it.v
		c := g.count(f.Class)
		g.state(r, f.ID, false)
		if f.Class == envelope.ClassHardening || f.Class == envelope.ClassNote {
			e := r.last[f.ID]
			if e == nil {
				c.Open++
				g.judge(r, f.ID, "no disposition", "", false)
			} else {
				c.Closed++
				g.state(r, f.ID, true)
			}
			if f.Class == envelope.ClassHardening && !f.LocationUnreadable && e != nil && e.Disposition == disposition.Deferred && e.Auto {
				g.rec.AutoDeferred++
			}
			continue
		}
		// The triage a reason names, made only for a finding that stays
		// open (in a series of thousands of findings most are closed).
		hint := func() string {
			if g.tallyOnly {
				return ""
			}
			return triageHint(s.dirOf(r), f.ID, f.Class, r.rec.Stage)
		}
		if !v.closed {
			c.Open++
			g.judge(r, f.ID, v.why, hint(), true)
			g.reason(openCode(f.Class), "%s: round %s: %s %s is open (%s); to clear: %s", s.display, r.name, f.Class, f.ID, v.why, hint())
			g.menu(f.Class)
			continue
		}
		res := error(nil)
		if v.commit != "" {
			res = contained[v.commit]
		}
		if res == nil {
			if why, err := s.predates(v, contained2); why != "" {
				c.Open++
				g.judge(r, f.ID, why, hint(), true)
				clear := "fix it in a new commit, then " + hint()
				if err != nil {
					clear = unshallow(s)
				}
				code := Code("11p")
				if err != nil {
					code = "11s"
				}
				g.reason(code, "%s: round %s: %s %s is open (%s); to clear: %s", s.display, r.name, f.Class, f.ID, why, clear)
				if err == nil {
					g.menu(f.Class)
				}
				continue
			}
			if d, err := refound(v, contained2); err != nil {
				c.Open++
				g.judge(r, f.ID, fmt.Sprintf("whether the %s was found again after the fix %s, in round %s, cannot be told in a shallow clone", f.Class, v.commit, d.r.name), hint(), true)
				g.reason("11s", "%s: round %s: %s %s is open (duplicate chain %s ends in fixed by the commit %s, but %v: round %s may have found it again after the fix); to clear: %s",
					s.display, r.name, f.Class, f.ID, v.chain, v.commit, err, d.r.name, unshallow(s))
				continue
			} else if d != nil {
				c.Open++
				g.judge(r, f.ID, fmt.Sprintf("the %s was found again after the fix %s, in round %s", f.Class, v.commit, d.r.name), hint(), true)
				g.reason(openCode(f.Class), "%s: round %s: %s %s is open (duplicate chain %s ends in fixed by the commit %s, but round %s reviewed the head %s, which contains that commit: the %s was found again after the fix); to clear: fix it in a new commit, then %s",
					s.display, r.name, f.Class, f.ID, v.chain, v.commit, d.r.name, d.r.rec.Head, f.Class, hint())
				g.menu(f.Class)
				continue
			}
			c.Closed++
			g.state(r, f.ID, true)
			continue
		}
		c.Open++
		if errors.Is(res, errNotAncestor) {
			g.judge(r, f.ID, fmt.Sprintf("fixed by the commit %s, which the head %s does not contain", v.commit, s.head), hint(), true)
			g.reason("11", "%s: round %s: %s %s is fixed by the commit %s, which the gate's head %s does not contain; to clear: merge the fix into the head, then review the new head: %s",
				s.display, r.name, f.Class, f.ID, v.commit, s.head, s.runCommand(s.latest.rec.Base, "REV"))
			g.menu(f.Class)
			continue
		}
		var se *shallowError
		if errors.As(res, &se) {
			g.judge(r, f.ID, fmt.Sprintf("fixed by the commit %s, which the shallow clone cannot tell the head %s contains", v.commit, s.head), hint(), true)
			g.reason("11s", "%s: round %s: %s %s is fixed by the commit %s, but %v; to clear: %s",
				s.display, r.name, f.Class, f.ID, v.commit, res, unshallow(s))
			continue
		}
		g.judge(r, f.ID, fmt.Sprintf("fixed by the commit %s, which does not resolve to a commit", v.commit), hint(), true)
		g.reason("11u", "%s: round %s: %s %s is fixed by the commit %s, which does not resolve to a commit in the repository %s (%v); to clear: triage it again: %s",
			s.display, r.name, f.Class, f.ID, v.commit, s.repo, res, hint())
		g.menu(f.Class)
	}
}

// judge keeps why the gate counts a finding open, the triage that closes
// it and whether it blocks (hint "" and blocks false for a hardening or
// note, which never blocks unless inputs.go judges it as its committed
// class), for spar status and the verdict line (status.go, verdict.go).
func (g *gate) judge(r *roundData, id, why, hint string, blocks bool) {
	if g.tallyOnly {
		// The verdict line counts; no words for a round of 60,000 findings.
		why = ""
	}
	if g.open == nil {
		g.open = map[*roundData]map[string]openFinding{}
	}
	m := g.open[r]
	if m == nil {
		m = map[string]openFinding{}
		g.open[r] = m
	}
	m[id] = openFinding{why: why, hint: hint, blocks: blocks}
}

// state keeps what the gate decided about one finding, for the SARIF export:
// its last disposition and what the ledger line names, and whether the gate
// counts it closed.
func (g *gate) state(r *roundData, id string, closed bool) {
	if g.tallyOnly {
		return
	}
	m := g.states[r]
	if m == nil {
		m = map[string]sarif.State{}
		g.states[r] = m
	}
	st := sarif.State{Closed: closed}
	if e := r.last[id]; e != nil {
		st.Disposition = e.Disposition
		for _, d := range []string{e.Commit, e.Of, e.Evidence, e.To, e.UserQuote} {
			if strings.TrimSpace(d) != "" {
				st.Detail = d
				break
			}
		}
		if e.Auto {
			st.Detail = "automatic deferral of hardening"
		}
	}
	m[id] = st
}

func (g *gate) count(class string) *Count {
	switch class {
	case envelope.ClassDefect:
		return &g.rec.Findings.Defect
	case envelope.ClassRequirementQuestion:
		return &g.rec.Findings.RequirementQuestion
	case envelope.ClassHardening:
		return &g.rec.Findings.Hardening
	}
	return &g.rec.Findings.Note
}

// triageHint is the one spar triage a reason names for a finding: the
// first closing disposition of its class (dispositions).
func triageHint(dir, id, class, stage string) string {
	return "spar triage " + shellQuote(dir) + " " + shellQuote(id) + " " + dispositions(class, stage)[0]
}

// dispositions are the spar triage flags of every disposition that closes
// a finding of class in a round of stage, in the order of lib/disposition's
// rules table (its owner): the one a reason names first; the readable
// forms list them all once (report.go).
func dispositions(class, stage string) []string {
	return disposition.Forms(class, stage)
}

var errNotAncestor = errors.New("not an ancestor of the head")

// ManyCommits is how many distinct commits Contains checks one by one with
// `git merge-base --is-ancestor`; past it, one `git rev-list HEAD` lists
// every ancestor once and only the commits missing from it are checked one
// by one (the same answer, one process instead of thousands).
var ManyCommits = 16

// Contains reports for each commit whether head contains it (git merge-base
// --is-ancestor semantics: head itself included). The map holds nil for a
// contained commit, errNotAncestor for one that is not, and another error
// for a commit that does not resolve.
func Contains(repo, head string, commits []string) map[string]error {
	out := map[string]error{}
	var pending []string
	for _, c := range commits {
		if _, ok := out[c]; !ok {
			out[c] = errNotAncestor
			pending = append(pending, c)
		}
	}
	if head == "" {
		for _, c := range pending {
			out[c] = errors.New("the series has no head")
		}
		return out
	}
	if len(pending) > ManyCommits {
		if b, err := gitx.Git(repo, "rev-list", "--end-of-options", head); err == nil {
			anc := map[string]bool{}
			for _, l := range strings.Split(string(b), "\n") {
				if l != "" {
					anc[l] = true
				}
			}
			rest := pending[:0]
			for _, c := range pending {
				if anc[c] {
					out[c] = nil
				} else {
					rest = append(rest, c)
				}
			}
			pending = rest
		}
	}
	for _, c := range pending {
		out[c] = isAncestor(repo, c, head)
	}
	return out
}

func isAncestor(repo, commit, head string) error {
	id, err := gitx.ResolveCommit(repo, commit)
	if err != nil {
		if shallow(repo) {
			return &shallowError{commit: commit, head: head, missing: true}
		}
		return err
	}
	ok, err := gitx.IsAncestor(repo, id, head)
	if err == nil && !ok {
		if shallow(repo) {
			return &shallowError{commit: commit, head: head}
		}
		return errNotAncestor
	}
	return err
}

// predates says why v's fix commit is no fix ("" when it may be one):
// the head the round of v's fixed finding reviewed already contains it
// (contained: what Contains said, by head and commit). That head
// had the finding, so the fix must come after it: spar triage refuses such
// a line (docs/review-round.md §8.2), and a line written by hand closes
// nothing triage could not have written (docs/trust.md "The gate"). A
// shallow clone's no is not believed (err then says why) unless git says
// the commit descends from that head.
func (s *seriesData) predates(v verdict, contained map[string]map[string]error) (why string, err error) {
	if v.commit == "" || v.end.r == nil {
		return "", nil
	}
	h, name := v.end.r.rec.Head, v.end.r.name
	reviewed, ok := contained[h][v.commit]
	var se *shallowError
	switch {
	case !ok:
		return "", nil
	case reviewed == nil:
		return fmt.Sprintf("fixed by the commit %s, which the head %s round %s reviewed already contains: that head had the %s, so the commit is no fix of it", v.commit, h, name, v.end.f.Class), nil
	case errors.As(reviewed, &se):
		// git's yes is believed in a shallow clone too: a fix that
		// descends from the head (as a fix does) is not in it.
		if Contains(s.repo, v.commit, []string{h})[h] == nil && h != v.commit {
			return "", nil
		}
		return fmt.Sprintf("fixed by the commit %s, but %v: whether the head %s round %s reviewed already contains it cannot be told", v.commit, reviewed, h, name), reviewed
	}
	return "", nil
}

// refound is the first finding of v's duplicate chain whose round reviewed
// a head that contains v's fix commit, or nil; or the first whose head a
// shallow clone cannot tell about, with why (fail closed).
func refound(v verdict, contained map[string]map[string]error) (*target, error) {
	for i := range v.dups {
		d := &v.dups[i]
		err, ok := contained[d.r.rec.Head][v.commit]
		if !ok {
			continue
		}
		var se *shallowError
		if err == nil || errors.As(err, &se) {
			return d, err
		}
	}
	return nil, nil
}
