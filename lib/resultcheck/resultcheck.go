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
	"slices"
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

// Finding is one finding as the reviewer gave it (G5), read by the check
// from the raw result: the one Go form of a reviewer's finding (lib/classify
// classifies it, test fixtures write it). SmallestFix is nil when the key is
// absent.
type Finding struct {
	ID                 string  `json:"id"`
	ProposedClass      string  `json:"proposed_class"`
	Angle              string  `json:"angle"`
	Location           string  `json:"location"`
	Claim              string  `json:"claim"`
	FailureScenario    string  `json:"failure_scenario"`
	Evidence           string  `json:"evidence"`
	LinkKind           string  `json:"link_kind"`
	Link               string  `json:"link"`
	IntroducedByChange string  `json:"introduced_by_change"`
	Regression         string  `json:"regression"`
	CheckImpact        string  `json:"check_impact"`
	Confidence         string  `json:"confidence"`
	SmallestFix        *string `json:"smallest_fix,omitempty"`
}

// Check turns one reviewer run into its result. A run that did not
// complete passes through with its status and reason unchanged; a
// completed run's raw result is checked.
func Check(r Round, run envelope.ReviewerRun) envelope.Result {
	// The findings are not kept: spar-check passes the raw result on
	// (60,000 findings would hold another copy of their fields).
	res, _ := checkRun(r, run, false)
	if res.Verdict != nil {
		res.Result = json.RawMessage(strings.TrimSpace(*run.Result))
	}
	return res
}

// Decide is Check's status and reason alone, nothing of the result kept:
// what spar-exec's progress line says when a reviewer ends.
func Decide(r Round, run envelope.ReviewerRun) (status, reason string) {
	res, _ := checkRun(r, run, false)
	return res.Status, res.Reason
}

// CheckFindings is Check that also returns the findings of a result that
// is not invalid_output, as the check read them: what classification needs,
// without decoding the result again (the gate re-derives every round). The
// raw result is not copied into the returned result (its Result is nil):
// the caller holds it in run.
func CheckFindings(r Round, run envelope.ReviewerRun) (envelope.Result, []Finding) {
	return checkRun(r, run, true)
}

func checkRun(r Round, run envelope.ReviewerRun, keep bool) (envelope.Result, []Finding) {
	res := envelope.Result{Reviewer: run.Reviewer, Status: run.Status, Reason: run.Reason, Result: nil}
	res.Standpoint = standpointOf(r.Standpoints, run.Reviewer)
	if run.Status != Completed {
		return res, nil
	}
	if run.Result == nil {
		res.Status, res.Reason = InvalidOutput, "result: the reviewer gave no result"
		return res, nil
	}
	c := raw(r, run.Reviewer, *run.Result, keep)
	res.Status, res.Reason = c.Status, c.Reason
	if c.Status == InvalidOutput {
		return res, nil
	}
	v := c.Verdict
	res.Verdict = &v
	res.StandpointReport = c.Report
	return res, c.Findings
}

// Checked is the outcome of checking one raw result.
type Checked struct {
	Status  string // completed, invalid_output, failed (could_not_review, G3)
	Reason  string // "" when completed; names the key at fault
	Verdict string
	Report  *envelope.StandpointReport // the assigned reviewer's report; nil otherwise
	// Findings are the result's findings as read (nil when invalid_output,
	// and from Check, which only checks them).
	// A string is gjson's reading of it, which is encoding/json's for valid
	// UTF-8 JSON (TestFindingsReadAsDecoded holds the two to each other).
	Findings []Finding
}

type fault struct{ reason string }

func failf(format string, a ...any) { panic(fault{fmt.Sprintf(format, a...)}) }

// Raw checks the raw result text of reviewer, and gives the findings it
// read.
func Raw(r Round, reviewer, text string) Checked { return raw(r, reviewer, text, true) }

