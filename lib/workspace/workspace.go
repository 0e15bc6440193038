// Package workspace materializes the read-only copies reviewers read:
// <workspace>/head and <workspace>/base (docs/review-round.md §1 and "The workspace"), and places the
// workspace outside every Git repository, in spar's cache folder, beside a
// content-addressed store of the blobs earlier rounds wrote (place.go,
// store.go; docs/review-round.md "The workspace").
//
// Only the blob entries of each commit's tree are written (regular files,
// executable files and symbolic links) with the folders above them; a
// submodule (gitlink) is not in the copies (docs/review-round.md §6.2: a submodule
// is not in a copy). Both copies are read-only when Build returns.
//
// Speed: the copies are spar's main cost besides the reviewers, and base and
// head share most blobs. Every distinct (blob, mode) pair is read from git
// once (one `git cat-file --batch` for both trees) and written once; every
// other path with the same pair is a hard link to it. With a Store, a pair an
// earlier round already wrote is linked from the store and not read from git
// at all: a follow-up round writes only what changed. The floor this is
// measured against is `git archive REV | tar -x` run once per copy
// (BenchmarkWorkspace, BenchmarkWorkspaceFollowUp).
package workspace

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/jaekit/spar/lib/gitx"
)

// Names of the two copies inside the workspace folder.
const (
	Head = "head"
	Base = "base"
)

type entry struct {
	mode string // 100644, 100755, 120000
	oid  string
	size int64  // from ls-tree -l
	path string // repository path, slash-separated
}

// key identifies what one written file can serve: the same blob with the
// same executable bit (a hard link shares the mode).
type key struct {
	oid  string
	mode string
}

// Stats says where the files of one Build came from.
type Stats struct {
	Written int // distinct (blob, mode) pairs read from git and written
	Stored  int // distinct pairs linked from the store instead
	Copies  int // extra copies made because a file had the most links the file system allows (EMLINK)
	Paths   int // blob paths in both copies (symbolic links included)
}

// link is os.Link; tests replace it to make EMLINK happen at a small count.
var link = os.Link

// Materialize writes the trees of the commits head and base of the
// repository repo into dir/head and dir/base, without a store.
func Materialize(repo, head, base, dir string) error {
	_, err := Build(repo, head, base, dir, nil)
	return err
}

// Build writes the trees of the commits head and base of the repository
// repo into dir/head and dir/base (base "": dir/head alone). dir must not hold them yet. st, when not
// nil, is the blob store: pairs it holds are linked from it, pairs it lacks
// are written and added to it. On return every file and folder under
// dir/head and dir/base is read-only (files 0444 or 0555, folders 0555; dir
// itself stays writable).
func Build(repo, head, base, dir string, st *Store) (Stats, error) {
	stats, fill, err := BuildLater(repo, head, base, dir, st)
	fill()
	return stats, err
}

// BuildLater is Build without adding the newly written blobs to the store:
// fill does that (one link per blob), whenever the caller likes and at most
// once. spar-exec runs it while the reviewers run, so that the first round
// of a repository does not wait for it (the copies are complete without
// it). fill is never nil; it does nothing after an error or without a store.
func BuildLater(repo, head, base, dir string, st *Store) (Stats, func(), error) {
	stats, sink, err := build(repo, head, base, dir, st)
	return stats, sink.fill, err
}

