package gate

import (
	"errors"
	"path/filepath"
	"strings"

	"github.com/jaekit/spar/lib/gitx"
	"github.com/jaekit/spar/lib/publog"
	"github.com/jaekit/spar/lib/seriesref"
)

// published: docs/review-gate.md §3 reason 5g. A series only grows
// (docs/trust.md "A series only grows"): where the series' repository
// holds its publish history (refs/spar/series/<name>, and the remote's as
// spar fetch left it under refs/spar/fetched/<name>), every publish of it
// must hold its parent's records (lib/publog.Walk: a fast-forward whose
// tree lacks a round passed as a plain push), and the series folder must
// hold what the last publish of this repository holds (publog.Holds: a
// round removed after it was pushed). A series never published, or a
// folder whose name is no series ref, has no history to hold it to.
func (g *gate) published(s *seriesData) {
	repo := s.repo
	if repo == "" {
		// No round of the series read (every one unreadable): its
		// history is still the series' own, in the repository that holds
		// the folder (or --repo).
		where := s.abs
		if g.opts.Repo != "" {
			where = g.opts.Repo
		}
		if top, err := gitx.TopLevel(where); err == nil {
			repo = top
		} else {
			return
		}
	}
	name := filepath.Base(s.abs)
	n, err := seriesref.CheckName(name)
	if err != nil {
		return
	}
	refs := []string{seriesref.Ref(n.String()), "refs/spar/fetched/" + n.String()}
	out, err := gitx.Git(repo, append([]string{"for-each-ref", "--format=%(refname) %(objectname) %(objecttype)"}, refs...)...)
	if err != nil {
		return
	}
	tips := map[string]string{}
	for _, l := range strings.Split(string(out), "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[2] == "commit" {
			tips[f[0]] = f[1]
		}
	}
	walked := map[string]bool{}
	for _, ref := range refs {
		tip := tips[ref]
		if tip == "" || walked[tip] {
			continue
		}
		walked[tip] = true
		if _, err := publog.Walk(repo, tip); err != nil {
			var v *publog.Violation
			if errors.As(err, &v) || errors.Is(err, publog.ErrTooLong) {
				g.reason("5g", "%s: %s: %v, and that publish stays in the series' history; to clear: review the change in a new series (a series only grows: its records cannot be taken back)",
					s.display, ref, err)
			} else {
				g.reason("5g", "%s: the publish history of %s cannot be read (%s); to clear: fetch the series again: spar fetch %s --out DIR",
					s.display, ref, oneLine(err.Error()), shellQuote(name))
			}
			return
		}
	}
	if tip := tips[refs[0]]; tip != "" {
		if err := publog.Holds(repo, tip, s.abs); err != nil {
			g.reason("5g", "%s: %v; to clear: restore the series' records as they were published, which spar fetch %s --out DIR writes",
				s.display, err, shellQuote(name))
		}
	}
}
