package gitx

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Mode is the kind of a blob entry of a commit's tree.
type Mode uint8

const (
	Regular    Mode = iota + 1 // 100644
	Executable                 // 100755
	Symlink                    // 120000
)

func (m Mode) String() string {
	switch m {
	case Regular:
		return "100644"
	case Executable:
		return "100755"
	case Symlink:
		return "120000"
	}
	return "?"
}

// Blob is one blob entry of a tree: its mode and object ID.
type Blob struct {
	Mode Mode
	ID   string
}

// IsRegular reports whether the blob is a regular file of the commit (mode
// 100644 or 100755): the only kind a G8 contract link may name.
func (b Blob) IsRegular() bool { return b.Mode == Regular || b.Mode == Executable }

// Tree is the index of one commit's copy (docs/review-round.md §6.2): the
// blob entries of the commit's tree (regular and executable files and
// symbolic links) and the folders above them. A submodule (gitlink) is not
// in the copy, so neither it nor a folder holding only submodules is.
type Tree struct {
	Commit   string
	blobs    map[string]Blob
	dirs     map[string]struct{}
	gitlinks map[string]struct{} // kept only to say why a path is not in the copy
}

// LoadTree reads the tree of commit with one `git ls-tree -r -z
// --full-tree` call: locations and links are looked up in memory, never
// with a git call per finding.
func LoadTree(dir, commit string) (*Tree, error) {
	out, err := Git(dir, "ls-tree", "-r", "-z", "--full-tree", "--end-of-options", commit)
	if err != nil {
		return nil, err
	}
	return parseTree(commit, out)
}

func parseTree(commit string, raw []byte) (*Tree, error) {
	// One string for the whole listing: every path and object ID is a
	// substring of it, not an allocation of its own.
	out := string(raw)
	t := newTree(commit)
	for len(out) > 0 {
		rec, rest, _ := strings.Cut(out, "\x00")
		out = rest
		// <mode> SP <type> SP <object> TAB <path>
		tab := strings.IndexByte(rec, '\t')
		sp1 := strings.IndexByte(rec, ' ')
		sp2 := -1
		if sp1 >= 0 && tab >= 0 {
			sp2 = strings.LastIndexByte(rec[:tab], ' ')
		}
		if tab < 0 || sp1 < 0 || sp2 <= sp1 {
			return nil, fmt.Errorf("git ls-tree %s: unreadable entry %q", commit, rec)
		}
		if err := t.add(rec[:sp1], rec[sp2+1:tab], rec[tab+1:]); err != nil {
			return nil, err
		}
	}
	return t, nil
}

func newTree(commit string) *Tree {
	return &Tree{Commit: commit, blobs: map[string]Blob{}, dirs: map[string]struct{}{}, gitlinks: map[string]struct{}{}}
}

// add is one entry of ls-tree -r: its mode as ls-tree prints it, object ID
// and path.
func (t *Tree) add(mode, id, p string) error {
	var m Mode
	switch mode {
	case "100644":
		m = Regular
	case "100755":
		m = Executable
	case "120000":
		m = Symlink
	case "160000":
		// A submodule is not in the copy: neither a location target nor
		// a contract link target, and it adds no folder above it.
		t.gitlinks[p] = struct{}{}
		return nil
	default:
		return fmt.Errorf("git ls-tree %s: unknown mode %s", t.Commit, mode)
	}
	t.blobs[p] = Blob{Mode: m, ID: id}
	for j := strings.LastIndexByte(p, '/'); j > 0; j = strings.LastIndexByte(p[:j], '/') {
		if _, ok := t.dirs[p[:j]]; ok {
			break // every folder above it is there already
		}
		t.dirs[p[:j]] = struct{}{}
	}
	return nil
}

// Blob returns the blob entry at repository path p.
func (t *Tree) Blob(p string) (Blob, bool) {
	b, ok := t.blobs[p]
	return b, ok
}

