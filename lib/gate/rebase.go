package gate

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jaekit/spar/lib/gitx"
	"github.com/jaekit/spar/lib/replay"
)

// Credit by content (docs/review-gate.md §3, "Credit by content"): a
// rebase, an amend or a squash makes a new head commit H′ where the
// series' latest counted round reviewed H. When H′ holds what H held, the
// review holds for it: the gate credits H′ with the round and judges the
// series against H, whose history the rounds, fixes and coverage name.
//
// identity: H′'s tree is H's tree, byte for byte (git's tree ids are the
// hash of the content): nothing the reviewers did not see is in H′.
// replay: with --expect-base, git replays the reviewed change onto H′'s
// base and gets H′'s tree; otherwise the residual (7r) or the conflict (7x)
// is named. The record says so in credits, and the lines of spar gate show
// it. A fix commit a rebase rewrote is found again by its patch id
// (fixesByPatch).

// Credit is one head the gate credited with a round it did not review by
// its commit id: how (identity or replay) and the gate's words.
type Credit struct {
	Series   string `json:"series"`
	Head     string `json:"head"`     // the gate's head
	Round    string `json:"round"`    // the round credited
	Reviewed string `json:"reviewed"` // the head that round reviewed
	How      string `json:"how"`      // identity or replay
	Words    string `json:"words"`
}

// creditByContent credits the gate's head of s (H′) with the latest
// counted round, which reviewed H, when H′ holds what H held: identity (the
// same tree) or, with --expect-base (a base the caller trusts), replay
// (replaying the reviewed change onto H′'s base gives H′'s tree). From
// then on the gate holds the series against H (s.head), and s.gated keeps
// the head it was asked about. A replay that gives another tree names the
// residual files (7r); one that conflicts is unverifiable (7x); either
// blocks instead of 7 and 7h (s.judged).
func (g *gate) creditByContent(s *seriesData) {
	if s.repo == "" || s.latest == nil || s.latest.rec == nil || s.latest.state != published || s.head == "" {
		return
	}
	reviewed := s.latest.rec.Head
	if reviewed == "" || reviewed == s.head {
		return
	}
	want, err := gitx.TreeID(s.repo, s.head)
	if err != nil {
		return
	}
	got, err := gitx.TreeID(s.repo, reviewed)
	if err != nil {
		return
	}
	if got == want {
		g.credit(s, reviewed, "identity", fmt.Sprintf("reviewed as %s (head %s, identical tree)", s.latest.name, abbrev(reviewed)))
		return
	}
	if !g.opts.ExpectBaseGiven {
		// Replay only onto a base the caller trusts: without one, a
		// head rebased onto a branch of the agent's own would be
		// credited with whatever that branch holds.
		return
	}
	if shallow(s.repo) {
		// A merge base in a history cut short may be any commit: no
		// replay is believed there (spar fetch fetches it whole).
		return
	}
	ok, err := gitx.IsAncestor(s.repo, reviewed, s.head)
	if err != nil {
		return
	}
	if ok {
		// Commits made on top of the reviewed head: credited only when
		// they are the reviewed change merged with the base (the base
		// merged into the branch, a merge commit on main), git's replay
		// giving the head's tree exactly; otherwise 7 and 7h say what
		// was not reviewed, and the next round is a follow-up.
		g.mergedOnTop(s, reviewed, want)
		return
	}
	g.replay(s, reviewed, want)
}

