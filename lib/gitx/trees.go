package gitx

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"io"
	"os/exec"
	"strconv"
	"strings"
)

// Trees loads the trees of many commits of one repository through one
// `git cat-file --batch` process (started at the first Load), each tree
// object read once however many commits share it. It gives the Tree
// LoadTree gives, for a reader of many rounds (the gate re-derives every
// round of a series, docs/trust.md "The gate"): 1,000 commits cost one git
// process, not 1,000. A commit the batch cannot read (missing, not a full
// object ID, an entry it does not know) is loaded with LoadTree, for
// LoadTree's error. Close ends the process.
type Trees struct {
	dir     string
	cmd     *exec.Cmd
	in      io.WriteCloser
	out     *bufio.Reader
	broken  bool
	trips   int                    // round trips to the batch (a test counts them)
	entries map[string][]treeEntry // by tree object ID
	roots   map[string]string      // commit → its root tree (Prefetch)
	commits map[string]*Tree
}

// treeEntry is one entry of a tree object, its mode canonical as
// ls-tree prints it.
type treeEntry struct {
	mode string // "040000", "100644", "100755", "120000", "160000"
	name string
	id   string
}

// NewTrees returns a loader of dir's commit trees.
func NewTrees(dir string) *Trees {
	return &Trees{dir: dir, entries: map[string][]treeEntry{}, roots: map[string]string{}, commits: map[string]*Tree{}}
}

// Load returns commit's Tree, as LoadTree(dir, commit) does.
func (t *Trees) Load(commit string) (*Tree, error) {
	if tr, ok := t.commits[commit]; ok {
		return tr, nil
	}
	tr, ok := t.batchTree(commit)
	if !ok {
		var err error
		if tr, err = LoadTree(t.dir, commit); err != nil {
			return nil, err
		}
	}
	t.commits[commit] = tr
	return tr, nil
}

// Close ends the cat-file process.
func (t *Trees) Close() error {
	if t.cmd == nil {
		return nil
	}
	t.in.Close()
	_, _ = io.Copy(io.Discard, t.out)
	err := t.cmd.Wait()
	t.cmd = nil
	return err
}