func build(repo, head, base, dir string, st *Store) (Stats, *pending, error) {
	var stats Stats
	sink := &pending{st: st}
	trees := []struct {
		rev, name string
	}{{head, Head}, {base, Base}}
	type copyEntries struct {
		root    string
		entries []entry
	}
	copies := make([]copyEntries, 0, 2)
	for _, t := range trees {
		if t.rev == "" && t.name == Base {
			// One tree only (lib/fixcheck swaps the other's files in).
			continue
		}
		es, err := listTree(repo, t.rev)
		if err != nil {
			return stats, sink, err
		}
		copies = append(copies, copyEntries{filepath.Join(dir, t.name), es})
	}

	// Folders first, then group every path by what it holds.
	var dirs []string
	paths := map[key][]string{} // absolute target paths, first is written
	sizes := map[key]int64{}
	var order []key
	for _, c := range copies {
		if err := os.Mkdir(c.root, 0o755); err != nil {
			return stats, sink, err
		}
		dirs = append(dirs, c.root)
		made := map[string]bool{}
		for _, e := range c.entries {
			if err := checkPath(e.path); err != nil {
				return stats, sink, err
			}
			for d := pathDir(e.path); d != "" && !made[d]; d = pathDir(d) {
				made[d] = true
			}
			k := key{e.oid, e.mode}
			if _, ok := paths[k]; !ok {
				order = append(order, k)
				sizes[k] = e.size
			}
			paths[k] = append(paths[k], filepath.Join(c.root, filepath.FromSlash(e.path)))
			stats.Paths++
		}
		// Parents sort before children when sorted by length.
		sorted := make([]string, 0, len(made))
		for d := range made {
			sorted = append(sorted, d)
		}
		sortByLen(sorted)
		for _, d := range sorted {
			abs := filepath.Join(c.root, filepath.FromSlash(d))
			if err := os.Mkdir(abs, 0o755); err != nil {
				return stats, sink, err
			}
			dirs = append(dirs, abs)
		}
	}

	missing := order
	if st != nil {
		var err error
		missing, err = st.linkStored(order, paths, sizes, &stats)
		if err != nil {
			return stats, sink, err
		}
	}
	stats.Written = 0
	for _, k := range missing {
		if k.mode != "120000" {
			stats.Written++
		}
	}
	if err := writeBlobs(repo, missing, paths, sink, &stats); err != nil {
		sink.drop()
		return stats, sink, err
	}
	// Read-only last, deepest first, so that a non-root caller could still
	// have written everything above.
	for i := len(dirs) - 1; i >= 0; i-- {
		if err := os.Chmod(dirs[i], 0o555); err != nil {
			sink.drop()
			return stats, sink, err
		}
	}
	return stats, sink, nil
}

// pending holds the files Build wrote that the store does not hold yet.
type pending struct {
	st    *Store
	mu    sync.Mutex
	items []pendingItem
}

type pendingItem struct {
	k    key
	ps   []string // every path holding the blob, the written one first
	size int64
}

func (q *pending) add(k key, ps []string, size int64) {
	if q.st == nil {
		return
	}
	q.mu.Lock()
	q.items = append(q.items, pendingItem{k, ps, size})
	q.mu.Unlock()
}

func (q *pending) drop() {
	q.mu.Lock()
	q.items = nil
	q.mu.Unlock()
}

// fill links every pending file into the store (Store.add); when the
// written file has the most links it may have (EMLINK), another path of
// the blob (a copy linkAll made) is stored, and when all have, a copy.
func (q *pending) fill() {
	q.mu.Lock()
	items := q.items
	q.items = nil
	q.mu.Unlock()
	for _, it := range items {
		full := true
		for _, p := range it.ps {
			if err := q.st.add(it.k, p, it.size); !errors.Is(err, syscall.EMLINK) {
				full = false
				break
			}
		}
		if full {
			// Every file of the blob has the most links it may have:
			// the store gets a copy of its own.
			q.st.addCopy(it.k, it.ps[0], it.size)
		}
	}
}

// MakeWritable gives every folder under dir its owner's write bit back so
// that its entries can be unlinked. Files keep their read-only modes: a
// file may be a hard link of the blob store, and chmod on it would change
// the store's inode too (Remove).
func MakeWritable(dir string) {
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(p, 0o755)
		}
		return nil
	})
}

func listTree(repo, rev string) ([]entry, error) {
	out, err := gitx.Git(repo, "ls-tree", "-r", "-l", "-z", "--full-tree", "--end-of-options", rev+"^{tree}")
	if err != nil {
		return nil, err
	}
	var es []entry
	for _, rec := range gitx.SplitZ(out) {
		// "<mode> SP <type> SP <object> SP+ <size> TAB <path>" (-l: the
		// size is padded on the left; "-" for a submodule)
		tab := strings.IndexByte(rec, '\t')
		if tab < 0 {
			return nil, fmt.Errorf("git ls-tree: unexpected line %q", rec)
		}
		f := strings.Fields(rec[:tab])
		if len(f) != 4 {
			return nil, fmt.Errorf("git ls-tree: unexpected line %q", rec)
		}
		switch f[0] {
		case "100644", "100755", "120000":
			if hasDotGit(rec[tab+1:]) {
				// Git never checks out a path through a .git folder; in
				// the copy it would make git, run there by a reviewer, use
				// the commit's own config (core.fsmonitor runs a command).
				continue
			}
			size, err := strconv.ParseInt(f[3], 10, 64)
			if err != nil {
				return nil, fmt.Errorf("git ls-tree: bad size in %q", rec)
			}
			es = append(es, entry{mode: f[0], oid: f[2], size: size, path: rec[tab+1:]})
		case "160000":
			// A submodule is not in the copies.
		default:
			return nil, fmt.Errorf("git ls-tree: unexpected mode %s for %q", f[0], rec[tab+1:])
		}
	}
	return es, nil
}

