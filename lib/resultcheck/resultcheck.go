// Package resultcheck is the one gate every reviewer answer passes: rows
// G1–G6 and the standpoint report rules
// (docs/review-round.md §5). The raw result text is walked with gjson so
// that keys are seen as received: in their order, and a key given twice is
// seen twice (a duplicated key is invalid_output: a JSON decoder would keep
// one of the two values silently).
package resultcheck

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/tidwall/gjson"
)

// Statuses written by the check (lib/envelope owns them).
const (
	Completed     = envelope.StatusCompleted
	InvalidOutput = envelope.StatusInvalidOutput
	Failed        = envelope.StatusFailed
)

// The enumerations of docs/review-round.md §3 ("Review round section 3").
var (
	Verdicts       = []string{"no_blocking_findings", "blocking_findings", "could_not_review"}
	Angles         = []string{"requirement-counterexample", "side-effects", "design", "premises", "check-validity"}
	ProposedClass  = envelope.Classes
	LinkKinds      = []string{"rule", "contract", "criterion", "none"}
	YesNoUnknown   = []string{"yes", "no", "unknown"}
	CheckImpacts   = []string{"none", "false_pass", "meaning_inverted", "contract_violation"}
	Confidences    = []string{"high", "medium", "low"}
	ResultKeys     = []string{"reviewed_head", "verdict", "angles_checked", "angles_unchecked", "findings", "limits"}
	StandpointKey  = "standpoint_report"
	FindingKeys    = []string{"id", "proposed_class", "angle", "location", "claim", "failure_scenario", "evidence", "link_kind", "link", "introduced_by_change", "regression", "check_impact", "confidence"}
	SmallestFixKey = "smallest_fix"
)

// Round is what the check needs to know about the round.
type Round struct {
	Head        string                // full head commit ID (G2)
	Angles      []string              // the requested (applied) angles (G4)
	Standpoints []envelope.Standpoint // the round's standpoints; none: not a standpoint round
}

// Check turns one reviewer run into its result. A run that did not
// complete passes through with its status and reason unchanged; a
// completed run's raw result is checked.
func Check(r Round, run envelope.ReviewerRun) envelope.Result {
	res := envelope.Result{Reviewer: run.Reviewer, Status: run.Status, Reason: run.Reason, Result: nil}
	res.Standpoint = standpointOf(r.Standpoints, run.Reviewer)
	if run.Status != Completed {
		return res
	}
	if run.Result == nil {
		res.Status, res.Reason = InvalidOutput, "result: the reviewer gave no result"
		return res
	}
	c := Raw(r, run.Reviewer, *run.Result)
	res.Status, res.Reason = c.Status, c.Reason
	if c.Status == InvalidOutput {
		return res
	}
	v := c.Verdict
	res.Verdict = &v
	res.Result = json.RawMessage(strings.TrimSpace(*run.Result))
	res.StandpointReport = c.Report
	return res
}

// Checked is the outcome of checking one raw result.
type Checked struct {
	Status  string // completed, invalid_output, failed (could_not_review, G3)
	Reason  string // "" when completed; names the key at fault
	Verdict string
	Report  *envelope.StandpointReport // the assigned reviewer's report; nil otherwise
}

type fault struct{ reason string }

func failf(format string, a ...any) { panic(fault{fmt.Sprintf(format, a...)}) }

// Raw checks the raw result text of reviewer.
func Raw(r Round, reviewer, raw string) (out Checked) {
	defer func() {
		if p := recover(); p != nil {
			f, ok := p.(fault)
			if !ok {
				panic(p)
			}
			out = Checked{Status: InvalidOutput, Reason: f.reason}
		}
	}()
	// G1: one JSON object. Text that is not valid UTF-8 is not a JSON text
	// (RFC 8259 §8.1); reading it with its bad bytes replaced would accept
	// another value than the reviewer gave.
	if !utf8.ValidString(raw) {
		failf("result: not valid UTF-8")
	}
	if !gjson.Valid(raw) || !json.Valid([]byte(raw)) {
		failf("result: not one JSON value")
	}
	top := gjson.Parse(raw)
	if !top.IsObject() {
		failf("result: not a JSON object (%s)", kind(top))
	}
	spRound := len(r.Standpoints) > 0
	allowed := append([]string{}, ResultKeys...)
	if spRound {
		allowed = append(allowed, StandpointKey)
	}
	keys := objectKeys("", top, allowed, ResultKeys)

	// G2: reviewed_head is a prefix of the head ID, 7 or more characters.
	head := str("reviewed_head", keys["reviewed_head"])
	if len(head) < 7 || !strings.HasPrefix(r.Head, head) {
		failf("reviewed_head: %q is not the first 7 or more characters of the head commit %s", head, r.Head)
	}
	// G3: verdict.
	verdict := enum("verdict", keys["verdict"], Verdicts)
	// G4: angle items; every requested angle at least once in either list.
	seen := map[string]bool{}
	angleItems("angles_checked", keys["angles_checked"], "result", seen)
	angleItems("angles_unchecked", keys["angles_unchecked"], "reason", seen)
	for _, a := range r.Angles {
		if !seen[a] {
			failf("angles_checked, angles_unchecked: the requested angle %q is in neither list", a)
		}
	}
	// G5: findings.
	fs := keys["findings"]
	if !fs.IsArray() {
		failf("findings: not a list (%s)", kind(fs))
	}
	for i, f := range fs.Array() {
		finding(fmt.Sprintf("findings[%d]", i), f)
	}
	// G6: limits is a string.
	str("limits", keys["limits"])

	out = Checked{Status: Completed, Verdict: verdict}
	// Standpoint reports: checked only for an assigned reviewer; an
	// unassigned reviewer's report is not checked and recorded as null.
	if spRound && standpointOf(r.Standpoints, reviewer) != nil {
		out.Report = report(keys[StandpointKey])
	}
	// G3: could_not_review is recorded as failed.
	if verdict == "could_not_review" {
		out.Status = Failed
		out.Reason = "verdict: could_not_review"
		if l := strings.TrimSpace(keys["limits"].Str); l != "" {
			out.Reason += ": " + l
		}
	}
	return out
}