// raw is Raw; keep says whether the findings are kept (Checked.Findings)
// or only checked.
func raw(r Round, reviewer, raw string, keep bool) (out Checked) {
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
	// gjson.Valid agrees with encoding/json's json.Valid (a differential
	// fuzz found no text one accepts and the other refuses), and whatever
	// the check accepts encoding/json decodes to the same findings
	// (FuzzFindingsReadAsDecoded): one validation is enough.
	if !gjson.Valid(raw) {
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
	head := str("reviewed_head", keys.get("reviewed_head"))
	if len(head) < 7 || !strings.HasPrefix(r.Head, head) {
		failf("reviewed_head: %q is not the first 7 or more characters of the head commit %s", head, r.Head)
	}
	// G3: verdict.
	verdict := enum("verdict", keys.get("verdict"), Verdicts)
	// G4: angle items; every requested angle at least once in either list.
	seen := map[string]bool{}
	angleItems("angles_checked", keys.get("angles_checked"), "result", seen)
	angleItems("angles_unchecked", keys.get("angles_unchecked"), "reason", seen)
	for _, a := range r.Angles {
		if !seen[a] {
			failf("angles_checked, angles_unchecked: the requested angle %q is in neither list", a)
		}
	}
	// G5: findings.
	fs := keys.get("findings")
	if !fs.IsArray() {
		failf("findings: not a list (%s)", kind(fs))
	}
	var finds []Finding
	var scratch members
	var one Finding
	n := 0
	fs.ForEach(func(_, f gjson.Result) bool {
		finding(n, f, &one, &scratch)
		n++
		if keep {
			finds = append(finds, one)
		}
		return true
	})
	if keep && finds == nil {
		finds = []Finding{}
	}
	// G6: limits is a string.
	str("limits", keys.get("limits"))

	out = Checked{Status: Completed, Verdict: verdict, Findings: finds}
	// Standpoint reports: checked only for an assigned reviewer; an
	// unassigned reviewer's report is not checked and recorded as null.
	if spRound && standpointOf(r.Standpoints, reviewer) != nil {
		out.Report = report(keys.get(StandpointKey))
	}
	// G3: could_not_review is recorded as failed.
	if verdict == "could_not_review" {
		out.Status = Failed
		out.Reason = "verdict: could_not_review"
		if l := strings.TrimSpace(keys.get("limits").Str); l != "" {
			out.Reason += ": " + l
		}
	}
	return out
}

// members is an object's members by key, as objectKeys read them: at most
// the dozen or so keys of a result or a finding, found by a look along
// allowed (no map for each of a result's many findings).
type members struct {
	allowed []string
	vals    []gjson.Result // vals[i] is allowed[i]'s value; Type and Raw zero when absent
	seen    []bool
}

// reuse is m emptied for an object of the keys allowed: the members of a
// result's findings are read one finding after the other into the same
// space.
func (m *members) reuse(allowed []string) {
	m.allowed = allowed
	if cap(m.vals) < len(allowed) {
		m.vals, m.seen = make([]gjson.Result, len(allowed)), make([]bool, len(allowed))
	}
	m.vals, m.seen = m.vals[:len(allowed)], m.seen[:len(allowed)]
	clear(m.vals)
	clear(m.seen)
}

func (m members) get(key string) gjson.Result {
	for i, k := range m.allowed {
		if k == key {
			return m.vals[i]
		}
	}
	return gjson.Result{}
}

func (m members) has(key string) bool { return m.get(key).Exists() }

// objectKeys walks obj's keys as received: a duplicated key or a key not
// in allowed fails, then every key of required must be there. where is the
// key path of obj ("" for the result itself).
func objectKeys(where string, obj gjson.Result, allowed, required []string) members {
	var m members
	objectKeysInto(&m, where, obj, allowed, required)
	return m
}

// objectKeysInto is objectKeys reading into m (members.reuse).
func objectKeysInto(m *members, where string, obj gjson.Result, allowed, required []string) {
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
	m.reuse(allowed)
	seen := m.seen
	var bad string
	obj.ForEach(func(k, v gjson.Result) bool {
		name := k.Str
		if k.Type != gjson.String {
			name = k.String()
		}
		i := slices.Index(allowed, name)
		switch {
		case i >= 0 && seen[i]:
			bad = fmt.Sprintf("%s: duplicate key %q", at(name), name)
			return false
		case i < 0:
			bad = fmt.Sprintf("%sunknown key %q", prefix, name)
			return false
		}
		seen[i] = true
		m.vals[i] = v
		return true
	})
	if bad != "" {
		failf("%s", bad)
	}
	for _, k := range required {
		if !seen[slices.Index(allowed, k)] {
			failf("%smissing key %q", prefix, k)
		}
	}
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
		names := []string{"angle", second}
		keys := objectKeys(where, it, names, names)
		a := enum(where+".angle", keys.get("angle"), Angles)
		str(where+"."+second, keys.get(second))
		seen[a] = true
	}
}

// findingAllowed is the keys a finding may have (FindingKeys, then
// smallest_fix).
var findingAllowed = append(append([]string{}, FindingKeys...), SmallestFixKey)

// finding checks the i-th finding and reads it into out, key by key in
// FindingKeys order (the first fault is the one named). A key's path
// ("findings[3].claim") is formatted only for a fault.
func finding(i int, f gjson.Result, out *Finding, keys *members) {
	where := fmt.Sprintf("findings[%d]", i)
	if !f.IsObject() {
		failf("%s: not an object (%s)", where, kind(f))
	}
	objectKeysInto(keys, where, f, findingAllowed, FindingKeys)
	at := func(k string) string { return where + "." + k }
	text := func(k string) string {
		v := keys.get(k)
		if v.Type == gjson.String {
			return v.Str
		}
		return str(at(k), v)
	}
	// An enumerated value is given as the enumeration's own string, not a
	// piece of the raw text: what keeps a class keeps no result alive.
	one := func(k string, values []string) string {
		v := keys.get(k)
		if v.Type == gjson.String {
			if i := slices.Index(values, v.Str); i >= 0 {
				return values[i]
			}
		}
		return enum(at(k), v, values)
	}
	*out = Finding{
		ID:                 text("id"),
		ProposedClass:      one("proposed_class", ProposedClass),
		Angle:              one("angle", Angles),
		Location:           text("location"),
		Claim:              text("claim"),
		FailureScenario:    nonBlank(at, "failure_scenario", text("failure_scenario")),
		Evidence:           text("evidence"),
		LinkKind:           one("link_kind", LinkKinds),
		Link:               text("link"),
		IntroducedByChange: one("introduced_by_change", YesNoUnknown),
		Regression:         one("regression", YesNoUnknown),
		CheckImpact:        one("check_impact", CheckImpacts),
		Confidence:         one("confidence", Confidences),
	}
	if keys.has(SmallestFixKey) {
		sf := text(SmallestFixKey)
		out.SmallestFix = &sf
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
	c := keys.get("checked")
	if c.Type != gjson.True && c.Type != gjson.False {
		failf("standpoint_report.checked: not a boolean (%s)", kind(c))
	}
	d := str("standpoint_report.detail", keys.get("detail"))
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

// nonBlank is s, failing when it is whitespace only.
func nonBlank(at func(string) string, key, s string) string {
	if blank(s) {
		failf("%s: blank (whitespace only)", at(key))
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