// fullID reports whether s is a full object ID (SHA-1 or SHA-256), the
// only names the batch is given: anything else goes to LoadTree.
func fullID(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

func (t *Trees) batchTree(commit string) (*Tree, bool) {
	if t.broken || !fullID(commit) {
		return nil, false
	}
	root, ok := t.roots[commit]
	if !ok {
		typ, body, ok := t.object(commit)
		if !ok || typ != "commit" {
			return nil, false
		}
		if root, ok = rootOf(body); !ok {
			return nil, false
		}
	}
	tr := newTree(commit)
	if !t.walk(tr, root, "") {
		return nil, false
	}
	return tr, true
}

// rootOf is the root tree a commit object names.
func rootOf(body []byte) (string, bool) {
	if !bytes.HasPrefix(body, []byte("tree ")) {
		return "", false
	}
	root, _, _ := strings.Cut(string(body[len("tree "):]), "\n")
	return root, fullID(root)
}

// Prefetch reads the commit objects of commits and every tree object
// under their roots, a level of the trees at a time: the requests of a
// level are written while its answers are read, so that the batch answers
// them one after the other without a round trip each (a thousand commits of
// a three-level tree cost four round trips, not four thousand). What it
// cannot read it leaves to Load, which reads it alone and gives its error.
func (t *Trees) Prefetch(commits []string) {
	var ids []string
	seen := map[string]bool{}
	for _, c := range commits {
		if _, ok := t.roots[c]; !ok && fullID(c) && !seen[c] {
			seen[c] = true
			ids = append(ids, c)
		}
	}
	var trees []string
	for _, o := range t.objects(ids) {
		if o.typ != "commit" {
			continue
		}
		if root, ok := rootOf(o.body); ok {
			t.roots[o.id] = root
			if _, known := t.entries[root]; !known && !seen[root] {
				seen[root] = true
				trees = append(trees, root)
			}
		}
	}
	for len(trees) > 0 {
		var next []string
		for _, o := range t.objects(trees) {
			if o.typ != "tree" {
				continue
			}
			ents, ok := parseTreeObject(o.body, len(o.id)/2)
			if !ok {
				continue
			}
			t.entries[o.id] = ents
			for _, e := range ents {
				if _, known := t.entries[e.id]; e.mode == "040000" && !known && !seen[e.id] {
					seen[e.id] = true
					next = append(next, e.id)
				}
			}
		}
		trees = next
	}
}

// batchObject is one object read by objects.
type batchObject struct {
	id, typ string
	body    []byte
}

// objects reads the objects ids through the batch, written by a goroutine
// while the answers are read (neither side waits for the other's pipe to
// drain). Missing objects are left out; any other fault ends the batch
// (broken: Load then reads each commit alone).
func (t *Trees) objects(ids []string) []batchObject {
	if len(ids) == 0 || t.broken || !t.start() {
		return nil
	}
	t.trips++
	done := make(chan error, 1)
	go func() {
		w := bufio.NewWriterSize(t.in, 32<<10)
		for _, id := range ids {
			if _, err := w.WriteString(id + "\n"); err != nil {
				done <- err
				return
			}
		}
		done <- w.Flush()
	}()
	out := make([]batchObject, 0, len(ids))
	for _, id := range ids {
		typ, body, ok, missing := t.answer()
		if missing {
			continue
		}
		if !ok {
			// The answers are out of step: end the batch, so that the
			// writer is not left waiting on a process nobody reads.
			t.broken = true
			t.cmd.Process.Kill()
			break
		}
		out = append(out, batchObject{id: id, typ: typ, body: body})
	}
	if err := <-done; err != nil {
		t.broken = true
	}
	if t.broken {
		return nil
	}
	return out
}

// walk adds the entries of tree id under the folder prefix to tr, as
// ls-tree -r lists them.
func (t *Trees) walk(tr *Tree, id, prefix string) bool {
	ents, ok := t.entries[id]
	if !ok {
		typ, body, ok := t.object(id)
		if !ok || typ != "tree" {
			return false
		}
		if ents, ok = parseTreeObject(body, len(id)/2); !ok {
			return false
		}
		t.entries[id] = ents
	}
	for _, e := range ents {
		p := prefix + e.name
		if e.mode == "040000" {
			if !t.walk(tr, e.id, p+"/") {
				return false
			}
			continue
		}
		if err := tr.add(e.mode, e.id, p); err != nil {
			return false
		}
	}
	return true
}

// parseTreeObject reads a tree object's entries: <mode> SP <name> NUL
// <raw object ID of size bytes>, modes made canonical the way git reads
// them (a folder 040000, a file 100644 or 100755 by its owner's execute
// bit).
func parseTreeObject(b []byte, size int) ([]treeEntry, bool) {
	var out []treeEntry
	for len(b) > 0 {
		sp := bytes.IndexByte(b, ' ')
		if sp < 0 {
			return nil, false
		}
		m, err := strconv.ParseUint(string(b[:sp]), 8, 32)
		if err != nil {
			return nil, false
		}
		b = b[sp+1:]
		nul := bytes.IndexByte(b, 0)
		if nul < 0 || len(b) < nul+1+size {
			return nil, false
		}
		name := string(b[:nul])
		id := hex.EncodeToString(b[nul+1 : nul+1+size])
		b = b[nul+1+size:]
		var mode string
		switch m & 0o170000 {
		case 0o040000:
			mode = "040000"
		case 0o120000:
			mode = "120000"
		case 0o160000:
			mode = "160000"
		case 0o100000:
			mode = "100644"
			if m&0o100 != 0 {
				mode = "100755"
			}
		default:
			return nil, false
		}
		out = append(out, treeEntry{mode: mode, name: name, id: id})
	}
	return out, true
}

// start starts the cat-file process once.
func (t *Trees) start() bool {
	if t.cmd != nil {
		return true
	}
	cmd := Command(t.dir, "cat-file", "--batch")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.broken = true
		return false
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.broken = true
		return false
	}
	if err := cmd.Start(); err != nil {
		t.broken = true
		return false
	}
	t.cmd, t.in, t.out = cmd, in, bufio.NewReaderSize(out, 64<<10)
	return true
}

// object reads one object through the batch: its type and contents.
func (t *Trees) object(id string) (string, []byte, bool) {
	if t.broken || !t.start() {
		return "", nil, false
	}
	t.trips++
	if _, err := io.WriteString(t.in, id+"\n"); err != nil {
		t.broken = true
		return "", nil, false
	}
	typ, body, ok, _ := t.answer()
	return typ, body, ok
}

// answer reads the batch's answer to one request: <object> SP <type> SP
// <size> LF <contents> LF, or <name> SP missing LF (missing). A fault of
// the stream breaks the batch.
func (t *Trees) answer() (typ string, body []byte, ok, missing bool) {
	head, err := t.out.ReadString('\n')
	if err != nil {
		t.broken = true
		return "", nil, false, false
	}
	f := strings.Fields(head)
	if len(f) != 3 {
		return "", nil, false, len(f) == 2 && f[1] == "missing"
	}
	size, err := strconv.Atoi(f[2])
	if err != nil || size < 0 {
		t.broken = true
		return "", nil, false, false
	}
	b := make([]byte, size+1)
	if _, err := io.ReadFull(t.out, b); err != nil {
		t.broken = true
		return "", nil, false, false
	}
	return f[1], b[:size], true, false
}