// mergedOnTop credits a head H′ that descends from the reviewed head H by
// replay when H′ holds nothing but the reviewed change merged with its
// base: the merge base of --expect-base and H′ has moved on from the
// reviewed base (the base was merged in), and git's replay of the
// reviewed change onto it gives H′'s tree exactly. Anything else is left
// to 7 and 7h, silently: commits made on top of H are a follow-up's.
func (g *gate) mergedOnTop(s *seriesData, reviewed, want string) {
	e, err := gitx.ResolveCommit(s.repo, g.opts.ExpectBase)
	if err != nil {
		return
	}
	old, err1 := mergeBase(s.repo, e, reviewed)
	onto, err2 := mergeBase(s.repo, e, s.head)
	if err1 != nil || err2 != nil || onto == old {
		return
	}
	if mb, err := mergeBase(s.repo, onto, reviewed); err != nil || mb != old {
		return
	}
	res, err := replay.Onto(s.repo, onto, reviewed)
	if err != nil || len(res.Conflicts) > 0 || res.Tree != want {
		return
	}
	g.credit(s, reviewed, "replay", fmt.Sprintf("reviewed as %s (head %s, merged with %s: identical to the replay)", s.latest.name, abbrev(reviewed), abbrev(onto)))
}

// replay: the change the latest counted round of s reviewed, from old (the
// merge base of --expect-base and its head H) to H, replayed by git onto
// the gated head's base (the merge base of --expect-base and H′), with
// git merge-tree from the checkout's objects. git merge-tree (2.38) takes
// the merge base of its two commits as the replay's base, so the replay is
// the reviewed change only when that merge base is old: a new base that
// descends from the old one (a rebase onto a main that moved on), or the
// old base itself (an amend).
func (g *gate) replay(s *seriesData, reviewed, want string) {
	e, err := gitx.ResolveCommit(s.repo, g.opts.ExpectBase)
	if err != nil {
		return // expectedBase says so (14b)
	}
	old, err1 := mergeBase(s.repo, e, reviewed)
	onto, err2 := mergeBase(s.repo, e, s.head)
	if err1 != nil || err2 != nil {
		return // expectedBase says so (14b)
	}
	s.judged = true
	if mb, err := mergeBase(s.repo, onto, reviewed); err != nil || mb != old {
		g.reason("7x", "%s: round %s reviewed %s..%s, and the gate's head %s is not credited with it: its base %s (the merge base of --expect-base %s and the head) does not descend from the reviewed base %s, so the reviewed change cannot be replayed onto it (unverifiable); to clear: review the head in a new round: %s",
			s.display, s.latest.name, abbrev(old), abbrev(reviewed), s.head, abbrev(onto), shellQuote(g.opts.ExpectBase), abbrev(old), s.nextRun())
		return
	}
	res, err := replay.Onto(s.repo, onto, reviewed)
	if err != nil {
		g.reason("7x", "%s: round %s reviewed %s..%s, and the gate's head %s is not credited with it: git cannot replay the reviewed change onto %s (%s) (unverifiable); to clear: review the head in a new round: %s",
			s.display, s.latest.name, abbrev(old), abbrev(reviewed), s.head, abbrev(onto), oneLine(fmt.Sprint(err)), s.nextRun())
		return
	}
	if len(res.Conflicts) == 0 && res.Tree == want {
		s.judged = false
		g.credit(s, reviewed, "replay", fmt.Sprintf("reviewed as %s (head %s, replayed onto %s: identical)", s.latest.name, abbrev(reviewed), abbrev(onto)))
		return
	}
	files, err := replay.Differ(s.repo, res.Tree, want)
	if err != nil {
		files = []string{"(git cannot list them)"}
	}
	what := fmt.Sprintf("%d files differ", len(files))
	if len(files) == 1 {
		what = "1 file differs"
	}
	conflicts := ""
	if len(res.Conflicts) > 0 {
		conflicts = fmt.Sprintf("replaying the reviewed change onto %s (the merge base of --expect-base %s and the head) conflicts in %s, so what resolving it made was never reviewed (unverifiable)",
			abbrev(onto), shellQuote(g.opts.ExpectBase), strings.Join(res.Conflicts, ", "))
		left, err := replay.Unresolved(s.repo, res, onto, reviewed, want)
		if err != nil {
			left = res.Conflicts
		}
		if len(left) > 0 {
			// No diff from the replay shows a file the head holds as
			// git's replay left it, conflict markers and all.
			g.reason("7x", "%s: round %s reviewed %s..%s, and the gate's head %s is not credited with it: %s, and the head still holds git's conflict markers in %s as the replay left them; to clear: resolve the conflict, commit, and gate the new head",
				s.display, s.latest.name, abbrev(old), abbrev(reviewed), s.head, conflicts, strings.Join(left, ", "))
			return
		}
		if len(files) == 0 {
			// Resolved as git's replay left it (a file one side
			// deleted, kept): a round from the replay would show
			// nothing, so the whole head is reviewed.
			g.reason("7x", "%s: round %s reviewed %s..%s, and the gate's head %s is not credited with it: %s; to clear: review the head in a new round: %s",
				s.display, s.latest.name, abbrev(old), abbrev(reviewed), s.head, conflicts, s.nextRun())
			return
		}
	}
	clear := "review the head in a new round: "
	if rc, err := replay.Commit(s.repo, onto, reviewed, res.Tree); err == nil {
		// The round that clears it reviews exactly the residual: from
		// the replay (a commit the gate wrote, the same for every
		// gate that computes it) to the head.
		s.residualBase = rc
		markers := ""
		if conflicts != "" {
			markers = ", git's conflict markers where it conflicts"
		}
		clear = fmt.Sprintf("review exactly the residual in a round from the replay %s (a commit the gate wrote: the reviewed change replayed onto %s%s) to the head: ", rc, abbrev(onto), markers)
	}
	if conflicts != "" {
		g.reason("7x", "%s: round %s reviewed %s..%s, and the gate's head %s is not credited with it: %s; residual: %s from the replay: %s; to clear: %s%s",
			s.display, s.latest.name, abbrev(old), abbrev(reviewed), s.head, conflicts, what, strings.Join(files, ", "), clear, s.nextRun())
		return
	}
	g.reason("7r", "%s: round %s reviewed %s..%s, and the gate's head %s is not credited with it: residual: %s from the reviewed change replayed onto %s: %s; those changes were never reviewed; to clear: %s%s",
		s.display, s.latest.name, abbrev(old), abbrev(reviewed), s.head, what, abbrev(onto), strings.Join(files, ", "), clear, s.nextRun())
}

