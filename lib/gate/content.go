package gate

import (
	"fmt"
	"sort"
	"strings"

	"github.com/jaekit/spar/lib/gitx"
)

// credits says whether a round that reviewed start..head is credited with
// the range c..head (docs/review-gate.md §3, "Coverage"): "" when start is
// c, or when start's content equals c's on every path c..head changes
// (what the reviewers saw of each such path is then its change from c to
// head); otherwise why not. Each pair of commits is diffed once per gate
// (changedPaths), by git from the checkout's objects.
func (g *gate) credits(repo, start, c, head string) string {
	if start == c {
		return ""
	}
	ranged, err := g.changedPaths(repo, c, head)
	if err != nil {
		return fmt.Sprintf("git cannot diff %s..%s (%s)", short(c), short(head), oneLine(err.Error()))
	}
	if len(ranged) == 0 {
		return ""
	}
	apart, err := g.changedPaths(repo, start, c)
	if err != nil {
		return fmt.Sprintf("git cannot diff %s..%s (%s)", short(start), short(c), oneLine(err.Error()))
	}
	var both []string
	for p := range apart {
		if ranged[p] {
			both = append(both, p)
		}
	}
	sort.Strings(both)
	if len(both) == 0 {
		return ""
	}
	return fmt.Sprintf("its base %s differs from %s in %s, which %s..%s changes: its reviewers never saw that change", short(start), short(c), pathList(both), short(c), short(head))
}

// changedPaths is the set of paths whose content differs between commits
// a and b (every kind of entry: files, links, submodules; no rename
// detection), asked of git once per pair and gate.
func (g *gate) changedPaths(repo, a, b string) (map[string]bool, error) {
	if a == b {
		return map[string]bool{}, nil
	}
	return g.diffPairs(repo, a, b)
}

// pathList names at most five paths, then how many more.
func pathList(paths []string) string {
	if len(paths) <= 5 {
		return strings.Join(paths, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(paths[:5], ", "), len(paths)-5)
}

// diffPairs is changedPaths without the shortcut, cached per gate.
func (g *gate) diffPairs(repo, a, b string) (map[string]bool, error) {
	key := [3]string{repo, a, b}
	g.diffsMu.Lock()
	defer g.diffsMu.Unlock()
	if d, ok := g.diffs[key]; ok {
		return d.set, d.err
	}
	out, err := gitx.Git(repo, "diff-tree", "-r", "-z", "--no-renames", "--name-only", "--end-of-options", a, b)
	set := map[string]bool{}
	if err == nil {
		for _, p := range gitx.SplitZ(out) {
			set[p] = true
		}
	}
	if g.diffs == nil {
		g.diffs = map[[3]string]pathSet{}
	}
	g.diffs[key] = pathSet{set, err}
	return set, err
}

type pathSet struct {
	set map[string]bool
	err error
}
