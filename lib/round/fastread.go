package round

// Fast reading of the records spar gate reads by the thousand (docs/review-
// gate.md §7: 1,000 rounds in under a second). Each reader takes only the
// fields readers of many rounds use, in one pass over bytes gjson has
// validated; whenever the bytes are anything but the plain form spar writes
// (a value of another type, not JSON, not an object), it hands the file to
// the full reader of this package (decodeLedger, ReadRecord), whose answer
// (the record, or the G32 error with its wording) is the one used. So the
// fast path can only agree with the full reader or defer to it.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"unsafe"

	"github.com/jaekit/spar/lib/envelope"
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

var errSlow = errors.New("not the plain form: read by the full reader")

// ReadHead reads the parts of round.json every round of a series needs:
// name, series, repo, stage, base, head, started_at, dry_run, finished_at,
// findings_sha256, check_paths, counts, cap and config.caps (not documents,
// reviewers, decisions, standpoints: ReadRecord reads those for the rounds
// that need them). A round.json that names a recording is read whole.
func ReadHead(dir string) (*Record, error) {
	b, err := ReadFile(filepath.Join(dir, RoundFile))
	if err == nil {
		if rec, err := parseHead(b); err == nil {
			return rec, nil
		}
	}
	return ReadRecord(dir)
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

func parseHead(b []byte) (*Record, error) {
	if !gjson.ValidBytes(b) {
		return nil, errSlow
	}
	doc := gjson.Parse(view(b))
	rec := &Record{}
	err := object(doc, func(k string, v gjson.Result) error {
		switch k {
		case "schema":
			return str(v, &rec.Schema)
		case "recording":
			// A recording in progress: the full reader decodes what it
			// names.
			if v.Type != gjson.Null {
				return errSlow
			}
			return nil
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
		case "follow_up":
			if v.Type == gjson.Null {
				return nil
			}
			var fu envelope.FollowUp
			if err := json.Unmarshal([]byte(v.Raw), &fu); err != nil || !v.IsObject() {
				return errSlow
			}
			rec.FollowUp = &fu
			return nil
		case "counts":
			return object(v, func(k string, v gjson.Result) error {
				switch k {
				case envelope.ClassDefect:
					return integer(v, &rec.Counts.Defect)
				case envelope.ClassRequirementQuestion:
					return integer(v, &rec.Counts.RequirementQuestion)
				case envelope.ClassHardening:
					return integer(v, &rec.Counts.Hardening)
				case envelope.ClassNote:
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
				case "not_counted":
					return optStr(v, &rec.Cap.NotCounted)
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
	if err != nil || !doc.IsObject() || rec.Schema != Schema {
		return nil, errSlow
	}
	return rec, nil
}

// ReadLedger reads ledger.jsonl of a round (missing: no entries): a last
// line without its newline was never written (AppendLine writes line and
// newline at once), blank lines are skipped, each line is an object with a
// finding and a disposition (G32). The plain form is read in one pass; any
// other is decodeLedger's to read or refuse.
func ReadLedger(dir string) ([]LedgerEntry, error) {
	path := filepath.Join(dir, LedgerFile)
	b, err := ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return decodeLedger(dir)
	}
	if i := bytes.LastIndexByte(b, '\n'); i != len(b)-1 {
		b = b[:i+1]
	}
	out := make([]LedgerEntry, 0, bytes.Count(b, []byte("\n")))
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		line := b[:i]
		b = b[i+1:]
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if !gjson.ValidBytes(line) {
			return decodeLedger(dir)
		}
		var e LedgerEntry
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
			case "check":
				// Rare and nested: the strict decoder reads the line.
				return errSlow
			}
			return nil
		})
		if err != nil || !doc.IsObject() || e.Finding == "" || e.Disposition == "" {
			return decodeLedger(dir)
		}
		out = append(out, e)
	}
	return out, nil
}

// FindingHead is what readers of many rounds take of a finding: findings.json
// keeps every field (envelope.Finding), spar gate's decision needs only
// these.
// HeadOf is the head of a classified finding: what ParseFindingHeads reads
// of it from findings.json.
func HeadOf(f *envelope.Finding) FindingHead {
	return FindingHead{ID: f.ID, Class: f.Class, LocationUnreadable: f.LocationUnreadable, CheckPath: f.CheckPath, CommittedClass: f.CommittedClass, RepeatOf: f.RepeatOf}
}

type FindingHead struct {
	ID                 string
	Class              string
	LocationUnreadable bool // G32: absent means the location was read
	// CheckPath and CommittedClass: the check path glob the location
	// matched and the class by the committed check paths alone ("" in
	// records before they were kept: the same as Class), docs/review-round.md
	// 6.4.
	CheckPath      string
	CommittedClass string
	// RepeatOf is the earlier finding it restates (nil when none).
	RepeatOf *envelope.RepeatOf
}

// ParseFindingHeads takes id, class, location_unreadable, check_path and
// committed_class of each finding of findings.json's bytes b, in one pass
// (G32: one JSON object of the review-round/v1 schema; a class outside the
// four is not a record spar wrote).
func ParseFindingHeads(b []byte) ([]FindingHead, error) {
	if !gjson.ValidBytes(b) {
		return nil, errors.New("findings.json: not JSON")
	}
	doc := gjson.Parse(view(b))
	if !doc.IsObject() {
		return nil, errors.New("findings.json: not a JSON object")
	}
	if sc := doc.Get("schema"); sc.Type != gjson.String || sc.Str != Schema {
		return nil, fmt.Errorf("findings.json: schema %s, want %q", sc.Raw, Schema)
	}
	list := doc.Get("findings")
	if !list.IsArray() {
		return nil, errors.New("findings.json: findings is not an array")
	}
	var out []FindingHead
	var bad error
	list.ForEach(func(_, f gjson.Result) bool {
		if !f.IsObject() {
			bad = errors.New("findings.json: a finding that is not an object")
			return false
		}
		// One pass over the finding's members (id, class and
		// location_unreadable are spread through it).
		var id, class, lu, cp, cc, rep gjson.Result
		f.ForEach(func(k, v gjson.Result) bool {
			switch k.Str {
			case "id":
				id = v
			case "class":
				class = v
			case "location_unreadable":
				lu = v
			case "check_path":
				cp = v
			case "committed_class":
				cc = v
			case "repeat_of":
				rep = v
			}
			return true
		})
		var repeat *envelope.RepeatOf
		if rep.Exists() {
			rr, rf := rep.Get("round"), rep.Get("finding")
			if !rep.IsObject() || rr.Type != gjson.String || rf.Type != gjson.String || rr.Str == "" || rf.Str == "" {
				bad = fmt.Errorf("findings.json: finding %q: repeat_of is %s", id.Str, rep.Raw)
				return false
			}
			repeat = &envelope.RepeatOf{Round: rr.Str, Finding: rf.Str}
		}
		switch {
		case id.Type != gjson.String:
			bad = errors.New("findings.json: a finding without an id")
		case class.Type != gjson.String || !knownClass(class.Str):
			bad = fmt.Errorf("findings.json: finding %q has the class %s", id.Str, class.Raw)
		case lu.Exists() && lu.Type != gjson.True && lu.Type != gjson.False:
			bad = fmt.Errorf("findings.json: finding %q: location_unreadable is %s", id.Str, lu.Raw)
		case cp.Exists() && cp.Type != gjson.String:
			bad = fmt.Errorf("findings.json: finding %q: check_path is %s", id.Str, cp.Raw)
		case cc.Exists() && (cc.Type != gjson.String || cc.Str != "" && !knownClass(cc.Str)):
			bad = fmt.Errorf("findings.json: finding %q has the committed_class %s", id.Str, cc.Raw)
		}
		if bad != nil {
			return false
		}
		out = append(out, FindingHead{ID: id.Str, Class: class.Str, LocationUnreadable: lu.Type == gjson.True, CheckPath: cp.Str, CommittedClass: cc.Str, RepeatOf: repeat})
		return true
	})
	return out, bad
}

func knownClass(c string) bool {
	for _, k := range envelope.Classes {
		if c == k {
			return true
		}
	}
	return false
}