// hasDotGit reports whether a component of the tree path p is ".git" as a
// case-insensitive file system (macOS) sees it: in any case, and with the
// code points HFS+ ignores (git's is_hfs_dotgit) removed.
func hasDotGit(p string) bool {
	for _, part := range strings.Split(p, "/") {
		part = strings.Map(func(r rune) rune {
			switch {
			case r >= 0x200c && r <= 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x206a && r <= 0x206f, r == 0xfeff:
				return -1
			}
			return r
		}, part)
		if strings.EqualFold(part, ".git") {
			return true
		}
	}
	return false
}

func checkPath(p string) error {
	if p == "" || strings.HasPrefix(p, "/") {
		return fmt.Errorf("tree path %q is not relative", p)
	}
	for _, part := range strings.Split(p, "/") {
		if part == "" || part == "." || part == ".." {
			return fmt.Errorf("tree path %q has an empty, . or .. component", p)
		}
	}
	return nil
}

func pathDir(p string) string {
	i := strings.LastIndexByte(p, '/')
	if i < 0 {
		return ""
	}
	return p[:i]
}

func sortByLen(s []string) {
	// Counting sort by length keeps this linear for large trees.
	max := 0
	for _, x := range s {
		if len(x) > max {
			max = len(x)
		}
	}
	buckets := make([][]string, max+1)
	for _, x := range s {
		buckets[len(x)] = append(buckets[len(x)], x)
	}
	s = s[:0]
	for _, b := range buckets {
		s = append(s, b...)
	}
}

// job is one blob to write at paths[0] and link at paths[1:].
type job struct {
	k     key
	data  []byte
	paths []string
}

// inlineLimit is the largest blob handed to a writer goroutine in memory;
// larger blobs are streamed straight from git to their file.
const inlineLimit = 1 << 20

// lanes is how many `git cat-file --batch` run at once, each over its share
// of the blobs (inflating is most of git's work); writers is how many
// goroutines create files (creating an inode is most of the kernel's).
var (
	lanes   = 2
	writers = 4
)

// counter is a Stats field several goroutines add to.
type counter struct {
	mu sync.Mutex
	n  *int
}

func (c *counter) add(d int) {
	c.mu.Lock()
	*c.n += d
	c.mu.Unlock()
}

func writeBlobs(repo string, order []key, paths map[key][]string, st *pending, stats *Stats) error {
	if len(order) == 0 {
		return nil
	}
	copies := &counter{n: &stats.Copies}
	jobs := make(chan job, 256)
	var errMu sync.Mutex
	var firstErr error
	setErr := func(err error) {
		errMu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		errMu.Unlock()
	}
	var wg sync.WaitGroup
	for i := 0; i < writers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				if err := place(j.k, j.data, j.paths, st, copies); err != nil {
					setErr(err)
				}
			}
		}()
	}
	n := lanes
	if len(order) < 256 {
		n = 1
	}
	var readers sync.WaitGroup
	for i := 0; i < n; i++ {
		share := order[i*len(order)/n : (i+1)*len(order)/n]
		readers.Add(1)
		go func() {
			defer readers.Done()
			if err := readLane(repo, share, paths, jobs, st, copies); err != nil {
				setErr(err)
			}
		}()
	}
	readers.Wait()
	close(jobs)
	wg.Wait()
	return firstErr
}