// replayReached: a round whose range starts at a replay commit R
// (replay.Commit: parents from, the merge base of --expect-base and the
// gate's head, and X) starts where the reviews reach when git's replay of
// the change from old (the merge base of --expect-base and X) to X onto
// from gives R's tree exactly, and the rounds chain from old to X: the
// reviewed change, replayed, then the residual the round reviewed from R.
// Every fact is git's, from the checkout's objects; R's parents only say
// which replay to compute. It returns the replay commits so reached.
func (g *gate) replayReached(s *seriesData, e, from string, rounds []*roundData, shows func(*roundData) string, reach map[string]bool) []string {
	if shallow(s.repo) {
		return nil
	}
	heads := map[string]bool{}
	for _, r := range rounds {
		heads[r.rec.Head] = true
	}
	var got []string
	for _, r := range rounds {
		start := reviewedFrom(r.rec)
		if reach[start] || slices.Contains(got, start) {
			continue
		}
		x, old, res, ok := replayBase(s.repo, e, from, start, heads)
		if !ok {
			continue
		}
		if len(res.Conflicts) > 0 {
			// A conflict the head still holds as git left it is in no
			// diff from the replay: never reviewed.
			tree, err := gitx.TreeID(s.repo, s.head)
			if err != nil {
				continue
			}
			if left, err := replay.Unresolved(s.repo, res, from, x, tree); err != nil || len(left) > 0 {
				continue
			}
		}
		if before, _ := g.chain(s, old, rounds, shows); !before[x] {
			continue
		}
		got = append(got, start)
	}
	return got
}

