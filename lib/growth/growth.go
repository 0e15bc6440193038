// Package growth measures how much each code round of a series changed
// (docs/review-gate.md §4, growth, G24): the diff from the previous code round's head
// (the first code round: from its base) to the round's head, as files and
// added and deleted lines, split into check paths and other paths by the
// round's own check path globs (lib/glob). The gate's record and `spar
// cap-report` show it.
package growth

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/jaekit/spar/lib/gitx"
	"github.com/jaekit/spar/lib/glob"
)

// Pair is one code round's diff to measure.
type Pair struct {
	From, To   string // full commit IDs
	CheckPaths glob.Set
}

// Side is the growth of one side of the split. A binary file counts as a
// file with no lines (git reports no line counts for it).
type Side struct {
	Files   int `json:"files"`
	Added   int `json:"added"`
	Deleted int `json:"deleted"`
}

// Result is the growth of one pair. Err is set when git could not diff the
// pair (a commit missing from the repository); the sides are then zero.
type Result struct {
	CheckPaths Side
	Other      Side
	Err        error
}

// Measure diffs every pair in the repository repo. All pairs go to one
// `git diff-tree --stdin` (one process however many rounds: the cost is the
// diffs themselves, linear in rounds); when that call fails, each pair is
// diffed on its own so that only the pairs git cannot diff carry an error.
// Renames are not detected (--no-renames): a renamed file counts as one
// deleted and one added file, whatever the user's diff.renames says.
func Measure(repo string, pairs []Pair) []Result {
	out := make([]Result, len(pairs))
	if len(pairs) == 0 {
		return out
	}
	var in bytes.Buffer
	for _, p := range pairs {
		// "<commit> <parent>": diff-tree compares the parent (From) with
		// the commit (To). --always prints the header of an empty diff too,
		// so every input line yields exactly one header.
		fmt.Fprintf(&in, "%s %s\n", p.To, p.From)
	}
	b, err := gitStdin(repo, in.Bytes(), "diff-tree", "--stdin", "-r", "--no-renames", "--always", "--numstat", "-z")
	if err == nil {
		if err = parse(b, pairs, out); err == nil {
			return out
		}
	}
	for i, p := range pairs {
		out[i] = Result{}
		b, err := gitx.Git(repo, "diff-tree", "-r", "--no-renames", "--numstat", "-z", "--end-of-options", p.From, p.To)
		if err != nil {
			out[i].Err = err
			continue
		}
		one := []Result{{}}
		if err := parseEntries(gitx.SplitZ(b), p.CheckPaths, &one[0]); err != nil {
			out[i].Err = err
			continue
		}
		out[i] = one[0]
	}
	return out
}

// parse splits diff-tree --stdin output: a token without a tab is the header
// of the next pair (the To commit); the numstat tokens after it are that
// pair's files.
func parse(b []byte, pairs []Pair, out []Result) error {
	toks := gitx.SplitZ(b)
	i := -1
	start := 0
	flush := func(end int) error {
		if i < 0 {
			return nil
		}
		return parseEntries(toks[start:end], pairs[i].CheckPaths, &out[i])
	}
	for k, t := range toks {
		if strings.IndexByte(t, '\t') >= 0 {
			continue
		}
		if err := flush(k); err != nil {
			return err
		}
		i++
		if i >= len(pairs) {
			return fmt.Errorf("git diff-tree printed more diffs than pairs given")
		}
		if t != pairs[i].To {
			return fmt.Errorf("git diff-tree printed header %q for pair %d, want %q", t, i+1, pairs[i].To)
		}
		start = k + 1
	}
	if err := flush(len(toks)); err != nil {
		return err
	}
	if i != len(pairs)-1 {
		return fmt.Errorf("git diff-tree printed %d diffs for %d pairs", i+1, len(pairs))
	}
	return nil
}

// parseEntries adds numstat entries "<added>\t<deleted>\t<path>" to r.
func parseEntries(toks []string, cp glob.Set, r *Result) error {
	for _, t := range toks {
		parts := strings.SplitN(t, "\t", 3)
		if len(parts) != 3 {
			return fmt.Errorf("git numstat entry %q", t)
		}
		side := &r.Other
		if _, ok := cp.Match(parts[2]); ok {
			side = &r.CheckPaths
		}
		side.Files++
		if parts[0] == "-" && parts[1] == "-" {
			continue // binary
		}
		a, err1 := strconv.Atoi(parts[0])
		d, err2 := strconv.Atoi(parts[1])
		if err1 != nil || err2 != nil {
			return fmt.Errorf("git numstat entry %q", t)
		}
		side.Added += a
		side.Deleted += d
	}
	return nil
}

// gitStdin runs git in dir the way lib/gitx does (--no-pager, core.quotepath
// off) with stdin, which gitx.Git does not offer.
func gitStdin(dir string, stdin []byte, args ...string) ([]byte, error) {
	cmd := gitx.Command(dir, args...)
	cmd.Stdin = bytes.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, &gitx.Error{Args: args, Msg: msg, Err: err}
	}
	return stdout.Bytes(), nil
}
