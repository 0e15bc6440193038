package followup

import (
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/fixcheck"
	"github.com/jaekit/spar/lib/gitx"
	"github.com/jaekit/spar/lib/round"
)

// Bounds of what a follow-up packet shows of a fix's check.
const (
	checkDiffLimit = 16 << 10
	checkTail      = 2 << 10
)

// outputPath is the only form a check record's output may name: a file
// of a folder of the round's checks folder. The ledger is the agent's
// file: a path elsewhere ("../../.ssh/id_ed25519") must never put another
// file into the packet the reviewers get.
var outputPath = regexp.MustCompile(`^\.checks/[A-Za-z0-9][A-Za-z0-9._-]*/[a-z0-9-]+\.txt$`)

// fullID is a full commit ID (SHA-1 or SHA-256): what a record names.
var fullID = regexp.MustCompile(`^([0-9a-f]{40}|[0-9a-f]{64})$`)

// showCheck is what the follow-up packet shows of a fixed line's check
// (docs/review-round.md §2.4): the command, the check files' diff from the
// round's head to the fix, the exit codes, the first run's output tail of
// each side, and whether the record verifies the fix.
func showCheck(repo, dir string, c *round.FixCheck) *envelope.CheckShown {
	s := &envelope.CheckShown{Command: c.Command, Network: c.Network, Files: []string{}, BeforeExits: []int{}, AfterExits: []int{}, Refusal: fixcheck.Judge(*c)}
	for _, f := range c.Files {
		s.Files = append(s.Files, f.Path)
	}
	if len(s.Files) > 0 && fullID.MatchString(c.Head) && fullID.MatchString(c.Fix) {
		if d, cut, err := gitx.UnifiedDiff(repo, c.Head, c.Fix, s.Files, checkDiffLimit); err == nil {
			s.Diff, s.DiffCut = d, cut
		}
	}
	for _, r := range c.Before {
		s.BeforeExits = append(s.BeforeExits, r.Exit)
	}
	for _, r := range c.After {
		s.AfterExits = append(s.AfterExits, r.Exit)
	}
	if len(c.Before) > 0 {
		s.BeforeTail = tailOf(dir, c.Before[0].Output)
	}
	if len(c.After) > 0 {
		s.AfterTail = tailOf(dir, c.After[0].Output)
	}
	return s
}

// tailOf reads the last checkTail bytes of a check output file of the
// round folder dir, "" for a path of another form, a link, or a file that
// does not read.
func tailOf(dir, rel string) string {
	if !outputPath.MatchString(rel) || path.Clean(rel) != rel {
		return ""
	}
	p := filepath.Join(dir, filepath.FromSlash(rel))
	// No link anywhere on the way: the checks folder, its folder, the file.
	for _, q := range []string{filepath.Join(dir, round.ChecksDir), filepath.Dir(p), p} {
		if fi, err := os.Lstat(q); err != nil || fi.Mode()&os.ModeSymlink != 0 {
			return ""
		}
	}
	f, err := os.Open(p)
	if err != nil {
		return ""
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	if fi.Size() > checkTail {
		if _, err := f.Seek(fi.Size()-checkTail, io.SeekStart); err != nil {
			return ""
		}
	}
	b, err := io.ReadAll(io.LimitReader(f, checkTail))
	if err != nil {
		return ""
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}
