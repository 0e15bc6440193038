package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// Store is the content-addressed store of the blobs workspaces were built
// from (docs/review-round.md "The workspace", docs/review-round.md "The blob store"): one file per
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
// alone and the blob is written from git. A file that passes is linked and
// then hashed as git hashes a blob (blobIs): the store lives in the user's
// cache, so a same-size, read-only decoy planted there is caught by its id,
// removed, and the blob written from git.
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

// add links the complete, closed file p into the store as k. Its error is
// only for the caller to try another path (EMLINK: p already has the most
// links): the store only saves work (EEXIST: another round stored it
// first; a full disk). A stored file that is no longer usable (see Store)
// is replaced: unlinking the store's name leaves every workspace's file as
// it is.
func (s *Store) add(k key, p string, size int64) error {
	if s == nil {
		return nil
	}
	dst := s.path(k)
	sub := filepath.Dir(dst)
	s.mu.Lock()
	known := s.made[sub]
	s.mu.Unlock()
	if !known {
		if err := os.MkdirAll(sub, 0o700); err != nil {
			return err
		}
		s.mu.Lock()
		s.made[sub] = true
		s.mu.Unlock()
	}
	err := link(p, dst)
	if errors.Is(err, fs.ErrExist) && !s.usable(k, size) {
		if os.Remove(dst) == nil {
			err = link(p, dst)
		}
	}
	return err
}

// addCopy stores a copy of the file p as k: written under a temporary
// name in the store, closed, then linked to its name (a name only ever
// names a whole blob) and the temporary name removed.
func (s *Store) addCopy(k key, p string, size int64) {
	dst := s.path(k)
	tmp := fmt.Sprintf("%s.tmp-%d-%d", dst, os.Getpid(), time.Now().UnixNano())
	os.MkdirAll(filepath.Dir(dst), 0o700)
	if err := copyFile(p, tmp, k.mode); err == nil {
		s.add(k, tmp, size)
	}
	os.Remove(tmp)
}

// linkStored links, for every pair of order the store holds, all its paths
// from the store, and returns the pairs it does not hold (symbolic links
// are never stored). A stored file that is gone by the time it is linked
// (pruned meanwhile) counts as not held. writers goroutines each take one
// contiguous share of order: order follows the trees, so each works in
// folders of its own and none waits for another's lock on a folder.
func (s *Store) linkStored(order []key, paths map[key][]string, sizes map[key]int64, stats *Stats) ([]key, error) {
	copies := &counter{n: &stats.Copies}
	var missing, candidates []key
	for _, k := range order {
		if k.mode == "120000" {
			missing = append(missing, k)
		} else {
			candidates = append(candidates, k)
		}
	}
	n := writers
	if len(candidates) < 64 {
		n = 1
	}
	var mu sync.Mutex
	var firstErr error
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		share := candidates[i*len(candidates)/n : (i+1)*len(candidates)/n]
		wg.Add(1)
		go func() {
			defer wg.Done()
			var miss []key
			stored := 0
			var err error
			for _, k := range share {
				var ok bool
				if ok, err = s.linkOne(k, paths[k], sizes[k], copies); err != nil {
					break
				}
				if ok {
					stored++
				} else {
					miss = append(miss, k)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if err != nil && firstErr == nil {
				firstErr = err
			}
			stats.Stored += stored
			missing = append(missing, miss...)
		}()
	}
	wg.Wait()
	return missing, firstErr
}

// linkOne links ps from the stored file of k; false when the store does not
// hold a usable one. The stored file is the agent's to write (the store is
// in the user's cache folder), so its content is verified: ps[0] is linked
// first and the linked inode is hashed as git hashes a blob; a file whose
// id is not k's (a same-size decoy with the right mode) is unlinked from
// the workspace and from the store, and the blob is written from git.
func (s *Store) linkOne(k key, ps []string, size int64, copies *counter) (bool, error) {
	if !s.usable(k, size) {
		return false, nil
	}
	src := s.path(k)
	err := link(src, ps[0])
	switch {
	case err == nil:
		if !blobIs(ps[0], k.oid, size) {
			os.Remove(ps[0])
			os.Remove(src)
			return false, nil
		}
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
		if !blobIs(ps[0], k.oid, size) {
			os.Remove(ps[0])
			os.Remove(src)
			return false, nil
		}
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
