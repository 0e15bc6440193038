// Package classify places each finding a reviewer reported (G7 location,
// G8/G9 link, G24 check paths) and decides its class by the seven rules of
// docs/review-round.md §6.1, and an unreadable location by the rules of the
// same section. The class follows the evidence the round can confirm, never
// the class the reviewer proposed alone.
package classify

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/gitx"
	"github.com/jaekit/spar/lib/glob"
)

// InputError is a fault of the envelope itself: the stage says
// "stdin: <Where>: <What>" and exits 65.
type InputError struct {
	Where string // JSON pointer into the envelope
	What  string
}

func (e *InputError) Error() string { return e.Where + ": " + e.What }

// Index holds what locations and links are looked up in: the head and base
// copies (one git ls-tree each), the round documents, the check path globs
// and the criteria IDs. Building it is the only part that calls git.
type Index struct {
	repo       string
	head, base *gitx.Tree
	docs       []doc // every round document, once per real path (G7 targets)
	rules      []doc // the rule documents, once per real path (G8 targets)
	globs      glob.Set
	// committed are the check path globs of run.check_paths that the head
	// commit's configuration lists (run.committed_check_paths; all of them
	// for a run recorded before that field existed).
	committed glob.Set
	criteria  map[string]bool
	// earlier are the qualified IDs of the earlier rounds' findings a
	// follow-up packet listed (run.follow_up.earlier): a finding whose id
	// is one of them restates it.
	earlier map[string]bool
}

// doc is one round document and whether it lies inside the repository,
// which decides whether its G26 name is a repository path.
type doc struct {
	*envelope.Document
	inside bool
}

// NewIndex loads the copies of run.Head and run.Base and checks the parts of
// run that classification reads.
func NewIndex(run *envelope.Run) (*Index, error) {
	return newIndex(run, gitx.LoadTree)
}

func newIndex(run *envelope.Run, load func(repo, commit string) (*gitx.Tree, error)) (*Index, error) {
	ix := &Index{repo: run.Repo, criteria: map[string]bool{}}
	if run.FollowUp != nil {
		ix.earlier = make(map[string]bool, len(run.FollowUp.Earlier))
		for _, id := range run.FollowUp.Earlier {
			ix.earlier[id] = true
		}
	}
	if run.Repo == "" || !filepath.IsAbs(run.Repo) {
		return nil, &InputError{"/run/repo", fmt.Sprintf("%q is not an absolute path", run.Repo)}
	}
	var err error
	if ix.head, err = load(run.Repo, run.Head); err != nil {
		return nil, &InputError{"/run/head", err.Error()}
	}
	if run.Base == run.Head {
		ix.base = ix.head
	} else if ix.base, err = load(run.Repo, run.Base); err != nil {
		return nil, &InputError{"/run/base", err.Error()}
	}
	for i, g := range run.CheckPaths {
		p, err := glob.Compile(g)
		if err != nil {
			return nil, &InputError{fmt.Sprintf("/run/check_paths/%d", i), err.Error()}
		}
		ix.globs = append(ix.globs, p)
		if run.CommittedCheckPaths == nil || slices.Contains(run.CommittedCheckPaths, g) {
			ix.committed = append(ix.committed, p)
		}
	}
	for _, id := range run.CriteriaIDs {
		ix.criteria[id] = true
	}
	realRepo, err := filepath.EvalSymlinks(run.Repo)
	if err != nil {
		return nil, &InputError{"/run/repo", err.Error()}
	}
	seen := map[string]bool{}
	seenRule := map[string]bool{}
	for i := range run.Documents {
		d := &run.Documents[i]
		where := fmt.Sprintf("/run/documents/%d", i)
		switch {
		case d.Path == "" || !filepath.IsAbs(d.Path):
			return nil, &InputError{where + "/path", fmt.Sprintf("%q is not a real absolute path", d.Path)}
		case d.Name == "" || d.FileName == "":
			return nil, &InputError{where, "name and file_name must not be empty"}
		case d.LineCount < 0 || len(d.Lines) < d.LineCount:
			return nil, &InputError{where + "/lines", fmt.Sprintf("%d lines for line_count %d", len(d.Lines), d.LineCount)}
		}
		// G26: the name is the repository path inside the repository and
		// the file name outside it. (A project rule reached through a
		// symbolic link keeps the path the configuration wrote as its name.)
		dd := doc{d, under(realRepo, d.Path) || under(run.Repo, d.Path)}
		if !seen[d.Path] {
			seen[d.Path] = true
			ix.docs = append(ix.docs, dd)
		}
		if d.Role == "rule" && !seenRule[d.Path] {
			seenRule[d.Path] = true
			ix.rules = append(ix.rules, dd)
		}
	}
	return ix, nil
}

// under reports whether the absolute path p lies inside the folder root.
func under(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) &&
		!filepath.IsAbs(rel)
}

// match finds the document p names among docs (docs/review-round.md §6.2 and G8): a
// repository path (of a document inside the repository) or the real
// absolute path first; otherwise the file name, only when one document has
// that file name. shared lists the documents that share the file name when
// that is why nothing matched.
func match(docs []doc, p string) (d doc, ok bool, shared []string) {
	if p == "" {
		return doc{}, false, nil
	}
	for _, d := range docs {
		if d.Path == p || d.inside && d.Name == p {
			return d, true, nil
		}
	}
	var found []doc
	for _, d := range docs {
		if d.FileName == p {
			found = append(found, d)
		}
	}
	if len(found) == 1 {
		return found[0], true, nil
	}
	for _, d := range found {
		shared = append(shared, d.Name)
	}
	return doc{}, false, shared
}

// inCheckPaths is G24 on a repository path: the root is never a check path.
// The glob is one of the committed configuration when one matches (then
// committed is true), else the first that matches (docs/trust.md "Inputs
// the agent can edit").
func (ix *Index) inCheckPaths(p string) (glob string, in, committed bool) {
	if p == "" {
		return "", false, false
	}
	if g, ok := ix.committed.Match(p); ok {
		return g.String(), true, true
	}
	g, ok := ix.globs.Match(p)
	return g.String(), ok, false
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}