// IsDir reports whether p is a folder of the copy (a path with tracked
// files under it). The root "" is a folder when the copy has any file.
func (t *Tree) IsDir(p string) bool {
	if p == "" {
		return len(t.blobs) > 0
	}
	_, ok := t.dirs[p]
	return ok
}

// Has reports whether p is a file or folder of the copy.
func (t *Tree) Has(p string) bool {
	if _, ok := t.blobs[p]; ok {
		return true
	}
	return t.IsDir(p)
}

// IsSubmodule reports whether p is a gitlink of the commit's tree. It is
// never part of the copy; callers use it only to say why.
func (t *Tree) IsSubmodule(p string) bool {
	_, ok := t.gitlinks[p]
	return ok
}

// Each calls fn for every blob entry, in no set order.
func (t *Tree) Each(fn func(p string, b Blob)) {
	for p, b := range t.blobs {
		fn(p, b)
	}
}

// Len is the number of blob entries.
func (t *Tree) Len() int { return len(t.blobs) }

// ReadBlobs reads the contents of the blobs ids with one `git cat-file
// --batch` call, each once however often it is named.
func ReadBlobs(dir string, ids []string) (map[string][]byte, error) {
	return readBlobs(dir, ids, -1)
}

// ReadBlobsMax is ReadBlobs for objects someone else may have written (a
// fetched ref): a blob over max bytes is an error, read no further than
// its size line.
func ReadBlobsMax(dir string, ids []string, max int64) (map[string][]byte, error) {
	return readBlobs(dir, ids, max)
}

func readBlobs(dir string, ids []string, max int64) (map[string][]byte, error) {
	got := make(map[string][]byte, len(ids))
	var in bytes.Buffer
	var order []string
	for _, id := range ids {
		if _, ok := got[id]; ok {
			continue
		}
		got[id] = nil
		order = append(order, id)
		in.WriteString(id)
		in.WriteByte('\n')
	}
	if len(order) == 0 {
		return got, nil
	}
	cmd := Command(dir, "cat-file", "--batch")
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	r := bufio.NewReader(stdout)
	readErr := func() error {
		for _, id := range order {
			head, err := r.ReadString('\n')
			if err != nil {
				return fmt.Errorf("git cat-file --batch: %s: %v", id, err)
			}
			// <object> SP <type> SP <size> LF <contents> LF, or <object> SP missing LF
			f := strings.Fields(head)
			if len(f) != 3 || f[1] != "blob" {
				return fmt.Errorf("git cat-file --batch: %s: %s", id, strings.TrimSpace(head))
			}
			size, err := strconv.Atoi(f[2])
			if err != nil || size < 0 {
				return fmt.Errorf("git cat-file --batch: %s: size %q", id, f[2])
			}
			if max >= 0 && int64(size) > max {
				return fmt.Errorf("the blob %s is %d bytes, more than a record holds (%d)", id, size, max)
			}
			b := make([]byte, size+1)
			if _, err := io.ReadFull(r, b); err != nil {
				return fmt.Errorf("git cat-file --batch: %s: %v", id, err)
			}
			got[id] = b[:size]
		}
		return nil
	}()
	if readErr != nil {
		// Nothing more is read: a blob past the bound is not drained.
		cmd.Process.Kill()
	}
	_, _ = io.Copy(io.Discard, r)
	if err := cmd.Wait(); err != nil && readErr == nil {
		// (a process killed above already has its error)
		readErr = fmt.Errorf("git cat-file --batch: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	if readErr != nil {
		return nil, readErr
	}
	return got, nil
}

// CountLines is G8's line count: the number of newlines, plus one when the
// last line does not end with a newline.
func CountLines(b []byte) int {
	n := bytes.Count(b, []byte{'\n'})
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n++
	}
	return n
}

// Lines splits b on "\n" the way round documents keep their lines: joining
// them with "\n" gives b back.
func Lines(b []byte) []string {
	return strings.Split(string(b), "\n")
}
