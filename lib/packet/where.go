package packet

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/gitx"
)

// Notes are what spar run says on stderr before any reviewer starts about
// where the round goes and what it reviews (docs/usage.md §3.2, "Where it
// writes and what it reviews"); they never block. cwd is the working
// folder --out was given relative to, head the --head as given.
//
//   - Run from a folder other than the repository's top level: the
//     resolved round folder, since a relative --out lands under that folder
//     (doc/reviews/… from doc/).
//   - The working tree holds uncommitted changes (tracked files that differ
//     from HEAD, untracked files Git does not ignore) other than the round's
//     inputs (its documents, the configuration WarnDirty names): they are
//     not part of the review, which reads the commit --head names.
func Notes(run *envelope.Run, cwd, head string) []string {
	var out []string
	if wd, err := filepath.EvalSymlinks(cwd); err == nil && wd != run.Repo {
		out = append(out, fmt.Sprintf("spar: the round goes to %s (--out is relative to the working folder %s, not to the repository's top level %s)", run.Out, wd, run.Repo))
	}
	// A round document is read from the working tree, so it is part of
	// the round as it is (WarnDirty names one that differs from the head
	// commit); the rest are left out of the review.
	var files []string
	for _, f := range uncommitted(run.Repo) {
		input := slices.ContainsFunc(run.DirtyInputs, func(d envelope.DirtyInput) bool { return d.Path == f }) ||
			slices.ContainsFunc(run.Documents, func(d envelope.Document) bool {
				return d.Path == filepath.Join(run.Repo, filepath.FromSlash(f))
			})
		if !input {
			files = append(files, f)
		}
	}
	if len(files) > 0 {
		shown := files
		more := ""
		if len(shown) > 3 {
			shown, more = shown[:3], fmt.Sprintf(" and %d more", len(files)-3)
		}
		what := "an uncommitted change"
		if len(files) > 1 {
			what = fmt.Sprintf("%d uncommitted changes", len(files))
		}
		out = append(out, fmt.Sprintf("spar: warning: %s in the working tree (%s%s) %s not part of the review: it reviews the commit --head %s names (%.12s); to review them, commit them and give that commit as --head",
			what, strings.Join(shown, ", "), more, map[bool]string{true: "are", false: "is"}[len(files) > 1], head, run.Head))
	}
	return out
}

// uncommitted lists the paths `git status` shows in repo (tracked changes
// against HEAD and untracked files that are not ignored), or none when git
// cannot say: the note is advice, never a reason to stop.
func uncommitted(repo string) []string {
	b, err := gitx.Git(repo, "status", "--porcelain=v1", "-z", "--untracked-files=normal")
	if err != nil {
		return nil
	}
	var out []string
	recs := gitx.SplitZ(b)
	for i := 0; i < len(recs); i++ {
		r := recs[i]
		if len(r) < 4 {
			continue
		}
		out = append(out, r[3:])
		if r[0] == 'R' || r[0] == 'C' {
			i++ // the rename's source follows
		}
	}
	return out
}

// WarnNotes writes Notes to w, one line each.
func WarnNotes(w io.Writer, notes []string) {
	for _, n := range notes {
		fmt.Fprintln(w, n)
	}
}
