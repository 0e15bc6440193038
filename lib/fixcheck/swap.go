package fixcheck

import (
	"fmt"
	"os"
	"path"
	"path/filepath"

	"github.com/jaekit/spar/lib/gitx"
	"github.com/jaekit/spar/lib/round"
)

// swapTree is one tree that is either commit: it is built as the fix, and
// the paths where the round's head differs are swapped in place by rename
// (each side's version kept in a folder beside it), so that a check of a
// 20,000-file repository costs one tree, not two (docs/review-round.md
// "Verified fix claims", the benchmark). The runs are one after another,
// so one tree serves both sides.
type swapTree struct {
	tree      string
	fixSide   string // the fix's versions while the tree shows the head's
	headSide  string // the head's versions while the tree shows the fix's
	paths     []string
	inFix     map[string]bool // the fix has the path
	inHead    map[string]bool // the head has it
	isCheck   map[string]bool // a check file: the fix's on the before side
	showsHead map[string]bool // the tree shows the head's version now
}

// newSwap prepares tree (the fix, built) to show the head: it finds the
// paths that differ and writes the head's versions of them beside it. An
// error is a pair of trees that cannot be swapped in place (a file in one
// where the other has a folder): the caller builds two trees instead.
func newSwap(repo string, ht, ft *gitx.Tree, tree, sides string, files []round.CheckFile) (*swapTree, error) {
	s := &swapTree{tree: tree, fixSide: filepath.Join(sides, "fix"), headSide: filepath.Join(sides, "head"),
		inFix: map[string]bool{}, inHead: map[string]bool{}, isCheck: map[string]bool{}, showsHead: map[string]bool{}}
	for _, f := range files {
		s.isCheck[f.Path] = true
	}
	var ids []string
	want := map[string]gitx.Blob{}
	ht.Each(func(p string, b gitx.Blob) {
		if fb, ok := ft.Blob(p); !ok || fb != b {
			s.paths = append(s.paths, p)
			s.inHead[p] = true
			s.inFix[p] = ok
			want[p] = b
			ids = append(ids, b.ID)
		}
	})
	ft.Each(func(p string, b gitx.Blob) {
		if _, ok := ht.Blob(p); !ok {
			s.paths = append(s.paths, p)
			s.inFix[p] = true
		}
	})
	// A path that is a file in one tree and a folder (or under a file) in
	// the other cannot be renamed in and out.
	for _, p := range s.paths {
		for d := path.Dir(p); d != "."; d = path.Dir(d) {
			if _, ok := ht.Blob(d); ok {
				return nil, fmt.Errorf("%s is a file at the head and a folder at the fix", d)
			}
			if _, ok := ft.Blob(d); ok {
				return nil, fmt.Errorf("%s is a file at the fix and a folder at the head", d)
			}
		}
	}
	blobs, err := gitx.ReadBlobs(repo, ids)
	if err != nil {
		return nil, err
	}
	for _, d := range []string{s.fixSide, s.headSide} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, err
		}
	}
	for p, b := range want {
		dst := filepath.Join(s.headSide, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return nil, err
		}
		data := blobs[b.ID]
		switch b.Mode {
		case gitx.Symlink:
			err = os.Symlink(string(data), dst)
		case gitx.Executable:
			err = os.WriteFile(dst, data, 0o555)
		default:
			err = os.WriteFile(dst, data, 0o444)
		}
		if err != nil {
			return nil, err
		}
	}
	return s, nil
}

// show makes the tree show the head's version of every differing path
// (head), or the fix's (!head); withChecks keeps the check files the
// fix's on the head's side.
func (s *swapTree) show(head, withChecks bool) error {
	for _, p := range s.paths {
		want := head && !(withChecks && s.isCheck[p])
		if s.showsHead[p] == want {
			continue
		}
		in := filepath.Join(s.tree, filepath.FromSlash(p))
		from, to := s.fixSide, s.headSide // where the shown version goes, where the other comes from
		hasShown, hasOther := s.inFix[p], s.inHead[p]
		if !want {
			from, to = s.headSide, s.fixSide
			hasShown, hasOther = s.inHead[p], s.inFix[p]
		}
		if hasShown {
			aside := filepath.Join(from, filepath.FromSlash(p))
			if err := os.MkdirAll(filepath.Dir(aside), 0o755); err != nil {
				return err
			}
			if err := os.Rename(in, aside); err != nil {
				return err
			}
		}
		if hasOther {
			if err := os.MkdirAll(filepath.Dir(in), 0o755); err != nil {
				return err
			}
			if err := os.Rename(filepath.Join(to, filepath.FromSlash(p)), in); err != nil {
				return err
			}
		}
		s.showsHead[p] = want
	}
	return nil
}