// objectKeys walks obj's keys as received: a duplicated key or a key not
// in allowed fails, then every key of required must be there. where is the
// key path of obj ("" for the result itself).
func objectKeys(where string, obj gjson.Result, allowed, required []string) map[string]gjson.Result {
	at := func(k string) string {
		if where == "" {
			return k
		}
		return where + "." + k
	}
	prefix := where
	if prefix != "" {
		prefix += ": "
	}
	keys := map[string]gjson.Result{}
	var bad string
	obj.ForEach(func(k, v gjson.Result) bool {
		name := k.String()
		if _, dup := keys[name]; dup {
			bad = fmt.Sprintf("%s: duplicate key %q", at(name), name)
			return false
		}
		if !in(name, allowed) {
			bad = fmt.Sprintf("%sunknown key %q", prefix, name)
			return false
		}
		keys[name] = v
		return true
	})
	if bad != "" {
		failf("%s", bad)
	}
	for _, k := range required {
		if _, ok := keys[k]; !ok {
			failf("%smissing key %q", prefix, k)
		}
	}
	return keys
}

func angleItems(list string, v gjson.Result, second string, seen map[string]bool) {
	if !v.IsArray() {
		failf("%s: not a list (%s)", list, kind(v))
	}
	for i, it := range v.Array() {
		where := fmt.Sprintf("%s[%d]", list, i)
		if !it.IsObject() {
			failf("%s: not an object (%s)", where, kind(it))
		}
		keys := objectKeys(where, it, []string{"angle", second}, []string{"angle", second})
		a := enum(where+".angle", keys["angle"], Angles)
		str(where+"."+second, keys[second])
		seen[a] = true
	}
}

func finding(where string, f gjson.Result) {
	if !f.IsObject() {
		failf("%s: not an object (%s)", where, kind(f))
	}
	allowed := append(append([]string{}, FindingKeys...), SmallestFixKey)
	keys := objectKeys(where, f, allowed, FindingKeys)
	at := func(k string) string { return where + "." + k }
	str(at("id"), keys["id"])
	enum(at("proposed_class"), keys["proposed_class"], ProposedClass)
	enum(at("angle"), keys["angle"], Angles)
	str(at("location"), keys["location"])
	str(at("claim"), keys["claim"])
	if blank(str(at("failure_scenario"), keys["failure_scenario"])) {
		failf("%s: blank (whitespace only)", at("failure_scenario"))
	}
	str(at("evidence"), keys["evidence"])
	enum(at("link_kind"), keys["link_kind"], LinkKinds)
	str(at("link"), keys["link"])
	enum(at("introduced_by_change"), keys["introduced_by_change"], YesNoUnknown)
	enum(at("regression"), keys["regression"], YesNoUnknown)
	enum(at("check_impact"), keys["check_impact"], CheckImpacts)
	enum(at("confidence"), keys["confidence"], Confidences)
	if sf, ok := keys[SmallestFixKey]; ok {
		str(at(SmallestFixKey), sf)
	}
}

// report checks an assigned reviewer's standpoint_report: an object with
// exactly checked (a boolean) and detail (nonblank text). Missing, null or
// malformed is invalid_output with standpoint_report in the reason.
func report(v gjson.Result) *envelope.StandpointReport {
	if !v.Exists() {
		failf("standpoint_report: missing (this reviewer has a standpoint)")
	}
	if v.Type == gjson.Null {
		failf("standpoint_report: null (this reviewer has a standpoint)")
	}
	if !v.IsObject() {
		failf("standpoint_report: not an object (%s)", kind(v))
	}
	keys := objectKeys(StandpointKey, v, []string{"checked", "detail"}, []string{"checked", "detail"})
	c := keys["checked"]
	if c.Type != gjson.True && c.Type != gjson.False {
		failf("standpoint_report.checked: not a boolean (%s)", kind(c))
	}
	d := str("standpoint_report.detail", keys["detail"])
	if blank(d) {
		failf("standpoint_report.detail: blank (whitespace only)")
	}
	return &envelope.StandpointReport{Checked: c.Type == gjson.True, Detail: d}
}

func str(where string, v gjson.Result) string {
	if v.Type != gjson.String {
		failf("%s: not a string (%s)", where, kind(v))
	}
	return v.Str
}

func enum(where string, v gjson.Result, values []string) string {
	s := str(where, v)
	if !in(s, values) {
		failf("%s: %q is not one of %s", where, s, strings.Join(values, ", "))
	}
	return s
}

func blank(s string) bool { return strings.TrimFunc(s, unicode.IsSpace) == "" }

func in(s string, l []string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

func kind(v gjson.Result) string {
	switch {
	case v.IsObject():
		return "an object"
	case v.IsArray():
		return "a list"
	}
	switch v.Type {
	case gjson.String:
		return "a string"
	case gjson.Number:
		return "a number"
	case gjson.True, gjson.False:
		return "a boolean"
	case gjson.Null:
		return "null"
	}
	return "nothing"
}

func standpointOf(sps []envelope.Standpoint, reviewer string) *string {
	for _, sp := range sps {
		if sp.Reviewer == reviewer {
			t := sp.Text
			return &t
		}
	}
	return nil
}
