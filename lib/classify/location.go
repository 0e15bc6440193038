package classify

import (
	"fmt"
	"strings"

	"github.com/jaekit/spar/lib/ref"
)

// Location is where G7 places a finding.
type Location struct {
	Path      string // repository path, or the round document's G26 name; "" for the root and when unreadable
	LineStart *int   // nil without a line (and when unreadable)
	LineEnd   *int   // == LineStart for a single line
	InCheck   bool
	CheckGlob string // the check path glob that matched: a committed one first
	// Committed says whether the head commit's configuration lists CheckGlob.
	Committed  bool
	Unreadable bool
	Reason     string // why the location is unreadable
	Target     string // what it landed on: "head", "base" or "round document"
}

// Locate reads a finding location by G7. The order of targets (docs/review-round.md §6.2): with
// no prefix the head copy, the base copy, then the round documents; with
// head/ or ./ the head copy, then the round documents; with base/ only the
// base copy. Without a line the whole location is tried before its first
// word. Lines are only recorded: they are never compared with a file.
func (ix *Index) Locate(text string) Location {
	if strings.TrimSpace(text) == "" {
		return unreadable("empty location")
	}
	readings := ref.Location.Parse(text)
	var r ref.Ref
	var loc Location
	found := false
	for _, r = range readings {
		if loc, found = ix.target(r); found {
			break
		}
	}
	if !found {
		// r is the last reading: the first word when there is no line.
		if r.Stray != "" {
			return unreadable("outside the grammar: " + r.Stray)
		}
		return unreadable(fmt.Sprintf("no target: %q is not %s", r.Prefix+r.Path, where(r.Prefix)))
	}
	if r.HasLine {
		// G7: line 0 and end line < start line are unreadable locations.
		if r.LineErr != "" {
			return unreadable(r.LineErr)
		}
		s, e := r.Start, r.End
		loc.LineStart, loc.LineEnd = &s, &e
	}
	return loc
}

func where(prefix string) string {
	switch prefix {
	case "base/":
		return "a file or folder of base"
	case "head/", "./":
		return "a file or folder of head or a round document"
	}
	return "a file or folder of head or base or a round document"
}

func unreadable(reason string) Location {
	return Location{Unreadable: true, Reason: reason}
}

// target looks one reading up in that order.
func (ix *Index) target(r ref.Ref) (Location, bool) {
	rp, repoOK := r.RepoPath()
	inTree := func(name string, has bool) (Location, bool) {
		if !repoOK || !has {
			return Location{}, false
		}
		l := Location{Path: rp, Target: name}
		l.CheckGlob, l.InCheck, l.Committed = ix.inCheckPaths(rp)
		return l, true
	}
	if r.Prefix == "base/" {
		return inTree("base", ix.base.Has(rp))
	}
	if l, ok := inTree("head", ix.head.Has(rp)); ok {
		return l, true
	}
	if r.Prefix == "" {
		if l, ok := inTree("base", ix.base.Has(rp)); ok {
			return l, true
		}
	}
	d, ok, _ := match(ix.docs, r.Path)
	if !ok {
		return Location{}, false
	}
	// path is the document's G26 name. Only a document inside the
	// repository has a repository path that check paths can match.
	l := Location{Path: d.Name, Target: "round document"}
	if d.inside {
		l.CheckGlob, l.InCheck, l.Committed = ix.inCheckPaths(d.Name)
	}
	return l, true
}
