package gate

// Fast reading of the records the gate reads by the thousand (issue 7's
// scale: 1,000 rounds in under a second). Each reader takes only the fields
// the gate uses, in one pass over bytes gjson has validated; whenever the
// bytes are anything but the plain form spar writes (a value of another
// type, not JSON, not an object), it hands the file to lib/round's reader,
// whose answer (the record, or the G32 error with its wording) is the one
// used. So the fast path can only agree with lib/round or defer to it.

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"unsafe"

	"github.com/jaekit/spar/lib/config"
	"github.com/jaekit/spar/lib/round"
	"github.com/tidwall/gjson"
)

// view is b as a string without a copy. The gate never changes a file's
// bytes after reading them, and the strings it keeps from gjson results
// (ids, classes, ledger values) share them, which is what makes the read
// cheap: findings.json is most of what the gate reads.
func view(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

var errSlow = errors.New("not the plain form: read by lib/round")

// readHead reads the parts of round.json every round needs (not documents,
// reviewers, decisions, standpoints: fullRecord reads those for the rounds
// that need them).
func readHead(dir string) (*round.Record, error) {
	b, err := round.ReadFile(filepath.Join(dir, round.RoundFile))
	if err == nil {
		if rec, err := parseHead(b); err == nil {
			return rec, nil
		}
	}
	return round.ReadRecord(dir)
}

func str(v gjson.Result, dst *string) error {
	if v.Type != gjson.String {
		return errSlow
	}
	*dst = v.Str
	return nil
}

func optStr(v gjson.Result, dst **string) error {
	switch v.Type {
	case gjson.Null:
		*dst = nil
		return nil
	case gjson.String:
		s := v.Str
		*dst = &s
		return nil
	}
	return errSlow
}

func boolean(v gjson.Result, dst *bool) error {
	switch v.Type {
	case gjson.True, gjson.False:
		*dst = v.Type == gjson.True
		return nil
	}
	return errSlow
}

func integer(v gjson.Result, dst *int) error {
	if v.Type != gjson.Number || float64(int(v.Num)) != v.Num {
		return errSlow
	}
	*dst = int(v.Num)
	return nil
}

func strings_(v gjson.Result, dst *[]string) error {
	if v.Type == gjson.Null {
		*dst = nil
		return nil
	}
	if !v.IsArray() {
		return errSlow
	}
	out := []string{}
	var err error
	v.ForEach(func(_, x gjson.Result) bool {
		if x.Type != gjson.String {
			err = errSlow
			return false
		}
		out = append(out, x.Str)
		return true
	})
	*dst = out
	return err
}

// object calls f for each member of v (an object), stopping at an error.
func object(v gjson.Result, f func(key string, val gjson.Result) error) error {
	if v.Type == gjson.Null {
		return nil
	}
	if !v.IsObject() {
		return errSlow
	}
	var err error
	v.ForEach(func(k, x gjson.Result) bool {
		err = f(k.Str, x)
		return err == nil
	})
	return err
}

func parseHead(b []byte) (*round.Record, error) {
	if !gjson.ValidBytes(b) {
		return nil, errSlow
	}
	doc := gjson.Parse(view(b))
	rec := &round.Record{}
	err := object(doc, func(k string, v gjson.Result) error {
		switch k {
		case "schema":
			return str(v, &rec.Schema)
		case "name":
			return str(v, &rec.Name)
		case "series":
			return str(v, &rec.Series)
		case "repo":
			return str(v, &rec.Repo)
		case "stage":
			return str(v, &rec.Stage)
		case "base":
			return str(v, &rec.Base)
		case "head":
			return str(v, &rec.Head)
		case "started_at":
			return str(v, &rec.StartedAt)
		case "dry_run":
			return boolean(v, &rec.DryRun)
		case "finished_at":
			return optStr(v, &rec.FinishedAt)
		case "findings_sha256":
			return optStr(v, &rec.FindingsSHA256)
		case "check_paths":
			return strings_(v, &rec.CheckPaths)
		case "counts":
			return object(v, func(k string, v gjson.Result) error {
				switch k {
				case "defect":
					return integer(v, &rec.Counts.Defect)
				case "requirement-question":
					return integer(v, &rec.Counts.RequirementQuestion)
				case "hardening":
					return integer(v, &rec.Counts.Hardening)
				case "note":
					return integer(v, &rec.Counts.Note)
				}
				return nil
			})
		case "cap":
			return object(v, func(k string, v gjson.Result) error {
				switch k {
				case "stage":
					return str(v, &rec.Cap.Stage)
				case "counted":
					return boolean(v, &rec.Cap.Counted)
				case "number":
					return integer(v, &rec.Cap.Number)
				case "limit":
					return integer(v, &rec.Cap.Limit)
				case "rerun_of":
					return optStr(v, &rec.Cap.RerunOf)
				}
				return nil
			})
		case "config":
			return object(v, func(k string, v gjson.Result) error {
				if k != "caps" {
					return nil
				}
				return object(v, func(k string, v gjson.Result) error {
					switch k {
					case "plan":
						return integer(v, &rec.Config.Caps.Plan)
					case "plan_delta":
						return integer(v, &rec.Config.Caps.PlanDelta)
					case "code":
						return integer(v, &rec.Config.Caps.Code)
					}
					return nil
				})
			})
		}
		return nil
	})
	if err != nil || !doc.IsObject() || rec.Schema != round.Schema {
		return nil, errSlow
	}
	return rec, nil
}

// readLedger is round.ReadLedger's rule on its plain form: a last line
// without its newline was never written, blank lines are skipped, each line
// is an object with a finding and a disposition.
func readLedger(dir string) ([]round.LedgerEntry, error) {
	path := filepath.Join(dir, round.LedgerFile)
	b, err := round.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return round.ReadLedger(dir)
	}
	if i := bytes.LastIndexByte(b, '\n'); i != len(b)-1 {
		b = b[:i+1]
	}
	out := make([]round.LedgerEntry, 0, bytes.Count(b, []byte("\n")))
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		line := b[:i]
		b = b[i+1:]
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if !gjson.ValidBytes(line) {
			return round.ReadLedger(dir)
		}
		var e round.LedgerEntry
		doc := gjson.Parse(view(line))
		err := object(doc, func(k string, v gjson.Result) error {
			switch k {
			case "finding":
				return str(v, &e.Finding)
			case "disposition":
				return str(v, &e.Disposition)
			case "auto":
				return boolean(v, &e.Auto)
			case "commit":
				return str(v, &e.Commit)
			case "of":
				return str(v, &e.Of)
			case "of_round":
				return str(v, &e.OfRound)
			case "evidence":
				return str(v, &e.Evidence)
			case "to":
				return str(v, &e.To)
			case "user_quote":
				return str(v, &e.UserQuote)
			case "failed_before":
				return str(v, &e.FailedBefore)
			case "passed_after":
				return str(v, &e.PassedAfter)
			case "at":
				return str(v, &e.At)
			}
			return nil
		})
		if err != nil || !doc.IsObject() || e.Finding == "" || e.Disposition == "" {
			return round.ReadLedger(dir)
		}
		out = append(out, e)
	}
	return out, nil
}

// fullRecord reads round.json whole (round.ReadRecord) for the rounds whose
// reviewers, documents and run arguments the gate uses.
func fullRecord(r *roundData) bool {
	rec, err := round.ReadRecord(r.abs)
	if err != nil {
		r.state, r.err = unreadable, pathFree(err)
		return false
	}
	// The required reviewers come from config.configured_required: a
	// config edited by hand no longer has the digest spar-config gave it
	// (spar-config.en.md §4).
	if d, err := config.Digest(&rec.Config); err != nil || d != rec.Config.Digest {
		r.state, r.err = unreadable, fmt.Errorf("round.json: config.digest %q is not the digest of its config (%s)", rec.Config.Digest, d)
		return false
	}
	r.rec, r.full = rec, true
	return true
}
