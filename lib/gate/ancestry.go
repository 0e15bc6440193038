package gate

import (
	"errors"
	"strconv"
	"strings"

	"github.com/jaekit/spar/lib/gitx"
)

// containsEach is Contains for many heads at once: for each head of
// byHead, whether it contains each of its commits (the same map Contains
// gives). A series of a thousand rounds asks it of a thousand heads (each
// round's fix commit against the head the round reviewed, 11p), which one
// Contains each made a thousand git processes. With more heads than
// ManyCommits, one `git rev-list --parents` lists the commits reachable
// from the heads and not from the series' bases, and each head's
// ancestors among the asked commits are worked out from those parents in
// memory. A commit or head outside that range, and every question in a
// shallow clone (whose "no" the gate never believes from a walk it cannot
// see the end of: shallow.go), is asked of git one by one as before.
func containsEach(repo string, bases []string, byHead map[string][]string) map[string]map[string]error {
	out := map[string]map[string]error{}
	if len(byHead) <= ManyCommits || shallow(repo) {
		for h, cs := range byHead {
			out[h] = Contains(repo, h, cs)
		}
		return out
	}
	// The asked commits, each a bit.
	idx := map[string]int{}
	for _, cs := range byHead {
		for _, c := range cs {
			if _, ok := idx[c]; !ok {
				idx[c] = len(idx)
			}
		}
	}
	args := []string{"rev-list", "--topo-order", "--parents", "--max-count=" + strconv.Itoa(maxRange+1), "--end-of-options"}
	for h := range byHead {
		if h != "" {
			args = append(args, h)
		}
	}
	for _, b := range bases {
		if b != "" {
			args = append(args, "^"+b)
		}
	}
	b, err := gitx.Git(repo, args...)
	if err == nil && strings.Count(string(b), "\n") > maxRange {
		err = errTooMany
	}
	if err != nil {
		for h, cs := range byHead {
			out[h] = Contains(repo, h, cs)
		}
		return out
	}
	// Children come before their parents: walked backwards, every parent
	// in the range has its set before its children.
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	words := (len(idx) + 63) / 64
	set := make(map[string][]uint64, len(lines))
	for i := len(lines) - 1; i >= 0; i-- {
		f := strings.Fields(lines[i])
		if len(f) == 0 {
			continue
		}
		s := make([]uint64, words)
		if k, ok := idx[f[0]]; ok {
			s[k/64] |= 1 << (k % 64)
		}
		for _, p := range f[1:] {
			if ps, ok := set[p]; ok {
				for w := range s {
					s[w] |= ps[w]
				}
			}
		}
		set[f[0]] = s
	}
	for h, cs := range byHead {
		s, inRange := set[h]
		m := map[string]error{}
		var ask []string
		for _, c := range cs {
			_, cIn := set[c]
			switch k := idx[c]; {
			case !inRange || !cIn:
				// Outside the range (an ancestor of a base, another
				// history): git itself.
				ask = append(ask, c)
			case s[k/64]&(1<<(k%64)) != 0:
				m[c] = nil
			default:
				m[c] = errNotAncestor
			}
		}
		if len(ask) > 0 {
			for c, err := range Contains(repo, h, ask) {
				m[c] = err
			}
		}
		out[h] = m
	}
	return out
}

// maxRange bounds the commits containsEach reads and holds a set for: a
// series reviewed from a base far back (a long-lived branch of a large
// history) is asked of git one by one instead.
const maxRange = 200_000

var errTooMany = errors.New("more commits than containsEach reads")