// replayBase reports whether start is a replay commit the gate believes
// (one replay.Commit writes for a residual, or the same by content): its parents are from (the merge base of
// --expect-base e and the gate's head) and a head X (one of heads, when
// given), git's merge base of from and X is that of e and X (the replay is
// of the reviewed change), and git's replay of X onto from gives start's
// tree exactly. It returns X, the reviewed base (the merge base of e and
// X) and the replay.
func replayBase(repo, e, from, start string, heads map[string]bool) (x, old string, res replay.Result, ok bool) {
	p, err := replay.Parents(repo, start)
	if err != nil || len(p) != 2 || p[0] != from || (heads != nil && !heads[p[1]]) {
		return "", "", replay.Result{}, false
	}
	x = p[1]
	old, err1 := mergeBase(repo, e, x)
	mb, err2 := mergeBase(repo, from, x)
	if err1 != nil || err2 != nil || mb != old {
		return "", "", replay.Result{}, false
	}
	res, ok, err = replay.Verify(repo, start, from, x)
	if err != nil || !ok {
		return "", "", replay.Result{}, false
	}
	return x, old, res, true
}

// rebaseAdvice: when the latest round reviewed a head that the gate's head
// does not contain (a rebase, an amend), the next run reviews the rebased
// change whole: from the merge base of --expect-base and the head when
// given, with a first round's packet (--full), a follow-up's delta being
// from a head the rebase left behind.
func (g *gate) rebaseAdvice(s *seriesData) {
	if s.repo == "" || s.latest == nil || s.latest.rec == nil || s.head == "" || s.latest.rec.Head == "" || s.latest.rec.Head == s.head {
		return
	}
	ok, err := gitx.IsAncestor(s.repo, s.latest.rec.Head, s.head)
	if err != nil {
		// A reviewed head the repository lacks (a fresh clone after a
		// force-push, 7m) is one the rebase left behind too: a
		// follow-up's delta from it cannot even be built.
		if _, lack, cerr := gitx.Commits(s.repo, []string{s.latest.rec.Head}); cerr != nil || len(lack) == 0 {
			return
		}
	} else if ok {
		return
	} else if back, err := gitx.IsAncestor(s.repo, s.head, s.latest.rec.Head); err == nil && !back {
		s.rewritten = true
	}
	s.full = true
	if !g.opts.ExpectBaseGiven {
		return
	}
	e, err := gitx.ResolveCommit(s.repo, g.opts.ExpectBase)
	if err != nil {
		return
	}
	if mb, err := mergeBase(s.repo, e, s.head); err == nil {
		s.nextBase = mb
	}
}

// credit credits the gate's head of s with the latest counted round, which
// reviewed the head reviewed: how and the gate's words go into the record.
func (g *gate) credit(s *seriesData, reviewed, how, words string) {
	s.gated, s.head = s.head, reviewed
	g.rec.Credits = append(g.rec.Credits, Credit{Series: s.display, Head: s.gated, Round: s.latest.name, Reviewed: reviewed, How: how, Words: words})
}

