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
	entries map[string][]treeEntry // by tree object ID
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
	return &Trees{dir: dir, entries: map[string][]treeEntry{}, commits: map[string]*Tree{}}
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
	typ, body, ok := t.object(commit)
	if !ok || typ != "commit" || !bytes.HasPrefix(body, []byte("tree ")) {
		return nil, false
	}
	root, _, _ := strings.Cut(string(body[len("tree "):]), "\n")
	if !fullID(root) {
		return nil, false
	}
	tr := newTree(commit)
	if !t.walk(tr, root, "") {
		return nil, false
	}
	return tr, true
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

// object reads one object through the batch: its type and contents.
func (t *Trees) object(id string) (string, []byte, bool) {
	if t.cmd == nil {
		cmd := Command(t.dir, "cat-file", "--batch")
		in, err := cmd.StdinPipe()
		if err != nil {
			t.broken = true
			return "", nil, false
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.broken = true
			return "", nil, false
		}
		if err := cmd.Start(); err != nil {
			t.broken = true
			return "", nil, false
		}
		t.cmd, t.in, t.out = cmd, in, bufio.NewReaderSize(out, 64<<10)
	}
	if _, err := io.WriteString(t.in, id+"\n"); err != nil {
		t.broken = true
		return "", nil, false
	}
	head, err := t.out.ReadString('\n')
	if err != nil {
		t.broken = true
		return "", nil, false
	}
	// <object> SP <type> SP <size> LF <contents> LF, or <name> SP missing LF
	f := strings.Fields(head)
	if len(f) != 3 {
		return "", nil, false
	}
	size, err := strconv.Atoi(f[2])
	if err != nil || size < 0 {
		t.broken = true
		return "", nil, false
	}
	b := make([]byte, size+1)
	if _, err := io.ReadFull(t.out, b); err != nil {
		t.broken = true
		return "", nil, false
	}
	return f[1], b[:size], true
}
