// Package seriesref carries a series folder in git, outside every branch
// (docs/usage.md "Records in git and the gate in CI"): what the ref
// refs/spar/series/<name> of the reviewed repository holds, how a series
// folder is published onto it and pushed, and how it is fetched and written
// back as a folder. Each publish is a commit whose parent is the previous
// publish, so the ref is the series' audit trail; its tree is the series
// folder's files exactly: never the series lock, a temporary file, a
// staged recording or a workspace.
package seriesref

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jaekit/spar/lib/escape"
	"github.com/jaekit/spar/lib/gitx"
	"github.com/jaekit/spar/lib/round"
)

// Prefix is where series refs live.
const Prefix = "refs/spar/series/"

// Ref is the ref of the series named name.
func Ref(name string) string { return Prefix + name }

// Name is a series name CheckName accepted: one ref component git takes.
// Prepare, Advance, PushCommit, CheckRemote, Head and Fetch take
// a Name, so a name reaches no ref or refspec unchecked.
type Name struct{ s string }

// String is the name as given.
func (n Name) String() string { return n.s }

// CheckName refuses a series name git cannot hold as the last component of
// refs/spar/series/<name>, by the rules of git check-ref-format(1) for one
// component (TestCheckName_AgreesWithGit asks git itself about each case):
// not empty, no /, \, control character, space, ~, ^, :, ?, *, [, no "..",
// no "@{", not starting with "." and not ending with "." or ".lock". No git
// process is started for it.
func CheckName(name string) (Name, error) {
	if name == "" || strings.ContainsAny(name, "/\\") {
		return Name{}, fmt.Errorf("%q is not a series folder name", name)
	}
	bad := strings.HasPrefix(name, ".") || strings.HasSuffix(name, ".") || strings.HasSuffix(name, ".lock") ||
		strings.Contains(name, "..") || strings.Contains(name, "@{")
	for i := 0; i < len(name) && !bad; i++ {
		c := name[i]
		bad = c < 0x20 || c == 0x7f || strings.IndexByte(" ~^:?*[", c) >= 0
	}
	if bad {
		return Name{}, fmt.Errorf("the series name %q cannot be a git ref (%s)", name, Ref(name))
	}
	return Name{name}, nil
}

// checked refuses the zero Name (a caller that skipped CheckName).
func checked(n Name) error {
	if n.s == "" {
		return errors.New("no series name (CheckName gives one)")
	}
	return nil
}

// skipped says why a path of a series folder is never published, "" when
// it is. Only regular files are published: the lock, temporary files
// (atomic writes, a recording being staged), and symbolic links (a round's
// workspace link, a linked round) stay on the machine.
func skipped(rel string, d fs.DirEntry) string {
	base := d.Name()
	switch {
	case rel == ".lock":
		return "the series lock"
	case d.Type()&fs.ModeSymlink != 0 && base == round.WorkspaceDir:
		return "a round's workspace"
	case d.Type()&fs.ModeSymlink != 0:
		return "a symbolic link"
	case base == round.RecordingDir && d.IsDir():
		return "a recording being staged"
	case strings.HasSuffix(base, ".tmp") || strings.Contains(base, ".tmp-") || strings.HasPrefix(base, ".tmp"):
		return "a temporary file"
	case !d.IsDir() && !d.Type().IsRegular():
		return "not a regular file"
	}
	return ""
}

