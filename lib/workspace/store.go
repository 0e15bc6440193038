package workspace

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// Store is the content-addressed store of the blobs workspaces were built
// from (DESIGN.md §12, docs/review-round.md "The blob store"): one file per
// (blob id, mode) pair, <dir>/<id[:2]>/<id[2:]>-<mode>, read-only (0444, or
// 0555 for 100755). It is global (one per cache folder, every repository):
// a blob id names its content, whatever repository it came from.
//
// A file enters the store as a hard link of a workspace file that is
// completely written and closed, so a store name only ever names a whole
// blob; link(2) is atomic and a concurrent round adding the same pair gets
// EEXIST, which is fine (the same result as writing a temporary file and
// renaming it, without the extra write). Workspaces link store files; no
// file of a workspace is ever made writable (Remove unlinks without chmod
// of files), so a workspace path never writes through to the store.
//
// Before linking a stored file, spar checks that it is still a regular file
// with the pair's read-only mode and the size git states for the blob;
// anything else (a file someone made writable, a truncated one) is left
// alone and the blob is written from git.
type Store struct {
	dir  string
	mu   sync.Mutex
	made map[string]bool // fan-out folders known to exist
}

// OpenStore returns the store in dir, creating dir if needed.
func OpenStore(dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	return &Store{dir: dir, made: map[string]bool{}}, nil
}

// Dir is the store's folder.
func (s *Store) Dir() string { return s.dir }

func (s *Store) path(k key) string {
	if len(k.oid) < 3 {
		return filepath.Join(s.dir, "_", k.oid+"-"+k.mode)
	}
	return filepath.Join(s.dir, k.oid[:2], k.oid[2:]+"-"+k.mode)
}

// usable reports whether the stored file for k can serve a workspace.
func (s *Store) usable(k key, size int64) bool {
	fi, err := os.Lstat(s.path(k))
	if err != nil {
		return false
	}
	return fi.Mode().IsRegular() && fi.Mode().Perm() == perm(k.mode) && fi.Size() == size
}

// add links the complete, closed file p into the store as k. Errors are
// ignored: the store only saves work (EEXIST: another round stored it
// first; EMLINK: p already has the most links; a full disk). A stored file
// that is no longer usable (see Store) is replaced: unlinking the store's
// name leaves every workspace's file as it is.
func (s *Store) add(k key, p string, size int64) {
	if s == nil {
		return
	}
	dst := s.path(k)
	sub := filepath.Dir(dst)
	s.mu.Lock()
	known := s.made[sub]
	s.mu.Unlock()
	if !known {
		if err := os.MkdirAll(sub, 0o700); err != nil {
			return
		}
		s.mu.Lock()
		s.made[sub] = true
		s.mu.Unlock()
	}
	if err := link(p, dst); errors.Is(err, fs.ErrExist) && !s.usable(k, size) {
		if os.Remove(dst) == nil {
			link(p, dst)
		}
	}
}

// linkStored links, for every pair of order the store holds, all its paths
// from the store, with writers goroutines, and returns the pairs it does
// not hold (symbolic links are never stored). A stored file that is gone by
// the time it is linked (pruned meanwhile) counts as not held.
func (s *Store) linkStored(order []key, paths map[key][]string, sizes map[key]int64, stats *Stats) ([]key, error) {
	copies := &counter{n: &stats.Copies}
	var mu sync.Mutex
	var missing []key
	var firstErr error
	next := make(chan key, 256)
	var wg sync.WaitGroup
	for i := 0; i < writers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range next {
				ok, err := s.linkOne(k, paths[k], sizes[k], copies)
				mu.Lock()
				switch {
				case err != nil && firstErr == nil:
					firstErr = err
				case err == nil && ok:
					stats.Stored++
				case err == nil:
					missing = append(missing, k)
				}
				mu.Unlock()
			}
		}()
	}
	for _, k := range order {
		if k.mode == "120000" {
			mu.Lock()
			missing = append(missing, k)
			mu.Unlock()
			continue
		}
		next <- k
	}
	close(next)
	wg.Wait()
	return missing, firstErr
}

// linkOne links ps from the stored file of k; false when the store does not
// hold a usable one.
func (s *Store) linkOne(k key, ps []string, size int64, copies *counter) (bool, error) {
	if !s.usable(k, size) {
		return false, nil
	}
	src := s.path(k)
	err := link(src, ps[0])
	switch {
	case err == nil:
	case errors.Is(err, fs.ErrNotExist):
		if _, serr := os.Lstat(src); errors.Is(serr, fs.ErrNotExist) {
			return false, nil // pruned between the check and the link
		}
		return false, err
	case errors.Is(err, syscall.EMLINK):
		// The stored file has the most links the file system allows
		// (many workspaces link it): this workspace gets its own copy.
		if err := copyFile(src, ps[0], k.mode); err != nil {
			return false, err
		}
		copies.add(1)
	default:
		return false, err
	}
	return true, linkAll(ps[0], ps[1:], k.mode, copies)
}

// BlobMaxAge is how long a stored blob that no workspace links is kept.
const BlobMaxAge = 7 * 24 * time.Hour

// prune removes every stored file that no workspace links (link count 1)
// and whose links last changed (ctime) more than maxAge before now. A round
// linking it at the same moment keeps its own link: unlinking the store's
// name never changes a workspace's file.
func (s *Store) prune(now time.Time, maxAge time.Duration) (removed int) {
	subs, err := os.ReadDir(s.dir)
	if err != nil {
		return 0
	}
	for _, sub := range subs {
		if !sub.IsDir() {
			continue
		}
		d := filepath.Join(s.dir, sub.Name())
		names, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		for _, n := range names {
			p := filepath.Join(d, n.Name())
			var st syscall.Stat_t
			if err := syscall.Lstat(p, &st); err != nil {
				continue
			}
			if st.Nlink <= 1 && now.Sub(ctime(&st)) > maxAge {
				if os.Remove(p) == nil {
					removed++
				}
			}
		}
		os.Remove(d) // only when empty
	}
	return removed
}
