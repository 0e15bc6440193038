package seriesref

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/jaekit/spar/lib/gitx"
	"github.com/jaekit/spar/lib/round"
)

// The commits a series' records name travel with it (docs/usage.md
// "Rebase, squash, force-push"): every round's base and head and every
// fix commit a ledger's fixed line names. A rebase and force-push of the
// pull request leaves them on no branch; a fresh clone would then lack
// them and the gate could not re-derive a round (its head's tree cannot be
// read). So spar push keeps them reachable from one ref of the series,
// refs/spar/commits/<name>, outside every branch, and spar fetch brings it.
//
// The ref points at a keep commit: an empty tree whose parents are the
// previous keep commit (the ref only moves forward: spar never
// force-pushes) and the commits the records name. A commit's parents are
// the one git-native link that every push, fetch, clone and gc follows:
// a tree of gitlinks is followed by none of them, and a ref per commit
// would be one ref per commit on the remote for ever.

// KeptPrefix is where the commits a series' records name are kept.
const KeptPrefix = "refs/spar/commits/"

// KeptRef is the ref that keeps the commits the records of the series
// named name name.
func KeptRef(name string) string { return KeptPrefix + name }

// Named lists the full commit IDs the records of the series folder dir
// name, sorted, each once: every round's base and head (round.json) and
// every commit of a ledger line (a fixed finding's --commit). A round
// whose round.json or ledger does not read names nothing here (the gate
// judges it).
func Named(dir string) ([]string, error) {
	dirs, err := round.ListRounds(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	add := func(id string) {
		if objectID(id) {
			seen[id] = true
		}
	}
	for _, d := range dirs {
		if rec, err := round.ReadHead(d); err == nil {
			add(rec.Base)
			add(rec.Head)
		}
		if _, err := os.Stat(filepath.Join(d, round.LedgerFile)); err != nil {
			continue
		}
		if entries, err := round.ReadLedger(d); err == nil {
			for _, e := range entries {
				add(e.Commit)
			}
		}
	}
	out := make([]string, 0, len(seen))
	for id := range seen {
		out = append(out, id)
	}
	sort.Strings(out)
	return out, nil
}

// Kept is what Keep made.
type Kept struct {
	Commit  string   // the keep commit the ref is to point at
	Parent  string   // the ref's commit before, "" for none
	Changed bool     // false: the ref already keeps every commit
	Kept    int      // commits the records name that the ref keeps
	Missing []string // commits the records name that the repository lacks
}

// Keep makes the keep commit of the series n for commits (Named) in repo
// and moves no ref: a new commit whose parents are the ref's commit (when
// there is one) and every commit of commits the repository holds, unless
// the ref's commit already has each of them as a parent (Changed false).
// A commit the repository lacks is listed in Missing; one an earlier keep
// commit kept stays kept through it.
func Keep(repo string, n Name, commits []string) (Kept, error) {
	var k Kept
	if err := checked(n); err != nil {
		return k, err
	}
	ref := KeptRef(n.s)
	out, err := gitx.Git(repo, "for-each-ref", "--format=%(objectname) %(objecttype) %(parent)", ref)
	if err != nil {
		return k, err
	}
	had := map[string]bool{}
	if f := strings.Fields(string(out)); len(f) >= 2 {
		if f[1] != "commit" {
			return k, fmt.Errorf("%s is a %s, not a commit", ref, f[1])
		}
		k.Parent = f[0]
		for _, p := range f[2:] {
			had[p] = true
		}
	}
	present, missing, err := gitx.Commits(repo, commits)
	if err != nil {
		return k, err
	}
	k.Missing, k.Kept = missing, len(present)
	fresh := false
	for _, c := range present {
		fresh = fresh || !had[c]
	}
	if !fresh && k.Parent != "" {
		k.Commit = k.Parent
		return k, nil
	}
	if len(present) == 0 && k.Parent == "" {
		return k, nil
	}
	tree, err := gitx.Git(repo, "mktree")
	if err != nil {
		return k, err
	}
	args := []string{"commit-tree", strings.TrimSpace(string(tree)), "-m", "spar: keep the commits the records of the series " + n.s + " name"}
	if k.Parent != "" {
		args = append(args, "-p", k.Parent)
	}
	for _, c := range present {
		args = append(args, "-p", c)
	}
	cmd := gitx.Command(repo, args...)
	cmd.Env = append(cmd.Env, identity...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return k, fmt.Errorf("git commit-tree: %s", cause(stderr.String(), err))
	}
	k.Commit, k.Changed = strings.TrimSpace(stdout.String()), true
	if !objectID(k.Commit) {
		return k, fmt.Errorf("git commit-tree: unexpected answer %q", k.Commit)
	}
	return k, nil
}

// AdvanceKept moves the local keep ref of n from k.Parent to k.Commit;
// nothing when k changed nothing.
func AdvanceKept(repo string, n Name, k Kept) error {
	if err := checked(n); err != nil {
		return err
	}
	if !k.Changed {
		return nil
	}
	old := k.Parent
	if old == "" {
		old = strings.Repeat("0", len(k.Commit))
	}
	if _, err := gitx.Git(repo, "update-ref", "-m", "spar push", KeptRef(n.s), k.Commit, old); err != nil {
		return fmt.Errorf("%s moved while it was published: run spar push again (%v)", KeptRef(n.s), err)
	}
	return nil
}

// FetchKept fetches the remote's keep ref of n into this repository's
// own, and, in a shallow clone, the whole history of what it holds (git
// fetch --unshallow): the gate asks git whether the head holds each fix
// and where the head meets --expect-base, which a history cut at any
// depth may answer wrongly, and no depth that would do can be known before
// it is fetched. It reports whether the remote had the ref: a series
// published before spar kept its commits has none, and then a shallow
// clone is still fetched whole.
func FetchKept(repo, remote string, n Name, timeout time.Duration) (bool, error) {
	if err := checked(n); err != nil {
		return false, err
	}
	shallow, err := gitx.Shallow(repo)
	if err != nil {
		return false, err
	}
	args := []string{"fetch", "--quiet", "--no-tags", "--no-write-fetch-head"}
	if shallow {
		args = append(args, "--unshallow")
	}
	ref := KeptRef(n.s)
	// A forced update: this clone's keep ref is only ever a copy of the
	// remote's (spar push moves it after the remote took it).
	_, err = remoteGit(repo, timeout, append(args, "--end-of-options", remote, "+"+ref+":"+ref)...)
	if err == nil {
		return true, nil
	}
	if !strings.Contains(err.Error(), "find remote ref") {
		return false, err
	}
	if shallow {
		_, err = remoteGit(repo, timeout, append(args, "--end-of-options", remote)...)
	} else {
		err = nil
	}
	return false, err
}
