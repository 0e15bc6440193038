// Package replay computes, from a repository's objects alone, what a
// reviewed change becomes on another base (docs/review-gate.md §3, "Credit
// by content"): git's replay of it (git merge-tree), the commit that holds
// that replay, the files where another tree differs from it, and the patch
// ids that find a rebased commit again. Every answer is git's; nothing is
// taken from a record.
package replay

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jaekit/spar/lib/gitx"
)

// pinned are the settings of git's configuration that change the tree git
// merge-tree writes, held to git's defaults: a replay is the same tree on
// the laptop and in CI whatever either's configuration says (a
// merge.conflictStyle of diff3 would write other conflict markers, a
// merge.renames of false other files).
var pinned = []string{
	"-c", "merge.conflictStyle=merge",
	"-c", "merge.renames=true",
	"-c", "merge.directoryRenames=conflict",
	"-c", "merge.renormalize=false",
}

// Result is git's replay of a change onto a base.
type Result struct {
	// Tree is the replayed tree; where the replay conflicts, the
	// conflicted files hold git's conflict markers, labelled with the two
	// commit ids.
	Tree string
	// Conflicts are the paths where it conflicts, each once, in git's
	// order; none for a clean replay.
	Conflicts []string
}

// Onto replays the change from the merge base of onto and head to head
// onto onto (git merge-tree --write-tree, git 2.38 and later, which takes
// that merge base as the replay's base): a clean replay, or one whose
// tree holds git's conflict markers and whose Conflicts name the files.
// onto and head are full commit ids.
func Onto(repo, onto, head string) (Result, error) {
	args := append(append([]string{}, pinned...), "merge-tree", "--write-tree", "--name-only", "--no-messages", "-z", "--end-of-options", onto, head)
	out, err := gitx.Git(repo, args...)
	fields := strings.Split(string(out), "\x00")
	if err != nil && !gitx.ExitedOne(err) {
		return Result{}, err
	}
	r := Result{Tree: strings.TrimSpace(fields[0])}
	if r.Tree == "" {
		if err == nil {
			err = errors.New("git merge-tree wrote no tree")
		}
		return Result{}, err
	}
	if err != nil {
		// Exit 1: conflicts. The tree is followed by the conflicted
		// files, an empty field ending them.
		for _, f := range fields[1:] {
			if f == "" {
				break
			}
			if !slices.Contains(r.Conflicts, f) {
				r.Conflicts = append(r.Conflicts, f)
			}
		}
		if len(r.Conflicts) == 0 {
			r.Conflicts = []string{"(git names no file)"}
		}
	}
	return r, nil
}

// The replay commit's author, committer and date: fixed, so that every
// gate that replays the same change onto the same base writes the same
// commit.
const (
	commitName  = "spar"
	commitEmail = "spar@invalid"
	commitDate  = "946684800 +0000"
)

