package gate

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/jaekit/spar/lib/gitx"
	"github.com/jaekit/spar/lib/round"
)

// The repository the gate finds a series' commits in (docs/review-gate.md
// §1): --repo when given; else the first of the working folder's
// repository, the repository that holds the series folder, and (only for a
// series folder in no repository, underWorkTree) the absolute path
// round.json recorded, that holds the commit the round reviewed ("found by
// its commits"). So a series made on a laptop and
// fetched into a CI checkout is gated against the checkout's commits, never
// against a path of the laptop, and a path that is gone does not matter.

// repoFor is the repository of the series folder series, decided at its
// first round rec ("" for the recorded one).
func (g *gate) repoFor(series string, rec *round.Record) string {
	g.reposMu.Lock()
	defer g.reposMu.Unlock()
	if g.repos == nil {
		g.repos = map[string]string{}
	}
	if r, ok := g.repos[series]; ok {
		return r
	}
	r := ""
	if g.opts.Repo != "" {
		r, _ = gitx.TopLevel(g.opts.Repo)
	} else {
		var candidates []string
		if wd, err := os.Getwd(); err == nil {
			if top, err := gitx.TopLevel(wd); err == nil {
				candidates = append(candidates, top)
			}
		}
		top, topErr := gitx.TopLevel(series)
		if topErr == nil {
			candidates = append(candidates, top)
		}
		// The path round.json recorded is a candidate only for a series
		// folder that lies in no repository: a record never picks the
		// repository it is held against over the one that holds its series
		// (docs/trust.md "The gate"). A series reviewed in a throwaway
		// repository and copied into the reviews/ of the real one was held
		// against the throwaway repository's HEAD, and passed.
		// In no repository by every measure: as its path names it, as
		// the folder it opens lies (its links followed), and as git finds
		// one from it. A link from outside every repository to the real
		// one's reviews/ (out/lnk/s) names no repository, yet opens the
		// real series (gate/trust_repository_path.txtar).
		if rec.Repo != "" && topErr != nil && !underWorkTree(series) && !underWorkTree(realPath(series)) {
			candidates = append(candidates, rec.Repo)
		}
		for _, c := range candidates {
			if _, err := gitx.ResolveCommit(c, rec.Head); err == nil {
				r = c
				break
			}
		}
		if r == "" && len(candidates) > 0 {
			r = candidates[0]
		}
	}
	g.repos[series] = r
	return r
}

// underWorkTree reports whether the folder dir, or any folder its path
// names above it, holds .git: dir lies in a repository's work tree as its
// path names it, links not followed (a series folder, or its reviews/,
// made a link to a folder outside every repository is still the
// repository's).
func underWorkTree(dir string) bool {
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return true
		}
		if filepath.Dir(d) == d {
			return false
		}
	}
}

// relocate points a round read from series at the gate's repository: its
// repo, and the path of each document that lay inside the recorded
// repository, moved to the same place in the gate's (the file the checkout
// holds there). Documents outside the recorded repository keep their
// paths. Nothing is written: round.json stays as recorded.
func (g *gate) relocate(series string, rec *round.Record) {
	repo := g.repoFor(series, rec)
	if repo == "" || repo == rec.Repo || rec.Repo == "" {
		return
	}
	old := rec.Repo
	rec.Repo = repo
	for i := range rec.Documents {
		d := &rec.Documents[i]
		if rel, ok := inside(old, d.Path); ok {
			d.Path = filepath.Join(repo, rel)
		}
	}
}

// realPath is dir with its links followed; dir itself when they cannot be.
func realPath(dir string) string {
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		return r
	}
	return dir
}

// inside is p relative to dir when p lies inside it.
func inside(dir, p string) (string, bool) {
	rel, err := filepath.Rel(dir, p)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return rel, true
}
