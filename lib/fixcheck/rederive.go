package fixcheck

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/jaekit/spar/lib/round"
)

// The gate's side of a check record (docs/review-gate.md "Verified fix
// claims", reason 8v): a record on the agent's machine is the agent's file,
// so the gate believes none of it and derives it again from the round's
// files and git. The writer's rule (Run, Judge) and the reader's are here,
// in one place.

// Rederive says why the check record of the ledger line e, in the
// round folder dir whose round reviewed head, is not one spar wrote for a
// verified fix ("" when it is): the fix is the line's commit, the head the
// round's; each run's output is a regular file of the round under
// round.ChecksDir whose sha256 the run names and whose size is at most the
// bytes it counts; both before runs failed and both after runs passed,
// none past its time limit; a regression of the project's check command
// carries the user's words; each check file's blob ids are git's at the
// head and at the fix. blobsAt gives the blob id of a path at a commit (""
// when the commit has none there), one tree read per commit.
func Rederive(dir, head string, e *round.LedgerEntry, blobsAt func(commit string) (func(path string) string, error)) string {
	c := e.Check
	if c == nil {
		return ""
	}
	if e.Disposition != "fixed" {
		return fmt.Sprintf("a check on a %s line, which spar triage writes only on a fixed one", e.Disposition)
	}
	if strings.TrimSpace(c.Command) == "" {
		return "its command is empty"
	}
	if c.Fix != strings.TrimSpace(e.Commit) {
		return fmt.Sprintf("its fix %s is not the line's commit %s", c.Fix, strings.TrimSpace(e.Commit))
	}
	if c.Head != head {
		return fmt.Sprintf("its head %s is not the head %s the round reviewed", c.Head, head)
	}
	// The verdict on the runs is lib/fixcheck's, the rule spar triage
	// applied before it wrote the line.
	if why := Judge(*c); why != "" {
		return "its runs do not verify the fix: " + why
	}
	type named struct {
		what string
		run  round.CheckRun
	}
	runs := []named{}
	for i, run := range c.Before {
		runs = append(runs, named{fmt.Sprintf("before run %d", i+1), run})
	}
	for i, run := range c.After {
		runs = append(runs, named{fmt.Sprintf("after run %d", i+1), run})
	}
	if rg := c.Regression; rg != nil {
		runs = append(runs, named{"the project's check at the head", rg.AtHead}, named{"the project's check at the fix", rg.AtFix})
	}
	for _, n := range runs {
		if p := outputProblem(dir, n.run); p != "" {
			return fmt.Sprintf("%s exited %d, but its output %s", n.what, n.run.Exit, p)
		}
	}
	atHead, err := blobsAt(c.Head)
	if err != nil {
		return fmt.Sprintf("the tree of its head %s cannot be read (%s)", c.Head, strings.Join(strings.Fields(err.Error()), " "))
	}
	atFix, err := blobsAt(c.Fix)
	if err != nil {
		return fmt.Sprintf("the tree of its fix %s cannot be read (%s)", c.Fix, strings.Join(strings.Fields(err.Error()), " "))
	}
	for _, f := range c.Files {
		if got := atHead(f.Path); got != f.AtHead {
			return fmt.Sprintf("the check file %s is %s at the head, but git has %s there", f.Path, blobText(f.AtHead), blobText(got))
		}
		if got := atFix(f.Path); got != f.AtFix {
			return fmt.Sprintf("the check file %s is %s at the fix, but git has %s there", f.Path, blobText(f.AtFix), blobText(got))
		}
	}
	return ""
}

func blobText(id string) string {
	if id == "" {
		return "absent"
	}
	return "the blob " + id
}

// outputProblem says why run's output file is not the one the run names
// ("" when it is).
func outputProblem(dir string, run round.CheckRun) string {
	out := run.Output
	if out == "" || path.IsAbs(out) || path.Clean(out) != out || !strings.HasPrefix(out, round.ChecksDir+"/") || strings.Contains(out, "\\") {
		return fmt.Sprintf("%q is not a file of the round under %s/", out, round.ChecksDir)
	}
	if fi, err := os.Lstat(filepath.Join(dir, round.ChecksDir)); err != nil || !fi.IsDir() {
		return fmt.Sprintf("%s is not there: the round has no %s folder", out, round.ChecksDir)
	}
	p := filepath.Join(dir, filepath.FromSlash(out))
	fi, err := os.Lstat(p)
	switch {
	case err != nil:
		return fmt.Sprintf("%s cannot be read (%s)", out, pathErr(err))
	case !fi.Mode().IsRegular():
		return fmt.Sprintf("%s is not a regular file", out)
	case fi.Size() > run.Bytes:
		return fmt.Sprintf("%s holds %d bytes, more than the %d the check wrote", out, fi.Size(), run.Bytes)
	}
	f, err := os.Open(p)
	if err != nil {
		return fmt.Sprintf("%s cannot be read (%s)", out, pathErr(err))
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, io.LimitReader(f, run.Bytes+1)); err != nil {
		return fmt.Sprintf("%s cannot be read (%s)", out, pathErr(err))
	}
	if sum := hex.EncodeToString(h.Sum(nil)); sum != run.SHA256 {
		return fmt.Sprintf("%s is not the file its sha256 %s names (it has %s)", out, run.SHA256, sum)
	}
	return ""
}

// pathErr is an error without the path it names (the message names it).
func pathErr(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
