package gate

import (
	"fmt"
	"strings"

	"github.com/jaekit/spar/lib/gitx"
)

// A shallow clone (actions/checkout's default depth of 1) lacks the
// commits below its depth, and git walking it answers "not an ancestor"
// where the history it lacks would say yes. The gate needs the history the
// rounds reviewed (docs/usage.md §7.2): a commit a round names that the
// clone lacks is one reason that says so, and a "no" of a shallow clone is
// never believed where it would close a finding (refound).

// shallowError is a "no" of a shallow clone: git walks the history it
// holds, which stops at commits whose parents it lacks, so it cannot tell
// that head does not contain commit (docs/usage.md §7.2).
type shallowError struct {
	commit, head string
	missing      bool // commit is not in the clone at all
}

func (e *shallowError) Error() string {
	if e.missing {
		return fmt.Sprintf("the repository is a shallow clone without the commit %s, so whether %s contains it cannot be told", e.commit, e.head)
	}
	return fmt.Sprintf("the repository is a shallow clone whose history may stop between %s and %s, so whether %s contains %s cannot be told", e.head, e.commit, e.head, e.commit)
}

// shallow reports a shallow clone; a repository git cannot answer for is
// taken as one (a "no" it gives is not believed). Asked afresh each time
// (gitx.Shallow reads a file, no git process): a clone unshallowed since
// the last gate of this process is believed again, and one made shallow
// since is not.
func shallow(repo string) bool {
	s, err := gitx.Shallow(repo)
	return s || err != nil
}

// unshallow is what clears a reason of a shallow clone.
func unshallow(s *seriesData) string {
	// The command last (CommandOf: the Markdown report sets it as code,
	// the words before it as prose).
	return fmt.Sprintf("fetch the whole history (depth 0; actions/checkout: fetch-depth: 0; GitLab: GIT_DEPTH: \"0\") and run the gate again: git -C %s fetch --unshallow", shellQuote(s.repo))
}

// shallowHistory: the series' repository is a shallow clone that lacks a
// base or head commit of a round the gate judges.
func (g *gate) shallowHistory(s *seriesData) {
	if s.repo == "" || s.latest == nil || !shallow(s.repo) {
		return
	}
	var missing []string
	asked := map[string]bool{}
	for _, r := range s.rounds {
		if r.rec == nil || r.dryRun() {
			continue
		}
		for _, c := range []struct{ id, what string }{{r.rec.Base, "base"}, {r.rec.Head, "head"}} {
			if c.id == "" || asked[c.id] {
				continue
			}
			asked[c.id] = true
			if _, err := gitx.ResolveCommit(s.repo, c.id); err != nil {
				missing = append(missing, fmt.Sprintf("%s (round %s's %s)", c.id, r.name, c.what))
			}
		}
	}
	if len(missing) == 0 {
		return
	}
	depth := "?"
	if s.head != "" {
		if b, err := gitx.Git(s.repo, "rev-list", "--count", "--end-of-options", s.head); err == nil {
			depth = strings.TrimSpace(string(b))
		}
	}
	g.reason("7s", "%s: the repository %s is a shallow clone (%s commits from the gate's head) that lacks %s: the gate re-derives each round from the commits it reviewed; to clear: %s",
		s.display, s.repo, depth, strings.Join(missing, ", "), unshallow(s))
}