// files lists what a publish of the series folder dir holds, in path
// order (with /), and what it leaves out (path: why). A folder that holds
// more than spar fetch takes (folderCheck: a file over a record's size, a
// name that is .git somewhere, too many files) is refused: CI could not
// fetch the publish.
func files(dir string) ([]string, []string, error) {
	var paths, left []string
	var check folderCheck
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == dir {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if why := skipped(rel, d); why != "" {
			left = append(left, rel+": "+why)
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		var size int64
		if !d.IsDir() {
			fi, err := d.Info()
			if err != nil {
				return err
			}
			size = fi.Size()
		}
		if err := check.add(rel, d.IsDir(), size); err != nil {
			return fmt.Errorf("%s: %w (spar fetch would refuse it)", dir, err)
		}
		if !d.IsDir() {
			paths = append(paths, rel)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	sort.Strings(paths)
	return paths, left, nil
}

// importCommit writes the files at paths (relative to dir, with /) and a
// commit of exactly them (parent: parent, unless "") into repo's objects
// with one git fast-import, and returns the commit and its root tree. The
// blobs, trees and commit go into one pack (not a loose object file each,
// as git hash-object -w and git mktree write them: most of a publish's
// time), what the repository's packs already hold is left out, and each
// blob is stored as a delta of the one before where that is smaller (a
// series' records repeat each other); git push then sends that pack's
// objects without compressing them again. No ref is written: the commit
// is made on a scratch branch that is reset to nothing before fast-import
// ends; Advance moves the series' ref itself. Each file is read once, as
// it is sent; the answers (ls, get-mark) are read while it is sent.
func importCommit(repo, dir string, paths []string, parent, message string) (commit, tree string, err error) {
	cmd := gitx.Command(repo, "fast-import", "--quiet", "--done")
	cmd.Env = gitx.KeepHeap(append(cmd.Env, identity...))
	in, err := cmd.StdinPipe()
	if err != nil {
		return "", "", err
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		return "", "", err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return "", "", err
	}
	// Two answers: the root tree (ls) and the commit (get-mark). The
	// reader stops at EOF when the stream ended early.
	answers := make(chan []string, 1)
	go func() {
		r := bufio.NewReader(outPipe)
		var got []string
		for len(got) < 2 {
			line, err := r.ReadString('\n')
			if err != nil {
				break
			}
			got = append(got, strings.TrimSuffix(line, "\n"))
		}
		io.Copy(io.Discard, r)
		answers <- got
	}()
	// A file that cannot be read ends the stream early but cleanly (done,
	// no commit): fast-import exits without a crash report, and the blobs
	// sent before it are unreferenced objects (git gc prunes them).
	const scratch = "refs/spar/publishing"
	var readErr error
	w := bufio.NewWriterSize(in, 256<<10)
	// The blobs go by file name, then path: fast-import stores a blob as a
	// delta of the one sent before it, and a series' files of one name
	// (every round's findings.json, round.json, …) are what repeat each
	// other (in path order the pack is about three times larger).
	order := make([]int, len(paths))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		_, na := pathSplit(paths[order[a]])
		_, nb := pathSplit(paths[order[b]])
		return na < nb
	})
	for _, i := range order {
		p := paths[i]
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil {
			readErr = err
			break
		}
		fmt.Fprintf(w, "blob\nmark :%d\ndata %d\n", i+1, len(b))
		w.Write(b)
		w.WriteByte('\n')
	}
	if readErr == nil {
		c := len(paths) + 1
		fmt.Fprintf(w, "commit %s\nmark :%d\n", scratch, c)
		now := time.Now().Unix()
		fmt.Fprintf(w, "author spar <spar@localhost> %d +0000\ncommitter spar <spar@localhost> %d +0000\n", now, now)
		fmt.Fprintf(w, "data %d\n%s\n", len(message), message)
		if parent != "" {
			fmt.Fprintf(w, "from %s\n", parent)
		}
		w.WriteString("deleteall\n")
		for i, p := range paths {
			fmt.Fprintf(w, "M 100644 :%d %s\n", i+1, quotePath(p))
		}
		fmt.Fprintf(w, "\nls :%d \"\"\nget-mark :%d\n", c, c)
		// The scratch branch is deleted at the end: no ref is written.
		fmt.Fprintf(w, "reset %s\nfrom %s\n\n", scratch, strings.Repeat("0", 40))
	}
	w.WriteString("done\n")
	sendErr := w.Flush()
	in.Close()
	// Every read of stdout ends (at its EOF) before Wait closes it.
	got := <-answers
	waitErr := cmd.Wait()
	switch {
	case readErr != nil:
		return "", "", readErr
	case waitErr != nil:
		return "", "", fmt.Errorf("git fast-import: %v: %s", waitErr, strings.TrimSpace(stderr.String()))
	case sendErr != nil:
		return "", "", fmt.Errorf("git fast-import: %v", sendErr)
	case len(got) != 2:
		return "", "", fmt.Errorf("git fast-import: %d answers, want 2", len(got))
	}
	// "040000 tree <id>\t" (ls of the root), then "<id>" (get-mark).
	f := strings.Fields(got[0])
	if len(f) != 3 || f[1] != "tree" || !objectID(f[2]) || !objectID(got[1]) {
		return "", "", fmt.Errorf("git fast-import: unexpected answers %q", got)
	}
	return got[1], f[2], nil
}

// objectID reports a full hexadecimal object ID (SHA-1 or SHA-256).
func objectID(s string) bool {
	return (len(s) == 40 || len(s) == 64) && strings.Trim(s, "0123456789abcdef") == ""
}

// quotePath is p as fast-import reads a path: always quoted, C style
// (a path may hold a space, a quote or a control character).
func quotePath(p string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(&b, "\\%03o", c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// pathSplit is path's folder ("" for the top) and last element.
func pathSplit(p string) (string, string) {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i], p[i+1:]
	}
	return "", p
}

// Head is the commit the local ref of name points at, "" when there is none;
// ErrNoPublish when it points at another object than a commit.
func Head(repo string, n Name) (string, error) {
	if err := checked(n); err != nil {
		return "", err
	}
	out, err := gitx.Git(repo, "for-each-ref", "--format=%(objectname) %(objecttype)", Ref(n.s))
	if err != nil {
		return "", err
	}
	f := strings.Fields(string(out))
	if len(f) == 0 {
		return "", nil
	}
	if len(f) != 2 || f[1] != "commit" {
		return "", fmt.Errorf("%s is not a commit (%s): %w", Ref(n.s), strings.TrimSpace(string(out)), ErrNoPublish)
	}
	return f[0], nil
}

// Published is what Publish did.
type Published struct {
	Commit  string   // the ref's commit after the publish
	Parent  string   // the previous publish, "" for the first
	Changed bool     // false: the folder holds what the ref already holds
	Files   int      // files in the tree
	Left    []string // paths left out, with why
}

// identity is the author and committer of a publish: spar, so that a
// publish needs no git identity (a CI runner has none).
var identity = []string{"GIT_AUTHOR_NAME=spar", "GIT_AUTHOR_EMAIL=spar@localhost", "GIT_COMMITTER_NAME=spar", "GIT_COMMITTER_EMAIL=spar@localhost"}

// Prepare makes the commit a publish of the series folder dir would put on
// the ref of name in repo, and moves no ref: a new commit whose parent is
// the local ref's commit, unless the ref's tree already is the folder's
// (Changed false, Commit the ref's commit). The caller holds the series
// lock; Advance then moves the local ref, after the remote took the commit
// when there is one (PushCommit), so that a refused push leaves the local
// ref as it was.
func Prepare(repo, dir string, n Name) (Published, error) {
	var p Published
	if err := checked(n); err != nil {
		return p, err
	}
	name := n.s
	paths, left, err := files(dir)
	if err != nil {
		return p, err
	}
	if len(paths) == 0 {
		return p, fmt.Errorf("%s holds no record to publish", dir)
	}
	p.Files, p.Left = len(paths), left
	// The ref's commit and its tree, in one call.
	out, err := gitx.Git(repo, "for-each-ref", "--format=%(objectname) %(tree)", Ref(name))
	if err != nil {
		return p, err
	}
	parentTree := ""
	if f := strings.Fields(string(out)); len(f) == 2 {
		p.Parent, parentTree = f[0], f[1]
	} else if len(f) != 0 {
		return p, fmt.Errorf("%s: not a commit (%s)", Ref(name), strings.TrimSpace(string(out)))
	}
	commit, tree, err := importCommit(repo, dir, paths, p.Parent, "spar: publish the series "+name)
	if err != nil {
		return p, err
	}
	if p.Parent != "" && tree == parentTree {
		// Nothing changed: the ref stays (the commit just made is
		// referenced by nothing; git gc prunes it).
		p.Commit = p.Parent
		return p, nil
	}
	p.Commit, p.Changed = commit, true
	return p, nil
}

// Advance moves the local ref of name from p.Parent to p.Commit (git
// update-ref with the old value: two publishes at once never lose one);
// nothing when p changed nothing.
func Advance(repo string, n Name, p Published) error {
	if err := checked(n); err != nil {
		return err
	}
	if !p.Changed {
		return nil
	}
	old := p.Parent
	if old == "" {
		old = strings.Repeat("0", len(p.Commit))
	}
	if _, err := gitx.Git(repo, "update-ref", "-m", "spar push", Ref(n.s), p.Commit, old); err != nil {
		return fmt.Errorf("%s moved while it was published: run spar push again (%v)", Ref(n.s), err)
	}
	return nil
}

// Bounds of a series folder WriteFolder writes. A ref is a remote's,
// whoever could push it, and a tree of a few kilobytes can name millions
// of files (one folder named a thousand times, a thousand times over) or
// nest empty folders a billion times; a series of 1,000 rounds is about
// 7,000 files of 170 MB, three levels deep.
const (
	MaxEntries = 100_000 // files and folders
	MaxBytes   = 4 << 30 // the files together
	MaxDepth   = 16      // names in a path
	maxPath    = 4096    // bytes of a path
)

// ErrNoPublish is a ref that is no publish of spar push: not a commit, or
// a commit of no file.
var ErrNoPublish = errors.New("no publish of spar push")

// WriteFolder writes the tree of commit into the folder out, which must not
// exist: each file read from repo's objects (at most round.MaxRecord
// bytes), written 0644, folders 0755. Everything is checked before
// anything is written, since the ref is a remote's, whoever could push it:
// a path that is not a plain relative path (.., an absolute path, a name
// some file system takes for .git), an entry that is not a regular file,
// two paths that are one file where case does not count, a tree of no
// file, or one over MaxEntries, MaxBytes or MaxDepth is refused. Two git
// processes whatever the number of files: ls-tree for the entries, then
// one cat-file --batch whose answers are handed as they arrive to a few
// writers (writeWorkers, at most writeBudget bytes held), each folder made
// once.
func WriteFolder(repo, commit, out string) (int, error) {
	ents, err := listTree(repo, commit)
	if err != nil {
		return 0, err
	}
	// out is made here, so a failure removes it, and only then: a folder
	// someone else made at out meanwhile is left alone.
	if err := os.Mkdir(out, 0o755); err != nil {
		return 0, err
	}
	n, err := writeEntries(repo, ents, out)
	if err != nil {
		os.RemoveAll(out)
		return 0, err
	}
	return n, nil
}

// writeEntries writes ents from repo's objects into the folder out.
func writeEntries(repo string, ents []entry, out string) (int, error) {
	cmd := gitx.Command(repo, "cat-file", "--batch")
	cmd.Env = gitx.KeepHeap(cmd.Env)
	in, err := cmd.StdinPipe()
	if err != nil {
		return 0, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return 0, err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	go func() {
		w := bufio.NewWriter(in)
		for _, e := range ents {
			w.WriteString(e.id)
			w.WriteByte('\n')
		}
		w.Flush()
		in.Close()
	}()
	r := bufio.NewReaderSize(stdout, 256<<10)
	made := map[string]bool{"": true}
	w := newWriters(writeWorkers, writeBudget)
	readErr := func() error {
		for _, e := range ents {
			// <object> SP <type> SP <size> LF <contents> LF
			head, err := r.ReadString('\n')
			if err != nil {
				return fmt.Errorf("git cat-file --batch: %s: %v", e.id, err)
			}
			f := strings.Fields(head)
			if len(f) != 3 || f[0] != e.id || f[1] != "blob" {
				return fmt.Errorf("git cat-file --batch: %s: %s", e.id, strings.TrimSpace(head))
			}
			size, err := strconv.ParseInt(f[2], 10, 64)
			if err != nil || size != e.size {
				return fmt.Errorf("git cat-file --batch: %s: size %q, ls-tree said %d", e.id, f[2], e.size)
			}
			if w.failed() {
				return nil // the writers' error is returned
			}
			b := w.take(size + 1)
			if _, err := io.ReadFull(r, b); err != nil {
				return fmt.Errorf("git cat-file --batch: %s: %v", e.id, err)
			}
			dir, _ := pathSplit(e.path)
			if !made[dir] {
				if err := os.MkdirAll(filepath.Join(out, filepath.FromSlash(dir)), 0o755); err != nil {
					return err
				}
				for d := dir; d != "" && !made[d]; d, _ = pathSplit(d) {
					made[d] = true
				}
			}
			w.write(filepath.Join(out, filepath.FromSlash(e.path)), b[:size])
		}
		return nil
	}()
	writeErr := w.wait()
	if readErr != nil {
		writeErr = readErr
	}
	_, _ = io.Copy(io.Discard, r)
	if err := cmd.Wait(); err != nil && writeErr == nil {
		writeErr = fmt.Errorf("git cat-file --batch: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	if writeErr != nil {
		return 0, writeErr
	}
	return len(ents), nil
}

// entry is a file of a fetched tree.
type entry struct {
	path, id string
	size     int64
}

// listTree is the files of commit's tree, in ls-tree's order, checked as
// WriteFolder says. git ls-tree -t prints every folder as well as every
// file, so that counting what it prints bounds its work too (an empty
// folder prints nothing with -r alone); it is stopped at the first entry
// that is refused.
func listTree(repo, commit string) ([]entry, error) {
	cmd := gitx.Command(repo, "ls-tree", "-r", "-t", "-z", "--full-tree", "-l", "--end-of-options", commit)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	ents, err := readTree(bufio.NewReaderSize(stdout, maxPath+256), commit)
	if err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		return nil, err
	}
	if err := cmd.Wait(); err != nil {
		return nil, fmt.Errorf("git ls-tree %s: %v: %s", commit, err, strings.TrimSpace(stderr.String()))
	}
	if len(ents) == 0 {
		return nil, fmt.Errorf("%s holds no file: %w", commit, ErrNoPublish)
	}
	return ents, nil
}

// readTree reads git ls-tree -r -t -z -l's entries from r.
func readTree(r *bufio.Reader, commit string) ([]entry, error) {
	var ents []entry
	var check folderCheck
	for {
		rec, err := r.ReadSlice(0)
		if err == io.EOF && len(rec) == 0 {
			return ents, nil
		}
		if err == bufio.ErrBufferFull {
			return nil, fmt.Errorf("%s: %w", commit, errLongPath)
		}
		if err != nil {
			return nil, fmt.Errorf("git ls-tree: %v", err)
		}
		line := string(rec[:len(rec)-1])
		meta, path, ok := strings.Cut(line, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 4 {
			return nil, fmt.Errorf("git ls-tree: unexpected line %q", line)
		}
		if f[0] == "040000" && f[1] == "tree" {
			if err := check.add(path, true, 0); err != nil {
				return nil, fmt.Errorf("%s: %w", commit, err)
			}
			continue
		}
		if f[0] != "100644" && f[0] != "100755" || f[1] != "blob" {
			return nil, fmt.Errorf("%s: %s is not a regular file (mode %s)", commit, path, f[0])
		}
		size, err := strconv.ParseInt(f[3], 10, 64)
		if err != nil || size < 0 {
			return nil, fmt.Errorf("git ls-tree: %s: size %q", path, f[3])
		}
		if err := check.add(path, false, size); err != nil {
			return nil, fmt.Errorf("%s: %w", commit, err)
		}
		ents = append(ents, entry{path: path, id: f[2], size: size})
	}
}

var errLongPath = fmt.Errorf("a path of more than %d bytes is not a path inside a series folder", maxPath)

var errTooMany = fmt.Errorf("more than %d entries (files and folders), more than a series folder holds", MaxEntries)

// folderCheck holds a series folder's paths, one at a time, to what a
// series folder may hold: a fetch takes no more (WriteFolder, of a ref
// whoever could push it made) and a publish makes no more (Prepare: what
// spar push publishes, spar fetch takes). Bounds: MaxEntries entries,
// MaxBytes bytes, MaxDepth levels, maxPath bytes a path, round.MaxRecord
// bytes a file; each path plain (plainPath) and one file where case does
// not count.
type folderCheck struct {
	// Each path where case does not count: true for a file.
	seen  map[string]bool
	n     int
	total int64
}

// add checks one entry: a folder (dir) or a file of size bytes.
func (c *folderCheck) add(path string, dir bool, size int64) error {
	if c.seen == nil {
		c.seen = map[string]bool{}
	}
	if c.n++; c.n > MaxEntries {
		return errTooMany
	}
	if len(path) > maxPath {
		return errLongPath
	}
	if !plainPath(path) {
		return fmt.Errorf("%q is not a path inside a series folder", path)
	}
	if strings.Count(path, "/") >= MaxDepth {
		return fmt.Errorf("%q nests more than %d levels, more than a series folder holds", path, MaxDepth)
	}
	folded := strings.ToLower(path)
	if dir {
		if isFile, ok := c.seen[folded]; ok && isFile {
			return fmt.Errorf("the folder %q and a file are the same file where case does not count", path)
		} else if !ok {
			c.seen[folded] = false
		}
		return nil
	}
	if _, dup := c.seen[folded]; dup {
		return fmt.Errorf("%q and another path are the same file where case does not count", path)
	}
	c.seen[folded] = true
	if size > round.MaxRecord {
		return fmt.Errorf("%s holds %d bytes, more than a record may hold", path, size)
	}
	if c.total += size; c.total > MaxBytes {
		return fmt.Errorf("more than %d bytes of files, more than a series folder holds", int64(MaxBytes))
	}
	return nil
}

// writeNew writes data as the new file path: never through a file or a
// link already there (O_EXCL). Two names of a ref that one file system
// takes for one file, which folderCheck cannot know of (é composed and
// decomposed, on macOS), fail the fetch instead of one file's content
// replacing the other's; so does a link planted in the new folder while it
// is written.
func writeNew(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s: already written: two paths of the ref are one file on this file system, or something else writes into the folder", path)
	}
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// writeWorkers write a fetched folder's files at once: most of the time of
// writing a series is the kernel making files, which a few writers overlap
// (700 files: about a third of the time of one writer). writeBudget bounds
// the bytes read and not yet written (a record larger than it is written
// alone).
const (
	writeWorkers = 4
	writeBudget  = 64 << 20
)

// writers writes files from a few goroutines, holding at most budget
// bytes of them at once; the first error stops it.
type writers struct {
	mu     sync.Mutex
	cond   *sync.Cond
	held   int64
	budget int64
	err    error
	jobs   chan writeJob
	wg     sync.WaitGroup
}

type writeJob struct {
	path string
	data []byte
	held int64
}

func newWriters(n int, budget int64) *writers {
	w := &writers{budget: budget, jobs: make(chan writeJob)}
	w.cond = sync.NewCond(&w.mu)
	for i := 0; i < n; i++ {
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			for j := range w.jobs {
				err := writeNew(j.path, j.data)
				w.mu.Lock()
				if err != nil && w.err == nil {
					w.err = err
				}
				w.held -= j.held
				w.cond.Broadcast()
				w.mu.Unlock()
			}
		}()
	}
	return w
}

// take waits until n more bytes fit the budget (or nothing is held) and
// returns a buffer of n bytes counted against it.
func (w *writers) take(n int64) []byte {
	w.mu.Lock()
	for w.held > 0 && w.held+n > w.budget && w.err == nil {
		w.cond.Wait()
	}
	w.held += n
	w.mu.Unlock()
	return make([]byte, n)
}

// write hands data, a buffer from take, to a writer.
func (w *writers) write(path string, data []byte) {
	w.jobs <- writeJob{path, data, int64(cap(data))}
}

func (w *writers) failed() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err != nil
}

// wait ends the writers and returns their first error.
func (w *writers) wait() error {
	close(w.jobs)
	w.wg.Wait()
	return w.err
}

// plainPath reports a relative path of plain names: no empty, ".", ".."
// or dotGit element, none made of dots and spaces only.
func plainPath(p string) bool {
	if p == "" || strings.HasPrefix(p, "/") {
		return false
	}
	for _, el := range strings.Split(p, "/") {
		if strings.TrimRight(el, ". ") == "" || dotGit(el) {
			return false
		}
	}
	return true
}

// dotGit reports a name some file system takes for .git, as git's own
// checks of a path do (core.protectNTFS, core.protectHFS): .git in any
// case, with trailing dots or spaces or an alternate stream (":…") on
// NTFS, its NTFS short name git~1, or with characters HFS+ ignores
// (zero-width joiners, direction marks, the byte order mark).
func dotGit(name string) bool {
	n := strings.Map(func(r rune) rune {
		if r >= 0x200c && r <= 0x200f || r >= 0x202a && r <= 0x202e || r >= 0x206a && r <= 0x206f || r == 0xfeff {
			return -1
		}
		return r
	}, name)
	if i := strings.IndexByte(n, ':'); i >= 0 {
		n = n[:i]
	}
	n = strings.TrimRight(n, ". ")
	return strings.EqualFold(n, ".git") || strings.EqualFold(n, "git~1")
}

// ErrNoRef is a remote without the series' ref: no review was published
// there.
var ErrNoRef = errors.New("no review was published")

// transportEnv are the variables of the caller's environment a push or
// fetch keeps: how git reaches a remote (ssh, credentials), none of which
// points git at other objects.
var transportEnv = []string{"GIT_SSH", "GIT_SSH_COMMAND", "GIT_SSH_VARIANT", "GIT_ASKPASS", "GIT_TERMINAL_PROMPT", "GIT_HTTP_USER_AGENT"}

// DefaultTimeout bounds each git push, fetch and ls-remote of a series
// ref when the caller gives no time limit (spar push and spar fetch
// --timeout).
const DefaultTimeout = 10 * time.Minute

// ErrTimeout is a git push, fetch or ls-remote stopped at its time limit.
var ErrTimeout = errors.New("stopped at its time limit")

// remoteGit runs git push, fetch or ls-remote with args; each call puts
// --end-of-options before the remote's name, which is never read as an
// option (a remote configured as --upload-pack=<command>). A remote that
// never answers, or answers without end, must not hold spar (or a CI job)
// forever: git is killed at timeout (DefaultTimeout when 0), and what it
// started (ssh, a remote helper) holds spar no longer than
// pipeGrace after that: their ends of the pipes are closed. git keeps the
// terminal's process group, so that ssh can still ask for a passphrase.
func remoteGit(repo string, timeout time.Duration, args ...string) ([]byte, error) {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	cmd := gitx.Command(repo, args...)
	for _, k := range transportEnv {
		if v, ok := os.LookupEnv(k); ok {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = pipeGrace
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("git %s: %v", args[0], err)
	}
	var expired atomic.Bool
	timer := time.AfterFunc(timeout, func() {
		expired.Store(true)
		cmd.Process.Kill()
	})
	err := cmd.Wait()
	timer.Stop()
	if errors.Is(err, exec.ErrWaitDelay) {
		// git ended well and a process it started (an ssh master kept
		// for later connections) still holds the pipes: git's answer
		// was read whole before they were closed.
		err = nil
	}
	if expired.Load() {
		return nil, fmt.Errorf("git %s: no end after %gs, %w", args[0], timeout.Seconds(), ErrTimeout)
	}
	if err != nil {
		return stdout.Bytes(), fmt.Errorf("git %s: %s", args[0], cause(stderr.String(), err))
	}
	return stdout.Bytes(), nil
}

// pipeGrace is how long remoteGit waits, once git has ended, for what git
// started to close the pipes it inherited.
const pipeGrace = 2 * time.Second

// cause is what a failed git push, fetch or ls-remote says about why, from
// its stderr: the lines that carry a cause (error:, fatal:, warning:, what
// the remote said, a rejected ref), never hint: lines (git 2.39 prints the
// grafts deprecation hint first, spar setting GIT_GRAFT_FILE), on one line
// joined by "; ", at most causeLines lines of at most causeWidth
// characters each, control characters escaped (the remote's words reach
// the terminal and a CI summary). With no such line, the first line that is
// no hint; with none at all, err.
func cause(s string, err error) string {
	var picked, other []string
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		switch {
		case l == "" || strings.HasPrefix(l, "hint:"):
			continue
		case strings.HasPrefix(l, "error:"), strings.HasPrefix(l, "fatal:"), strings.HasPrefix(l, "warning:"),
			strings.HasPrefix(l, "remote:"), strings.HasPrefix(l, "! "):
			if strings.TrimSpace(strings.TrimPrefix(l, "remote:")) == "" {
				continue
			}
			picked = append(picked, l)
		default:
			other = append(other, l)
		}
	}
	if len(picked) == 0 {
		if len(other) == 0 {
			return err.Error()
		}
		picked = other[:1]
	}
	if len(picked) > causeLines {
		picked = append(picked[:causeLines-1], fmt.Sprintf("(%d more lines)", len(picked)-causeLines+1))
	}
	for i, l := range picked {
		if r := []rune(l); len(r) > causeWidth {
			l = string(r[:causeWidth]) + "…"
		}
		picked[i] = escape.Controls(l)
	}
	return strings.Join(picked, "; ")
}

// causeLines and causeWidth bound the cause of a failed git call (cause).
const (
	causeLines = 8
	causeWidth = 300
)

// Remote is the remote a push or fetch uses: given when not "", else the
// current branch's upstream remote, else origin; "" when the repository has
// none of them. A remote is one with a URL (remote.<name>.url). One git
// config call reads the remotes and every branch's remote; the current
// branch is asked for only when a branch names a remote.
func Remote(repo, given string) (string, error) {
	out, err := gitx.Git(repo, "config", "-z", "--get-regexp", `^(remote\..+\.url|branch\..+\.remote)$`)
	if err != nil {
		// git config exits 1 when nothing matches.
		if !gitx.ExitedOne(err) {
			return "", err
		}
		out = nil
	}
	have := map[string]bool{}
	upstream := map[string]string{} // branch → its remote
	for _, entry := range gitx.SplitZ(out) {
		key, value, _ := strings.Cut(entry, "\n")
		if n, ok := strings.CutPrefix(key, "remote."); ok && strings.HasSuffix(n, ".url") {
			have[strings.TrimSuffix(n, ".url")] = true
		} else if b, ok := strings.CutPrefix(key, "branch."); ok && strings.HasSuffix(b, ".remote") {
			upstream[strings.TrimSuffix(b, ".remote")] = value
		}
	}
	if given != "" {
		if !have[given] {
			return "", fmt.Errorf("the repository has no remote %q", given)
		}
		return given, nil
	}
	if len(upstream) > 0 {
		if b, err := gitx.Git(repo, "symbolic-ref", "-q", "--short", "HEAD"); err == nil {
			if n := upstream[strings.TrimSpace(string(b))]; have[n] {
				return n, nil
			}
		}
	}
	if have["origin"] {
		return "origin", nil
	}
	return "", nil
}

// RemoteHead is the commit the remote's ref of name points at ("" with
// ErrNoRef when it has none).
func RemoteHead(repo, remote string, n Name, timeout time.Duration) (string, error) {
	if err := checked(n); err != nil {
		return "", err
	}
	name := n.s
	out, err := remoteGit(repo, timeout, "ls-remote", "--refs", "--end-of-options", remote, Ref(name))
	if err != nil {
		return "", err
	}
	for _, l := range strings.Split(string(out), "\n") {
		if f := strings.Fields(l); len(f) == 2 && f[1] == Ref(name) {
			return f[0], nil
		}
	}
	return "", ErrNoRef
}

// MovedError is a remote ref that moved elsewhere: someone else published
// the series there since this clone's last publish.
type MovedError struct {
	Remote, Name, Theirs, Ours string
}

func (e *MovedError) Error() string {
	if e.Ours == "" {
		return fmt.Sprintf("%s on %s is at %s, and this clone has published nothing of it: someone else published the series there", Ref(e.Name), e.Remote, e.Theirs)
	}
	return fmt.Sprintf("%s on %s is at %s, which this clone's publish %s does not contain: someone else published the series there", Ref(e.Name), e.Remote, e.Theirs, e.Ours)
}

// CheckRemote refuses a publish onto a ref the remote moved elsewhere: the
// remote's ref must be absent or an ancestor of (or equal to) the local
// one, else it is a *MovedError. PushCommit asks it when the remote
// rejected a push, to say why.
func CheckRemote(repo, remote string, n Name, timeout time.Duration) error {
	theirs, err := RemoteHead(repo, remote, n, timeout)
	if errors.Is(err, ErrNoRef) {
		return nil
	}
	if err != nil {
		return err
	}
	ours, err := Head(repo, n)
	if err != nil {
		return err
	}
	if ours == theirs {
		return nil
	}
	if ours != "" {
		// Do we hold their commit, and is it an ancestor of ours?
		if ok, _ := gitx.IsAncestor(repo, theirs, ours); ok {
			return nil
		}
	}
	return &MovedError{Remote: remote, Name: n.s, Theirs: theirs, Ours: ours}
}

// PushCommit pushes commit onto the remote's ref of name, fast-forward
// only, never forced: git push without +, so a remote whose ref moved
// elsewhere rejects it. The remote is asked nothing before (no ls-remote):
// only a push that fails asks it again (CheckRemote), to say whose publish
// is there (*MovedError, against the local ref, which the caller moves only
// after the push went through).
func PushCommit(repo, remote string, n Name, commit string, timeout time.Duration) error {
	return PushSeries(repo, remote, n, commit, "", timeout)
}

// PushSeries is PushCommit with the series' keep commit (Keep) pushed onto
// its keep ref in the same git push, atomically: the remote takes both refs
// or neither (kept "": the series' ref alone).
func PushSeries(repo, remote string, n Name, commit, kept string, timeout time.Duration) error {
	if err := checked(n); err != nil {
		return err
	}
	if !objectID(commit) {
		return fmt.Errorf("push: %q is not a commit id", commit)
	}
	if kept != "" && !objectID(kept) {
		return fmt.Errorf("push: %q is not a commit id", kept)
	}
	ref := Ref(n.s)
	args := []string{"push", "--quiet", "--no-verify"}
	if kept != "" {
		args = append(args, "--atomic")
	}
	args = append(args, "--end-of-options", remote, commit+":"+ref)
	if kept != "" {
		args = append(args, kept+":"+KeptRef(n.s))
	}
	if _, err := remoteGit(repo, timeout, args...); err != nil {
		var moved *MovedError
		if errors.Is(err, ErrTimeout) {
			return err
		}
		if cerr := CheckRemote(repo, remote, n, timeout); errors.As(cerr, &moved) {
			return cerr
		}
		return err
	}
	return nil
}

// Fetch fetches the remote's ref of name into this repository's own ref
// of it when that is a fast-forward (or there is none), and returns the
// remote's commit; ErrNoRef when the remote holds none, ErrNoPublish when
// its ref is no commit (this clone's ref then stays where it was). A local
// ref that is not an ancestor of the remote's (an unpushed publish) stays:
// the commit is fetched all the same, under refs/spar/fetched/<name>.
func Fetch(repo, remote string, n Name, timeout time.Duration) (string, error) {
	if err := checked(n); err != nil {
		return "", err
	}
	name := n.s
	fetched := "refs/spar/fetched/" + name
	// One fetch, no ls-remote before it: a remote without the ref fails
	// it with "couldn't find remote ref".
	if _, err := remoteGit(repo, timeout, "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--end-of-options", remote, "+"+Ref(name)+":"+fetched); err != nil {
		if strings.Contains(err.Error(), "find remote ref") {
			return "", ErrNoRef
		}
		return "", err
	}
	out, err := gitx.Git(repo, "for-each-ref", "--format=%(refname) %(objectname) %(objecttype)", fetched, Ref(name))
	if err != nil {
		return "", err
	}
	theirs, kind, ours := "", "", ""
	for _, l := range strings.Split(string(out), "\n") {
		if f := strings.Fields(l); len(f) == 3 {
			if f[0] == fetched {
				theirs, kind = f[1], f[2]
			} else {
				ours = f[1]
			}
		}
	}
	if theirs == "" {
		return "", fmt.Errorf("%s: fetched, but not found", fetched)
	}
	if kind != "commit" {
		// A tree, a blob or a tag: this clone's ref stays where it was.
		return "", fmt.Errorf("%s on %s is a %s, not a commit: %w", Ref(name), remote, kind, ErrNoPublish)
	}
	if ours == "" {
		_, err = gitx.Git(repo, "update-ref", Ref(name), theirs, strings.Repeat("0", len(theirs)))
	} else if ours != theirs {
		if ok, _ := gitx.IsAncestor(repo, ours, theirs); ok {
			_, err = gitx.Git(repo, "update-ref", Ref(name), theirs, ours)
		}
	}
	return theirs, err
}
