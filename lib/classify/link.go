package classify

import (
	"fmt"
	"strings"

	"github.com/jaekit/spar/lib/criteria"
	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/gitx"
	"github.com/jaekit/spar/lib/ref"
)

// Link is the outcome of confirming a finding's link (G8, G9).
type Link struct {
	Confirmed bool
	Why       string // the fact: what it landed on, or why it is not confirmed
	Fragment  *envelope.LinkFragment
}

// linkTarget is where a rule or contract link points before its lines are
// checked: a rule document, or a regular file of the head commit whose
// contents are read later (one git cat-file for the whole round).
type linkTarget struct {
	ref  ref.Ref
	doc  *envelope.Document
	blob gitx.Blob
	path string // the head path of blob
	why  string // set when there is no target
}

// findLinkTarget reads a rule or contract link by G8. Without a line, the
// whole link is tried before its first word; the first word is kept when
// neither is a target.
func (ix *Index) findLinkTarget(kind, text string) linkTarget {
	readings := ref.Link.Parse(text)
	var t linkTarget
	for _, r := range readings {
		t = ix.linkTargetOf(kind, r)
		if t.why == "" {
			return t
		}
	}
	return t
}

func (ix *Index) linkTargetOf(kind string, r ref.Ref) linkTarget {
	t := linkTarget{ref: r}
	// G8: rule documents first, for rule and contract alike.
	d, ok, shared := match(ix.rules, r.Path)
	if ok {
		t.doc = d.Document
		return t
	}
	if kind == "rule" {
		if len(shared) > 0 {
			t.why = fmt.Sprintf("rule documents %s share the file name %q", quoteList(shared), r.Path)
		} else {
			t.why = fmt.Sprintf("%q is not a rule document of the round", r.Prefix+r.Path)
		}
		return t
	}
	// contract: then a regular file of the head commit, by repository path.
	rp, repoOK := r.RepoPath()
	b, isBlob := ix.head.Blob(rp)
	switch {
	case repoOK && isBlob && b.IsRegular():
		t.blob, t.path = b, rp
		return t
	case repoOK && isBlob:
		t.why = fmt.Sprintf("%q is a symbolic link in head", rp)
	case repoOK && ix.head.IsSubmodule(rp):
		t.why = fmt.Sprintf("%q is a submodule in head", rp)
	case repoOK && ix.head.IsDir(rp):
		t.why = fmt.Sprintf("%q is a folder in head", rp)
	case repoOK && ix.base.Has(rp):
		t.why = fmt.Sprintf("%q is only in base", rp)
	default:
		t.why = fmt.Sprintf("%q is not a rule document or a file of head", r.Prefix+r.Path)
	}
	if len(shared) > 0 {
		t.why = fmt.Sprintf("rule documents %s share the file name %q and %s", quoteList(shared), r.Path, t.why)
	}
	return t
}

// headFile is a head file a contract link cites with lines: its line count
// and lines, computed once per blob however many links cite it.
type headFile struct {
	count int
	lines []string
}

// confirm checks the lines of a link target. heads holds the head files
// that links cite with lines, by blob ID.
func (t linkTarget) confirm(kind string, heads map[string]headFile) Link {
	if t.why != "" {
		return Link{Why: t.why}
	}
	name, count := "", 0
	var lines []string
	if t.doc != nil {
		name, count, lines = t.doc.Name, t.doc.LineCount, t.doc.Lines
	} else {
		h := heads[t.blob.ID]
		name, count, lines = t.path, h.count, h.lines
	}
	what := "rule document " + quote(name)
	if t.doc == nil {
		what = "head file " + quote(name)
	}
	r := t.ref
	if !r.HasLine {
		return Link{Confirmed: true, Why: kind + " link confirmed: " + what}
	}
	// G8: 1 ≤ start line ≤ end line ≤ the document's line count.
	if r.LineErr != "" {
		return Link{Why: r.LineErr}
	}
	if r.End > count {
		return Link{Why: fmt.Sprintf("line %d is not in %s (%d lines)", r.End, what, count)}
	}
	frag := &envelope.LinkFragment{Document: name, Start: r.Start, End: r.End,
		Lines: append([]string(nil), lines[r.Start-1:r.End]...)}
	return Link{Confirmed: true, Why: fmt.Sprintf("%s link confirmed: %s lines %d-%d", kind, what, r.Start, r.End), Fragment: frag}
}

// confirmCriterion is G9: the link names at least one AC-<digits> and every
// one of them is an ID of the criteria documents (compared literally).
func (ix *Index) confirmCriterion(text string) Link {
	ids := criteria.IDs(text)
	if len(ids) == 0 {
		return Link{Why: "no AC-<digits> ID in the criterion link"}
	}
	var missing []string
	for _, id := range ids {
		if !ix.criteria[id] {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		return Link{Why: fmt.Sprintf("%s not in the criteria documents", strings.Join(missing, ", "))}
	}
	return Link{Confirmed: true, Why: "criterion link confirmed: " + strings.Join(ids, ", ")}
}

func quote(s string) string { return fmt.Sprintf("%q", s) }
