// Package workspace materializes the read-only copies reviewers read:
// <round>/workspace/head and <round>/workspace/base (DESIGN.md §4).
//
// Only the blob entries of each commit's tree are written (regular files,
// executable files and symbolic links) with the folders above them; a
// submodule (gitlink) is not in the copies (spar-input.en.md §3: "A submodule
// is not in the copies"). Both copies are read-only when Materialize returns.
//
// Speed: the copies are spar's main cost besides the reviewers, and base and
// head share most blobs. Every distinct (blob, mode) pair is read from git
// once (one `git cat-file --batch` for both trees) and written once; every
// other path with the same pair is a hard link to it. The floor this is
// measured against is `git archive REV | tar -x` run once per copy
// (BenchmarkWorkspace).
package workspace

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
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
	path string // repository path, slash-separated
}

// key identifies what one written file can serve: the same blob with the
// same executable bit (a hard link shares the mode).
type key struct {
	oid  string
	mode string
}

// Materialize writes the trees of the commits head and base of the
// repository repo into dir/head and dir/base. dir must not hold them yet.
// On return every file and folder under dir/head and dir/base is read-only
// (files 0444 or 0555, folders 0555; dir itself stays writable).
func Materialize(repo, head, base, dir string) error {
	trees := []struct {
		rev, name string
	}{{head, Head}, {base, Base}}
	type copyEntries struct {
		root    string
		entries []entry
	}
	copies := make([]copyEntries, 0, 2)
	for _, t := range trees {
		es, err := listTree(repo, t.rev)
		if err != nil {
			return err
		}
		copies = append(copies, copyEntries{filepath.Join(dir, t.name), es})
	}

	// Folders first, then group every path by what it holds.
	var dirs []string
	paths := map[key][]string{} // absolute target paths, first is written
	var order []key
	for _, c := range copies {
		if err := os.Mkdir(c.root, 0o755); err != nil {
			return err
		}
		dirs = append(dirs, c.root)
		made := map[string]bool{}
		for _, e := range c.entries {
			if err := checkPath(e.path); err != nil {
				return err
			}
			for d := pathDir(e.path); d != "" && !made[d]; d = pathDir(d) {
				made[d] = true
			}
			k := key{e.oid, e.mode}
			if _, ok := paths[k]; !ok {
				order = append(order, k)
			}
			paths[k] = append(paths[k], filepath.Join(c.root, filepath.FromSlash(e.path)))
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
				return err
			}
			dirs = append(dirs, abs)
		}
	}

	if err := writeBlobs(repo, order, paths); err != nil {
		return err
	}
	// Read-only last, deepest first, so that a non-root caller could still
	// have written everything above.
	for i := len(dirs) - 1; i >= 0; i-- {
		if err := os.Chmod(dirs[i], 0o555); err != nil {
			return err
		}
	}
	return nil
}

// MakeWritable undoes the read-only modes under dir so that it can be
// removed (tests, benchmarks).
func MakeWritable(dir string) {
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(p, 0o755)
		}
		return nil
	})
}

func listTree(repo, rev string) ([]entry, error) {
	out, err := gitx.Git(repo, "ls-tree", "-r", "-z", "--full-tree", "--end-of-options", rev+"^{tree}")
	if err != nil {
		return nil, err
	}
	var es []entry
	for _, rec := range gitx.SplitZ(out) {
		// "<mode> SP <type> SP <object> TAB <path>"
		tab := strings.IndexByte(rec, '\t')
		if tab < 0 {
			return nil, fmt.Errorf("git ls-tree: unexpected line %q", rec)
		}
		f := strings.Fields(rec[:tab])
		if len(f) != 3 {
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
			es = append(es, entry{mode: f[0], oid: f[2], path: rec[tab+1:]})
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

func writeBlobs(repo string, order []key, paths map[key][]string) error {
	if len(order) == 0 {
		return nil
	}
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
				if err := place(j.k, j.data, j.paths); err != nil {
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
			if err := readLane(repo, share, paths, jobs); err != nil {
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
func readLane(repo string, share []key, paths map[key][]string, jobs chan<- job) error {
	cmd := exec.Command("git", "--no-pager", "cat-file", "--batch", "--buffer")
	cmd.Dir = repo
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
				for _, p := range ps[1:] {
					if err := os.Link(ps[0], p); err != nil {
						return err
					}
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

// place writes data at paths[0] and links the rest to it.
func place(k key, data []byte, paths []string) error {
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
	for _, p := range paths[1:] {
		if err := os.Link(src, p); err != nil {
			return err
		}
	}
	return nil
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
