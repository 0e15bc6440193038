package gate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/jaekit/spar/lib/recordpath"
	"github.com/jaekit/spar/lib/round"
	"github.com/jaekit/spar/lib/sarif"
)

// A Rendering is a rendering of one gate decision that spar gate writes to a
// file of its own besides stdout (--sarif, --md, --rdjsonl, --codequality),
// so that one gate run gives a CI job every rendering it needs. Flag names
// it in messages; What is what an existing file must be to be replaced, and
// Is recognises one.
type Rendering struct {
	Flag string
	What string
	Is   func([]byte) bool
}

// The exports spar gate writes, by flag.
var (
	SarifFile = Rendering{"--sarif", "a SARIF " + sarif.Version + " log", isSarif}
	// MDFile: the Markdown report (--format md), an earlier one starting
	// with its heading.
	MDFile = Rendering{"--md", "a Markdown report of spar gate", func(b []byte) bool {
		return bytes.HasPrefix(b, []byte("# spar gate: "))
	}}
	// RDJSONLFile: reviewdog diagnostics (--format rdjsonl), one JSON
	// object a line; an empty file is an earlier report of none.
	RDJSONLFile = Rendering{"--rdjsonl", "reviewdog diagnostics (rdjsonl)", isJSONLines}
	// CodeQualityFile: a GitLab Code Quality report (--format
	// codequality), a JSON array.
	CodeQualityFile = Rendering{"--codequality", "a Code Quality report (a JSON array)", func(b []byte) bool {
		var v []json.RawMessage
		return json.Unmarshal(b, &v) == nil && v != nil
	}}
)

func isSarif(b []byte) bool {
	var head struct {
		Version string `json:"version"`
		Runs    []any  `json:"runs"`
	}
	return json.Unmarshal(b, &head) == nil && head.Version == sarif.Version && head.Runs != nil
}

func isJSONLines(b []byte) bool {
	for _, l := range bytes.Split(b, []byte("\n")) {
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		var v map[string]json.RawMessage
		if json.Unmarshal(l, &v) != nil {
			return false
		}
	}
	return true
}

// CheckExport refuses an export path that would damage records or another
// file of the same run, before anything is read or written: inside a given
// round folder, a series' extensions.jsonl, where records live
// (recordArea), the same file as one of taken (flag → path: --out and the
// exports checked before it), an existing file that is not a regular file
// or not what e writes (What), or a path whose folder does not exist.
// Unlike --out it need not be ignored by git (G28 is for records; an export
// is meant to be uploaded).
func CheckExport(e Rendering, path string, rounds []string, taken [][2]string) error {
	if strings.TrimSpace(path) == "" {
		return fmt.Errorf("%s %q: empty path", e.Flag, path)
	}
	real, err := recordpath.Resolve(path)
	if err != nil {
		return fmt.Errorf("%s %q: %v", e.Flag, path, err)
	}
	for _, r := range rounds {
		dir, err := recordpath.Resolve(r)
		if err != nil {
			continue
		}
		if within(real, dir) {
			return fmt.Errorf("%s %q is inside the round folder %q", e.Flag, path, r)
		}
		if real == filepath.Join(filepath.Dir(dir), round.ExtensionFile) {
			return fmt.Errorf("%s %q is the series' %s", e.Flag, path, round.ExtensionFile)
		}
	}
	if where, ok := recordArea(real); ok {
		return fmt.Errorf("%s %q is inside %s; the gate never writes where records live", e.Flag, path, where)
	}
	for _, t := range taken {
		if t[1] == "" {
			continue
		}
		if o, err := recordpath.Resolve(t[1]); err == nil && o == real {
			return fmt.Errorf("%s %q is the same file as %s", e.Flag, path, t[0])
		}
	}
	fi, err := os.Stat(real)
	if errors.Is(err, fs.ErrNotExist) {
		if pfi, perr := os.Stat(filepath.Dir(real)); perr != nil || !pfi.IsDir() {
			return fmt.Errorf("%s %q: the folder %q does not exist", e.Flag, path, filepath.Dir(path))
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s %q: %v", e.Flag, path, err)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s %q exists and is not a regular file", e.Flag, path)
	}
	b, err := os.ReadFile(real)
	if err != nil {
		return fmt.Errorf("%s %q: %v", e.Flag, path, err)
	}
	if !e.Is(b) {
		return fmt.Errorf("%s %q exists and is not %s; spar gate replaces only an earlier one", e.Flag, path, e.What)
	}
	return nil
}
