package gitx

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// FileChange is one file changed between two commits.
type FileChange struct {
	Path    string // path in the new commit (the old path for a deletion)
	OldPath string // the old path of a rename or copy, "" otherwise
	Status  string // A, M, D, R, C, T (git's letter, score removed)
	Added   int    // added lines; -1 for a binary file
	Deleted int    // deleted lines; -1 for a binary file
}

// Diff lists the files changed from base to head with their added and
// deleted lines (the packet's list of changes and the gate's growth, G24).
// Renames are detected (-M) so that a moved file counts as one change. base
// and head must be full commit IDs already resolved by ResolveCommit (G27);
// they still go after --end-of-options.
func Diff(dir, base, head string) ([]FileChange, error) {
	// One git diff gives both: --raw (each file's status and paths), then
	// --numstat (its line counts), from the same rename detection.
	out, err := Git(dir, "diff", "-z", "-M", "--no-color", "--no-ext-diff", "--no-textconv", "--raw", "--numstat", "--end-of-options", base, head, "--")
	if err != nil {
		return nil, err
	}
	f := SplitZ(out)
	changes, rest, err := parseRaw(f)
	if err != nil {
		return nil, err
	}
	counts, err := parseNumstat(rest)
	if err != nil {
		return nil, err
	}
	if len(counts) != len(changes) {
		return nil, fmt.Errorf("git diff: %d raw entries but %d numstat entries", len(changes), len(counts))
	}
	for i := range changes {
		c := counts[i]
		if c.path != changes[i].Path || c.oldPath != changes[i].OldPath {
			return nil, fmt.Errorf("git diff: numstat entry %q does not match raw entry %q", c.path, changes[i].Path)
		}
		changes[i].Added, changes[i].Deleted = c.added, c.deleted
	}
	return changes, nil
}

// parseRaw reads the `git diff --raw -z` entries at the start of f:
// ":<modes> <ids> X\0path\0" or, for a rename or copy,
// ":<modes> <ids> R100\0old\0new\0". It returns them and the fields
// after them (the --numstat entries, none of which starts with a colon).
// A path is read by its place, never by its first character.
func parseRaw(f []string) ([]FileChange, []string, error) {
	var out []FileChange
	i := 0
	for i < len(f) && strings.HasPrefix(f[i], ":") {
		meta := strings.Fields(f[i])
		if len(meta) != 5 || meta[4] == "" {
			return nil, nil, fmt.Errorf("git diff --raw: malformed entry %q", f[i])
		}
		letter := meta[4][:1]
		if letter == "R" || letter == "C" {
			if i+2 >= len(f) {
				return nil, nil, fmt.Errorf("git diff --raw: truncated %s entry", letter)
			}
			out = append(out, FileChange{Status: letter, OldPath: f[i+1], Path: f[i+2]})
			i += 3
			continue
		}
		if i+1 >= len(f) {
			return nil, nil, fmt.Errorf("git diff --raw: truncated entry")
		}
		out = append(out, FileChange{Status: letter, Path: f[i+1]})
		i += 2
	}
	return out, f[i:], nil
}

type numstat struct {
	path, oldPath  string
	added, deleted int
}

// parseNumstat reads the fields of `git diff --numstat -z`:
// "A\tD\tpath\0" or, for a rename, "A\tD\t\0old\0new\0". Binary files
// show "-" for both counts.
func parseNumstat(f []string) ([]numstat, error) {
	var out []numstat
	for i := 0; i < len(f); {
		parts := strings.SplitN(f[i], "\t", 3)
		if len(parts) != 3 {
			return nil, fmt.Errorf("git diff --numstat: malformed entry %q", f[i])
		}
		a, err := count(parts[0])
		if err != nil {
			return nil, err
		}
		d, err := count(parts[1])
		if err != nil {
			return nil, err
		}
		n := numstat{added: a, deleted: d}
		if parts[2] == "" {
			if i+2 >= len(f) {
				return nil, fmt.Errorf("git diff --numstat: truncated rename entry")
			}
			n.oldPath, n.path = f[i+1], f[i+2]
			i += 3
		} else {
			n.path = parts[2]
			i++
		}
		out = append(out, n)
	}
	return out, nil
}

func count(s string) (int, error) {
	if s == "-" {
		return -1, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("git diff --numstat: bad count %q", s)
	}
	return n, nil
}

// UnifiedDiff is `git diff` from one commit to another for paths, as text
// (renames detected, no color, no external diff or textconv, binary files
// named only), read up to limit bytes: cut is true when git had more, and
// text then ends at the last whole line within limit. No paths: "".
func UnifiedDiff(dir, from, to string, paths []string, limit int) (text string, cut bool, err error) {
	if len(paths) == 0 {
		return "", false, nil
	}
	args := []string{"diff", "-M", "--no-color", "--no-ext-diff", "--no-textconv", "--end-of-options", from, to, "--"}
	for _, p := range paths {
		// Literal paths: a name holding glob characters names only itself.
		args = append(args, ":(literal)"+p)
	}
	cmd := Command(dir, args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", false, err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return "", false, err
	}
	buf, rerr := io.ReadAll(io.LimitReader(out, int64(limit)+1))
	if len(buf) > limit {
		cut = true
		buf = buf[:limit]
		if i := bytes.LastIndexByte(buf, '\n'); i >= 0 {
			buf = buf[:i+1]
		}
		_ = cmd.Process.Kill()
	}
	werr := cmd.Wait()
	if rerr != nil {
		return "", false, rerr
	}
	if werr != nil && !cut {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = werr.Error()
		}
		return "", false, &Error{Args: args, Msg: msg, Err: werr}
	}
	return string(buf), cut, nil
}