// mergeBase is git's merge base of a and b in repo.
func mergeBase(repo, a, b string) (string, error) {
	out, err := gitx.Git(repo, "merge-base", "--end-of-options", a, b)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// headJudged reports whether the gate's head of s was judged by content
// against the latest counted round (creditByContent): credited, or
// blocked as residual or unverifiable (7r, 7x) instead of 7 and 7h.
func (s *seriesData) headJudged() bool { return s.gated != "" || s.judged }

// abbrev is a commit id as git abbreviates it by default (7 digits), for
// the gate's words of a credit; the record's fields hold the whole id.
func abbrev(id string) string {
	if len(id) > 7 {
		return id[:7]
	}
	return id
}

// maxPatchRange bounds the commits of the head's change whose patch ids
// fixesByPatch computes: a pull request is a few commits, and a series
// whose base lies further back than this is held to ancestry alone.
const maxPatchRange = 1000

// fixesByPatch: a fixed disposition whose commit F the gate's head does
// not contain (contained[F] is errNotAncestor: a rebase rewrote it) holds
// when a commit of the head's change has F's git patch-id --stable: the
// same change, rebased. The head's change is what the head holds and its
// base does not, the base being the merge base of --expect-base and the
// head when given, else the latest counted round's base; merges are left
// out (a patch id is a single parent's diff). Nobody retypes a triage
// because a commit id changed; a rebase that dropped or altered the fix
// finds no commit of that patch, and the finding stays open (11).
func (g *gate) fixesByPatch(s *seriesData, contained map[string]error) {
	var lost []string
	for c, err := range contained {
		if errors.Is(err, errNotAncestor) {
			lost = append(lost, c)
		}
	}
	if len(lost) == 0 || s.head == "" || s.latest == nil || s.latest.rec == nil {
		return
	}
	slices.Sort(lost)
	base := s.latest.rec.Base
	if g.opts.ExpectBaseGiven {
		e, err := gitx.ResolveCommit(s.repo, g.opts.ExpectBase)
		if err != nil {
			return
		}
		if base, err = mergeBase(s.repo, e, s.head); err != nil {
			return
		}
	}
	ours, err := replay.PatchIDs(s.repo, "--no-merges", fmt.Sprintf("--max-count=%d", maxPatchRange), "--end-of-options", s.head, "^"+base)
	if err != nil || len(ours) == 0 {
		return
	}
	byPatch := map[string]bool{}
	for _, id := range ours {
		byPatch[id] = true
	}
	theirs, err := replay.PatchIDs(s.repo, append([]string{"--no-walk", "--end-of-options"}, lost...)...)
	if err != nil {
		return
	}
	for _, c := range lost {
		if id := theirs[c]; id != "" && byPatch[id] {
			contained[c] = nil
		}
	}
}

// fixesByReplay: a fixed disposition whose commit F the gate's head does
// not contain and no commit of the head's change matches by patch id
// (fixesByPatch; the fix squashed with other commits, say) still holds
// when a counted code round reviewed from a replay commit R (a residual
// round) whose replayed head X contains F, and the gate's head holds every
// file F changes exactly as the replay does: the fix's content, replayed by
// git, is what the head holds, and the round from R reviewed every other
// byte. Only with --expect-base (replay onto a base the caller trusts) and
// a whole history, as creditByContent. A file of F's where the replay
// conflicted, or that a later commit changed, is not the fix replayed: the
// finding stays open until a triage names the commit that fixes it now.
func (g *gate) fixesByReplay(s *seriesData, contained map[string]error) {
	var lost []string
	for c, err := range contained {
		if errors.Is(err, errNotAncestor) {
			lost = append(lost, c)
		}
	}
	if len(lost) == 0 || !g.opts.ExpectBaseGiven || s.head == "" || shallow(s.repo) {
		return
	}
	slices.Sort(lost)
	e, err := gitx.ResolveCommit(s.repo, g.opts.ExpectBase)
	if err != nil {
		return
	}
	from, err := mergeBase(s.repo, e, s.head)
	if err != nil {
		return
	}
	done := map[string]bool{}
	for _, r := range s.rounds {
		if r.state != published || r.rec == nil || r.rec.DryRun || r.pending || r.rec.Stage != "code" || !s.counts(r) {
			continue
		}
		start := reviewedFrom(r.rec)
		if done[start] {
			continue
		}
		done[start] = true
		x, _, res, ok := replayBase(s.repo, e, from, start, nil)
		if !ok {
			continue
		}
		for _, c := range lost {
			if contained[c] == nil {
				continue
			}
			if in, err := gitx.IsAncestor(s.repo, c, x); err != nil || !in {
				continue
			}
			files, err := replay.Touched(s.repo, c)
			if err != nil || len(files) == 0 || slices.ContainsFunc(files, func(f string) bool { return slices.Contains(res.Conflicts, f) }) {
				// A file of the fix where the replay conflicted holds
				// git's markers, or (a binary file, one side's
				// deletion) one side only: not the fix replayed.
				continue
			}
			if differ, err := replay.Differ(s.repo, start, s.head, files...); err == nil && len(differ) == 0 {
				contained[c] = nil
			}
		}
	}
}