// readLane reads the blobs of share from one git cat-file --batch and hands
// them to the writers (a large blob is written here, streamed).
func readLane(repo string, share []key, paths map[key][]string, jobs chan<- job, st *pending, copies *counter) error {
	// gitx.Command, as every git call: the caller's GIT_* variables are
	// cleared and replace objects are off, so the blobs are the commit's
	// own (TestTrust_WorkspaceReadsTheCommitsOwnBlobs).
	cmd := gitx.Command(repo, "cat-file", "--batch", "--buffer")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() {
		w := bufio.NewWriterSize(stdin, 64<<10)
		for _, k := range share {
			w.WriteString(k.oid)
			w.WriteByte('\n')
		}
		w.Flush()
		stdin.Close()
	}()
	r := bufio.NewReaderSize(stdout, 256<<10)
	readErr := func() error {
		for _, k := range share {
			hdr, err := r.ReadString('\n')
			if err != nil {
				return fmt.Errorf("git cat-file: %v", err)
			}
			f := strings.Fields(hdr)
			if len(f) != 3 || f[0] != k.oid || f[1] != "blob" {
				return fmt.Errorf("git cat-file: unexpected header %q for %s", strings.TrimSpace(hdr), k.oid)
			}
			size, err := strconv.ParseInt(f[2], 10, 64)
			if err != nil {
				return fmt.Errorf("git cat-file: bad size in %q", strings.TrimSpace(hdr))
			}
			ps := paths[k]
			if size <= inlineLimit || k.mode == "120000" {
				data := make([]byte, size)
				if _, err := io.ReadFull(r, data); err != nil {
					return fmt.Errorf("git cat-file: %v", err)
				}
				jobs <- job{k, data, ps}
			} else {
				if err := writeStream(ps[0], k.mode, io.LimitReader(r, size), size); err != nil {
					return err
				}
				st.add(k, ps, size)
				if err := linkAll(ps[0], ps[1:], k.mode, copies); err != nil {
					return err
				}
			}
			if b, err := r.ReadByte(); err != nil || b != '\n' {
				return fmt.Errorf("git cat-file: missing newline after %s", k.oid)
			}
		}
		return nil
	}()
	if readErr != nil {
		cmd.Process.Kill()
	}
	waitErr := cmd.Wait()
	switch {
	case readErr != nil:
		return readErr
	case waitErr != nil:
		return fmt.Errorf("git cat-file: %v: %s", waitErr, strings.TrimSpace(stderr.String()))
	}
	return nil
}

func perm(mode string) os.FileMode {
	if mode == "100755" {
		return 0o555
	}
	return 0o444
}

// place writes data at paths[0], adds it to the store and links the rest to
// it.
func place(k key, data []byte, paths []string, st *pending, copies *counter) error {
	if k.mode == "120000" {
		// Symbolic links are tiny: each copy gets its own.
		for _, p := range paths {
			if err := os.Symlink(string(data), p); err != nil {
				return err
			}
		}
		return nil
	}
	src := paths[0]
	if err := writeFile(src, k.mode, data); err != nil {
		return err
	}
	st.add(k, paths, int64(len(data)))
	return linkAll(src, paths[1:], k.mode, copies)
}

// linkAll makes every path of ps a hard link of src. A file has at most as
// many links as the file system allows (ext4: 65,000): on EMLINK the next
// path gets a copy of its own, which the paths after it link to.
func linkAll(src string, ps []string, mode string, copies *counter) error {
	for _, p := range ps {
		err := link(src, p)
		if err == nil {
			continue
		}
		if !errors.Is(err, syscall.EMLINK) {
			return err
		}
		if err := copyFile(src, p, mode); err != nil {
			return err
		}
		copies.add(1)
		src = p
	}
	return nil
}

// copyFile writes a new file dst with src's bytes and mode's permissions.
func copyFile(src, dst, mode string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return err
	}
	return writeStream(dst, mode, in, fi.Size())
}

// writeFile creates p with data through plain system calls: an *os.File
// would also register every file with the poller, a cost paid per file.
func writeFile(p, mode string, data []byte) error {
	fd, err := syscall.Open(p, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_EXCL|syscall.O_CLOEXEC, uint32(perm(mode)))
	if err != nil {
		return &os.PathError{Op: "open", Path: p, Err: err}
	}
	for len(data) > 0 {
		n, err := syscall.Write(fd, data)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			syscall.Close(fd)
			return &os.PathError{Op: "write", Path: p, Err: err}
		}
		data = data[n:]
	}
	if err := syscall.Close(fd); err != nil {
		return &os.PathError{Op: "close", Path: p, Err: err}
	}
	return nil
}

func writeStream(p, mode string, r io.Reader, size int64) error {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm(mode))
	if err != nil {
		return err
	}
	n, err := io.Copy(f, r)
	if err == nil && n != size {
		err = fmt.Errorf("git cat-file: short blob for %s", p)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
