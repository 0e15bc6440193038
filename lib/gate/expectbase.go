package gate

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/gitx"
	"github.com/jaekit/spar/lib/packet"
	"github.com/jaekit/spar/lib/round"
)

// expectedBase: docs/review-gate.md §3, reason 14b. A series' base is the
// caller's to choose (spar run --base), and coverage (14) holds the rounds
// only to the base of the series' own first counted round: a review of the
// last, harmless commit of a change (--base HEAD~1), or a plan round whose
// base is its head, passed a gate that was told only the head. Whoever runs
// the gate (CI: the pull request's base) says where the change starts with
// --expect-base; the change is then the merge base of that commit and the
// gate's head to the gate's head, and each required reviewer (any reviewer
// when none is required) must have completed code rounds whose ranges
// chain from it to the gate's head (the chain of coverage: a round whose
// base is the merge base or an ancestor of it reviewed that range and more).
// Only code rounds count: a plan round reviews a plan, not the change.
func (g *gate) expectedBase(s *seriesData) {
	if !g.opts.ExpectBaseGiven || s.latest == nil || s.head == "" {
		return
	}
	base, err := gitx.ResolveCommit(s.repo, g.opts.ExpectBase)
	if err != nil {
		g.unresolved(s, "14b", "--expect-base", g.opts.ExpectBase, err, ", so the gate does not know where the change starts")
		return
	}
	out, err := gitx.Git(s.repo, "merge-base", "--end-of-options", base, s.head)
	from := strings.TrimSpace(string(out))
	if err != nil || from == "" {
		g.reason("14b", "%s: --expect-base %s (%s) and the gate's head %s have no merge base in the repository %s, so no review of the series covers the change between them; to clear: give the base the change was made on, or fetch the whole history (git -C %s fetch --unshallow)",
			s.display, shellQuote(g.opts.ExpectBase), base, s.head, s.repo, shellQuote(s.repo))
		return
	}
	if g.rec.ExpectBase != nil && g.rec.ExpectBase.MergeBase == nil {
		g.rec.ExpectBase.Commit, g.rec.ExpectBase.MergeBase = &base, &from
	}
	if s.latest.rec == nil || s.latest.rec.Head != s.head {
		// The latest round reviewed another head: 7 or 7h blocks already.
		return
	}
	var rounds []*roundData
	for _, r := range s.rounds {
		if r.state == published && r.rec != nil && !r.rec.DryRun && !r.pending && r.rec.Stage == "code" && s.counts(r) {
			rounds = append(rounds, r)
		}
	}
	reqs := g.required(s)
	anyone := len(reqs) == 0
	if anyone {
		reqs = []envelope.RequiredReviewer{{}}
	}
	// The round that clears it repeats the series' latest code round's
	// arguments; with none, the latest round's as a first code round (a
	// plan's subject left out).
	tmpl, name := s.latest.rec, s.latest.name
	if n := len(rounds); n > 0 {
		tmpl, name = rounds[n-1].rec, rounds[n-1].name
	}
	code := *tmpl
	if code.Stage != "code" {
		code.Stage, name = "code", "code-0"
		code.Documents = nil
		for _, d := range tmpl.Documents {
			if d.Role != "subject" {
				code.Documents = append(code.Documents, d)
			}
		}
	}
	// A round's base and head are round.json's, which anyone who can write
	// the series edits: a round is credited with its range only when its
	// packet.md, the packet its reviewers read, is the one round.json names
	// and shows that range and git's changes over it (packetShows).
	problems := map[*roundData]string{}
	shows := func(r *roundData) string {
		p, ok := problems[r]
		if !ok {
			p = packetShows(s.repo, r)
			problems[r] = p
		}
		return p
	}
	for _, req := range reqs {
		var mine []*roundData
		for _, r := range rounds {
			if reviewed(r, req, anyone) {
				mine = append(mine, r)
			}
		}
		reach, why := g.chain(s, from, mine, shows)
		if !reach[s.head] {
			// A round of the residual a rebase left (7r), from the
			// replay of the reviewed change onto from.
			if extra := g.replayReached(s, base, from, mine, shows, reach); len(extra) > 0 {
				reach, why = g.chainFrom(s, append([]string{from}, extra...), mine, shows)
			}
		}
		if reach[s.head] {
			continue
		}
		who := fmt.Sprintf("required reviewer %s (%s)", req.Name, req.Preset)
		if anyone {
			who = "any reviewer"
		}
		have := "no completed code review of " + who
		if len(mine) > 0 {
			var ranges []string
			for _, r := range mine {
				rg := fmt.Sprintf("%s %s..%s", r.name, short(reviewedFrom(r.rec)), short(r.rec.Head))
				if w := why[r]; w != "" {
					rg += " (not credited: " + w + ")"
				}
				ranges = append(ranges, rg)
			}
			have = "the completed code reviews of " + who + " cover " + strings.Join(ranges, ", ") + ", which do not chain from " + short(from) + " to " + short(s.head)
		}
		g.reason("14b", "%s: the code reviews do not cover the change --expect-base %s makes, %s..%s (from its merge base with the gate's head): %s; to clear: review the whole change in a new code round: %s",
			s.display, shellQuote(g.opts.ExpectBase), short(from), short(s.head), have, runLike(s, &code, name, from, s.head, req.Name))
	}
}

// packetShows is "" when the round r's packet.md is the packet round.json
// names (packet_sha256) and its "## The change" section is the one built
// from round.json's stage, base, head, series and changed files, and those
// changed files are what git gives from base to head in repo (with the
// round's check paths and exclude globs); otherwise what differs. A base
// edited in round.json alone (a review of the last commit relabelled as
// one of the whole change) fails here: the packet its reviewers read shows
// the range they reviewed.
func packetShows(repo string, r *roundData) string {
	rec, err := round.ReadRecord(r.abs)
	if err != nil {
		return "round.json cannot be read whole"
	}
	md, err := round.ReadFile(filepath.Join(r.abs, round.PacketFile))
	if err != nil {
		return "its packet.md cannot be read"
	}
	sum := sha256.Sum256(md)
	if hex.EncodeToString(sum[:]) != rec.PacketSHA256 {
		return "its packet.md is not the packet round.json names"
	}
	run := &envelope.Run{Stage: rec.Stage, Base: rec.Base, Head: rec.Head, Series: rec.Series, Changes: rec.Changes, Excluded: rec.Excluded}
	if !strings.Contains(string(md), packet.ChangeSection(run)) {
		return "its packet.md shows another change than round.json's base, head and changed files"
	}
	changes, excluded, err := packet.Changes(repo, rec.Base, rec.Head, rec.CheckPaths, rec.Config.Exclude)
	if err != nil {
		return "git cannot give its change from base to head"
	}
	for i := range changes {
		changes[i].Path, changes[i].OldPath = packet.JSONText(changes[i].Path), packet.JSONText(changes[i].OldPath)
	}
	for i := range excluded {
		excluded[i] = packet.JSONText(excluded[i])
	}
	if !slices.Equal(changes, rec.Changes) || !slices.Equal(excluded, rec.Excluded) {
		return "its changed files are not what git gives from its base to its head"
	}
	return ""
}
