package gate

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/jaekit/spar/lib/gitx"
)

// missingCommits: docs/review-gate.md §3, reason 7m. A round's base or head
// that the repository lacks (not a shallow clone: shallowHistory says that
// one) is a commit no branch of this clone holds: the pull request was
// rebased and force-pushed, and the clone never fetched what the rounds
// reviewed. The gate cannot re-derive such a round; it says so once, with
// what brings the commits (spar fetch: spar push keeps them on
// refs/spar/commits/<name>) or the round that reviews the current head,
// and no other reason of those rounds names the missing commits in a
// command (runLike) or misreads them as a round whose records were edited
// (rederive).
func (g *gate) missingCommits(s *seriesData) {
	if s.repo == "" || s.latest == nil {
		return
	}
	var ids []string
	var whose []string
	asked := map[string]bool{}
	for _, r := range s.rounds {
		if r.rec == nil || r.rec.DryRun {
			continue
		}
		for _, c := range []struct{ id, what string }{{r.rec.Base, "base"}, {r.rec.Head, "head"}} {
			if c.id == "" || asked[c.id] {
				continue
			}
			asked[c.id] = true
			ids = append(ids, c.id)
			whose = append(whose, fmt.Sprintf("round %s's %s", r.name, c.what))
		}
	}
	_, lack, err := gitx.Commits(s.repo, ids)
	if err != nil || len(lack) == 0 {
		return
	}
	s.lacks = map[string]bool{}
	for _, id := range lack {
		s.lacks[id] = true
	}
	if g.opts.ExpectBaseGiven && s.head != "" {
		if base, err := gitx.ResolveCommit(s.repo, g.opts.ExpectBase); err == nil {
			if out, err := gitx.Git(s.repo, "merge-base", "--end-of-options", base, s.head); err == nil {
				s.changeBase = strings.TrimSpace(string(out))
			}
		}
	}
	if shallow(s.repo) {
		// shallowHistory named them, with the depth that brings them.
		return
	}
	var named []string
	for i, id := range ids {
		if s.lacks[id] {
			named = append(named, fmt.Sprintf("%s (%s)", id, whose[i]))
		}
	}
	name := filepath.Base(s.abs)
	g.reason("7m", "%s: the repository %s lacks %s: no branch of this clone holds what the rounds reviewed (a rebase or force-push rewrote the branch), so the gate cannot re-derive those rounds; to clear: fetch the reviewed commits with the series (spar push keeps them on refs/spar/commits/%s): spar fetch %s --out DIR, or review the current head in a new round: %s",
		s.display, s.repo, strings.Join(named, ", "), name, shellQuote(name), s.nextRun())
}

// present is id, or when the repository lacks it (missingCommits) what a
// command names instead: the gate's head for a head, the merge base of
// --expect-base and the gate's head for a base, else the placeholder.
func (s *seriesData) present(id, placeholder string) string {
	if !s.lacks[id] {
		return id
	}
	switch {
	case placeholder == "HEAD" && s.head != "" && !s.lacks[s.head]:
		return s.head
	case placeholder == "BASE" && s.changeBase != "":
		return s.changeBase
	}
	return placeholder
}

// lacking reports whether the repository lacks r's base or head.
func (s *seriesData) lacking(r *roundData) bool {
	return r.rec != nil && (s.lacks[r.rec.Base] || s.lacks[r.rec.Head])
}
