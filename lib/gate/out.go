package gate

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/jaekit/spar/lib/recordpath"
	"github.com/jaekit/spar/lib/round"
)

// CheckOut applies G28 to gate --out before anything is read or written:
// the record path rule (lib/recordpath), not inside a given round folder,
// not the extensions.jsonl of a given round's series, and an existing file
// must be a review-gate/v1 record, whose bytes' sha256 is returned as
// previous_gate_digest (nil when the file does not exist). Any refusal is an
// error whose message names the path with %q.
func CheckOut(out string, rounds []string) (*string, error) {
	if strings.TrimSpace(out) == "" {
		return nil, fmt.Errorf("--out %q: empty path", out)
	}
	real, err := recordpath.Resolve(out)
	if err != nil {
		return nil, fmt.Errorf("--out %q: %v", out, err)
	}
	for _, r := range rounds {
		dir, err := recordpath.Resolve(r)
		if err != nil {
			continue
		}
		if within(real, dir) {
			return nil, fmt.Errorf("--out %q is inside the round folder %q; the gate record is never part of a round", out, r)
		}
		if real == filepath.Join(filepath.Dir(dir), round.ExtensionFile) {
			return nil, fmt.Errorf("--out %q is the series' %s", out, round.ExtensionFile)
		}
	}
	if where, ok := recordArea(real); ok {
		return nil, fmt.Errorf("--out %q is inside %s; the gate never writes where records live", out, where)
	}
	if err := recordpath.Check(out); err != nil {
		return nil, fmt.Errorf("--out: %v", err)
	}
	fi, err := os.Stat(real)
	if errors.Is(err, fs.ErrNotExist) {
		if pfi, perr := os.Stat(filepath.Dir(real)); perr != nil || !pfi.IsDir() {
			return nil, fmt.Errorf("--out %q: the folder %q does not exist", out, filepath.Dir(out))
		}
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("--out %q: %v", out, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("--out %q exists and is not a regular file", out)
	}
	b, err := os.ReadFile(real)
	if err != nil {
		return nil, fmt.Errorf("--out %q: %v", out, err)
	}
	var head struct {
		Schema string `json:"schema"`
	}
	if err := json.Unmarshal(b, &head); err != nil || head.Schema != Schema {
		return nil, fmt.Errorf("--out %q exists and is not a %s record; spar gate replaces only an earlier gate record", out, Schema)
	}
	d := round.SHA256(b)
	return &d, nil
}

// within reports whether p is dir or inside it.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// recordArea says whether the real path p lies where records live: inside a
// round folder as spar recognises one (round.IsRound: it holds round.json,
// or another record in a series that holds such a round), up to
// recordDepth folders above p (a round's deepest files are
// <round>/<reviewer>/<file> and <round>/.recording/<file>), or directly in
// a series folder that holds such a round (round.IsRecordedSeries: beside
// its rounds and extensions.jsonl). --out and --sarif never write there,
// whichever rounds were given: a gate record or a SARIF log written over a
// waivers.jsonl would destroy it. A folder that merely holds a file named
// like a record (a summary.md of one's own) is neither.
func recordArea(p string) (string, bool) {
	parent := filepath.Dir(p)
	if round.IsRecordedSeries(parent) {
		return fmt.Sprintf("the series folder %q", parent), true
	}
	d := parent
	for i := 0; i < recordDepth; i++ {
		if round.IsRound(d) {
			return fmt.Sprintf("the round folder %q", d), true
		}
		if filepath.Dir(d) == d {
			break
		}
		d = filepath.Dir(d)
	}
	return "", false
}

// recordDepth is how many folders above a path recordArea looks for a
// round folder.
const recordDepth = 3
