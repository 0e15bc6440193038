package disposition

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/jaekit/spar/lib/exitcode"
	"github.com/jaekit/spar/lib/recordpath"
	"github.com/jaekit/spar/lib/round"
)

// Stages are the stage names of the contract (G31).
var Stages = []string{"plan", "plan-delta", "code"}

// Causes are the causes of a code extension (G31, case-sensitive).
var Causes = []string{"churn", "recurring", "unrelated", "hardening", "other"}

// ExtendRequest is one spar extend. CauseGiven and ReasonGiven say whether
// the flag appeared at all: G31 makes --cause or --reason on a plan or
// plan-delta extension a usage error whatever its text.
type ExtendRequest struct {
	Series      string
	Stage       string
	By          string
	Cause       string
	CauseGiven  bool
	Reason      string
	ReasonGiven bool
}

func usage(format string, a ...any) error {
	return exitcode.New(exitcode.Usage, fmt.Sprintf(format, a...))
}

// CheckExtension applies G31 to the arguments and returns the line to
// append (without its time). Usage errors (64) first, then the refusal of a
// missing reason that is needed (65).
func CheckExtension(req ExtendRequest) (round.Extension, error) {
	if !contains(Stages, req.Stage) {
		return round.Extension{}, usage("extend: --stage %q is not a stage (plan, plan-delta or code)", req.Stage)
	}
	by, ok := positive(req.By)
	if !ok {
		return round.Extension{}, usage("extend: --by %q is not an integer of 1 or more", req.By)
	}
	e := round.Extension{Stage: req.Stage, By: by}
	if req.Stage != "code" {
		if req.CauseGiven || req.ReasonGiven {
			return round.Extension{}, usage("extend: --cause and --reason are only for a code extension, not --stage %s", req.Stage)
		}
		return e, nil
	}
	if !req.CauseGiven {
		return round.Extension{}, usage("extend: a code extension needs --cause (one of %s)", strings.Join(Causes, ", "))
	}
	if !contains(Causes, req.Cause) {
		return round.Extension{}, usage("extend: --cause %q is not one of %s", req.Cause, strings.Join(Causes, ", "))
	}
	e.Cause = req.Cause
	if err := CheckText("extend", "reason", req.Reason); err != nil {
		return round.Extension{}, err
	}
	// G31: the reason is kept with leading and trailing whitespace removed.
	e.Reason = strings.TrimSpace(req.Reason)
	if e.Reason == "" && (by >= 2 || req.Cause == "other") {
		why := "--cause other"
		if by >= 2 {
			why = fmt.Sprintf("--by %d", by)
		}
		return round.Extension{}, refuse("extend: a code extension with %s needs --reason (the reason is missing or blank)", why)
	}
	return e, nil
}

// positive parses an integer of 1 or more written in ASCII digits.
func positive(s string) (int, bool) {
	if s == "" || strings.Trim(s, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 0, false
	}
	return n, true
}

// Extend appends one line to the series' extensions.jsonl under the series
// lock and returns it (G28, G31, G32, G33).
func Extend(req ExtendRequest, stderr io.Writer) (round.Extension, error) {
	e, err := CheckExtension(req)
	if err != nil {
		return round.Extension{}, err
	}
	if req.Series == "" {
		return round.Extension{}, usage("extend: no series given")
	}
	series := filepath.Clean(req.Series)
	// G28: the series is a record path: ignored by every repository that
	// contains it, with no tracked file under it.
	if err := recordpath.Check(series); err != nil {
		return round.Extension{}, refuse("extend: series %v", err)
	}
	// A round folder, or a folder inside one, is no series: its
	// extensions.jsonl would extend nothing.
	if abs, err := filepath.Abs(series); err == nil {
		for d := abs; ; d = filepath.Dir(d) {
			if _, err := os.Lstat(filepath.Join(d, round.RoundFile)); err == nil {
				return round.Extension{}, refuse("extend: series %q is inside the round folder %q; give the round's series (its parent folder)", req.Series, d)
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	fi, err := os.Stat(series)
	switch {
	case err == nil && !fi.IsDir():
		return round.Extension{}, refuse("extend: series %q is not a folder", req.Series)
	case os.IsNotExist(err):
		// A series whose first round was refused by a cap of 0 has no
		// folder yet; the extension is what lets that round run.
		if err := os.MkdirAll(series, 0o755); err != nil {
			return round.Extension{}, exitcode.New(exitcode.IO, fmt.Sprintf("extend: %v", err))
		}
	case err != nil:
		return round.Extension{}, refuse("extend: series %q: %v", req.Series, err)
	}
	err = withLock(series, stderr, func() error {
		// G32: the extensions already recorded must read back.
		if _, err := round.ReadExtensions(series); err != nil {
			return refuse("extend: series %q: %v", req.Series, err)
		}
		e.At = stamp()
		pause()
		return appendRecord(filepath.Join(series, round.ExtensionFile), e)
	})
	return e, err
}