// Commit writes the commit of tree (a replay) whose parents are onto and
// the replayed head, with a fixed author, committer, date and message, so
// that every gate that computes the same replay writes the same commit id,
// and a round can review from it (--base) exactly what a head holds beyond
// the replay: the residual.
func Commit(repo, onto, head, tree string) (string, error) {
	cmd := gitx.Command(repo, "-c", "i18n.commitEncoding=UTF-8", "commit-tree", "--no-gpg-sign", "-p", onto, "-p", head,
		"-m", "spar: the reviewed change "+head+" replayed onto "+onto, tree)
	cmd.Env = append(cmd.Env, "GIT_AUTHOR_NAME="+commitName, "GIT_AUTHOR_EMAIL="+commitEmail, "GIT_AUTHOR_DATE="+commitDate,
		"GIT_COMMITTER_NAME="+commitName, "GIT_COMMITTER_EMAIL="+commitEmail, "GIT_COMMITTER_DATE="+commitDate)
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git commit-tree: %v", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// Parents are a commit's parents, in order.
func Parents(repo, c string) ([]string, error) {
	out, err := gitx.Git(repo, "rev-list", "--parents", "-n", "1", "--end-of-options", c)
	if err != nil {
		return nil, err
	}
	f := strings.Fields(string(out))
	if len(f) == 0 || f[0] != c {
		return nil, fmt.Errorf("git rev-list --parents %s: %q", c, strings.TrimSpace(string(out)))
	}
	return f[1:], nil
}

// Verify reports whether c's tree is git's replay of head onto onto,
// computed again from the checkout's objects, and that replay.
func Verify(repo, c, onto, head string) (Result, bool, error) {
	r, err := Onto(repo, onto, head)
	if err != nil {
		return Result{}, false, err
	}
	want, err := gitx.TreeID(repo, c)
	if err != nil {
		return Result{}, false, err
	}
	return r, r.Tree == want, nil
}

// Of is what a commit c is when it is a replay commit: git's replay of its
// second parent onto its first gives its tree exactly. Its parents only
// say which replay to compute; the tree is git's. ok is false for any
// other commit (other parents, another tree), and err only when git fails.
func Of(repo, c string) (onto, head string, r Result, ok bool, err error) {
	p, err := Parents(repo, c)
	if err != nil || len(p) != 2 {
		return "", "", Result{}, false, err
	}
	r, ok, err = Verify(repo, c, p[0], p[1])
	if err != nil || !ok {
		return "", "", Result{}, false, err
	}
	return p[0], p[1], r, true, nil
}

// Differ are the paths where two trees (or commits) differ, renames not
// followed: a file a tree has and the other lacks is one path.
func Differ(repo, a, b string, paths ...string) ([]string, error) {
	args := []string{"--literal-pathspecs", "diff-tree", "-r", "--name-only", "-z", "--no-renames", "--end-of-options", a, b}
	if len(paths) > 0 {
		args = append(append(args, "--"), paths...)
	}
	out, err := gitx.Git(repo, args...)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, f := range strings.Split(string(out), "\x00") {
		if f != "" {
			files = append(files, f)
		}
	}
	return files, nil
}

// Touched are the paths a commit changes against its parent (its first
// parent for a merge, none for a root commit of no files).
func Touched(repo, c string) ([]string, error) {
	out, err := gitx.Git(repo, "diff-tree", "-r", "--name-only", "-z", "--no-renames", "--no-commit-id", "--root", "-m", "--first-parent", "--end-of-options", c)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, f := range strings.Split(string(out), "\x00") {
		if f != "" && !slices.Contains(files, f) {
			files = append(files, f)
		}
	}
	return files, nil
}

// Unresolved are the conflicted paths of r (the replay of head onto onto)
// that tree (a later commit) still holds as the replay left them, git's
// conflict markers and all: a conflict nobody resolved, whose file no
// diff from the replay shows.
func Unresolved(repo string, r Result, onto, head, tree string) ([]string, error) {
	if len(r.Conflicts) == 0 {
		return nil, nil
	}
	var check, left []string
	for _, p := range r.Conflicts {
		switch {
		case strings.HasPrefix(p, "("):
		case strings.Contains(p, "\n"):
			// cat-file --batch cannot name it: held unresolved.
			left = append(left, p)
		default:
			check = append(check, p)
		}
	}
	if len(check) == 0 {
		return left, nil
	}
	differ, err := Differ(repo, r.Tree, tree, check...)
	if err != nil {
		return nil, err
	}
	var same []string
	for _, p := range check {
		if !slices.Contains(differ, p) {
			same = append(same, p)
		}
	}
	if len(same) == 0 {
		return left, nil
	}
	// Only a file that holds git's markers is unresolved: a conflict
	// git records without markers (a file one side deleted and the
	// other changed) may be resolved by keeping git's version.
	ids := make([]string, 0, len(same))
	for _, p := range same {
		ids = append(ids, r.Tree+":"+p)
	}
	blobs, err := gitx.ReadBlobsMax(repo, ids, 64<<20)
	if err != nil {
		return nil, err
	}
	marker := []byte("<<<<<<< " + onto)
	for i, p := range same {
		if b, ok := blobs[ids[i]]; ok && bytes.Contains(b, marker) && bytes.Contains(b, []byte(">>>>>>> "+head)) {
			left = append(left, p)
		}
	}
	return left, nil
}

// PatchIDs is git patch-id --stable of each commit git log gives for args,
// by commit (a commit with an empty diff has none): git log -p piped into
// git patch-id. A rebased commit whose change is the same has the same
// patch id.
func PatchIDs(repo string, args ...string) (map[string]string, error) {
	log := gitx.Command(repo, append([]string{"log", "-p", "--no-color", "--no-ext-diff", "--format=commit %H"}, args...)...)
	pid := gitx.Command(repo, "patch-id", "--stable")
	pipe, err := log.StdoutPipe()
	if err != nil {
		return nil, err
	}
	pid.Stdin = pipe
	var out bytes.Buffer
	pid.Stdout = &out
	if err := log.Start(); err != nil {
		return nil, err
	}
	if err := pid.Start(); err != nil {
		log.Process.Kill()
		log.Wait()
		return nil, err
	}
	perr := pid.Wait()
	lerr := log.Wait()
	if lerr != nil {
		return nil, fmt.Errorf("git log: %v", lerr)
	}
	if perr != nil {
		return nil, fmt.Errorf("git patch-id: %v", perr)
	}
	ids := map[string]string{}
	for _, l := range strings.Split(out.String(), "\n") {
		if f := strings.Fields(l); len(f) == 2 {
			ids[f[1]] = f[0]
		}
	}
	return ids, nil
}
