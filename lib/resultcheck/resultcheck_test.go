package resultcheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/packet"
	"github.com/jaekit/spar/lib/pipe"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

const head = "0123456789abcdef0123456789abcdef01234567"

var allAngles = []string{"requirement-counterexample", "side-effects", "design", "premises", "check-validity"}

// kv is one key of an ordered JSON object; a key may repeat.
type kv struct {
	k string
	v any
}

type obj []kv

func (o obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, e := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(e.k)
		b.Write(k)
		b.WriteByte(':')
		v, err := json.Marshal(e.v)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func (o obj) set(k string, v any) obj {
	out := append(obj{}, o...)
	for i := range out {
		if out[i].k == k {
			out[i].v = v
			return out
		}
	}
	return append(out, kv{k, v})
}

func (o obj) del(k string) obj {
	var out obj
	for _, e := range o {
		if e.k != k {
			out = append(out, e)
		}
	}
	return out
}

func (o obj) add(k string, v any) obj { return append(append(obj{}, o...), kv{k, v}) }

func validFinding() obj {
	return obj{
		{"id", "F1"}, {"proposed_class", "defect"}, {"angle", "design"}, {"location", "head/app/main.go:10"},
		{"claim", "c"}, {"failure_scenario", "run it twice"}, {"evidence", "e"}, {"link_kind", "rule"},
		{"link", "AGENTS.md:2"}, {"introduced_by_change", "yes"}, {"regression", "no"},
		{"check_impact", "none"}, {"confidence", "high"},
	}
}

func checkedAll() []any {
	var l []any
	for _, a := range allAngles {
		l = append(l, obj{{"angle", a}, {"result", "ok"}})
	}
	return l
}

func validResult() obj {
	return obj{
		{"reviewed_head", head[:7]}, {"verdict", "blocking_findings"},
		{"angles_checked", checkedAll()}, {"angles_unchecked", []any{}},
		{"findings", []any{validFinding()}}, {"limits", ""},
	}
}

func text(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

var plain = Round{Head: head, Angles: allAngles}
var withSP = Round{Head: head, Angles: allAngles, Standpoints: []envelope.Standpoint{{Reviewer: "claude", Text: "auth bypass"}}}

func spReport(checked any, detail any) obj { return obj{{"checked", checked}, {"detail", detail}} }

type form struct {
	name     string
	round    Round
	reviewer string
	raw      string
	status   string
	reason   string // substring of the reason ("" when completed)
}

func forms() []form {
	v := validResult()
	f := validFinding()
	withFinding := func(x any) string { return text(v.set("findings", []any{x})) }
	spv := v.add("standpoint_report", spReport(true, "checked the token path"))
	return []form{
		// G1
		{"G1 accepted", plain, "claude", text(v), Completed, ""},
		{"G1 whitespace around", plain, "claude", "\n  " + text(v) + "\n", Completed, ""},
		{"G1 keys in any order", plain, "claude", text(obj{v[5], v[4], v[3], v[2], v[1], v[0]}), Completed, ""},
		{"G1 not JSON", plain, "claude", "{", InvalidOutput, "result"},
		{"G1 two values", plain, "claude", text(v) + text(v), InvalidOutput, "result"},
		{"G1 a list", plain, "claude", "[" + text(v) + "]", InvalidOutput, "result: not a JSON object"},
		{"G1 a string", plain, "claude", `"x"`, InvalidOutput, "result: not a JSON object"},
		{"G1 null", plain, "claude", `null`, InvalidOutput, "result: not a JSON object"},
		{"G1 missing verdict", plain, "claude", text(v.del("verdict")), InvalidOutput, `missing key "verdict"`},
		{"G1 missing limits", plain, "claude", text(v.del("limits")), InvalidOutput, `missing key "limits"`},
		{"G1 unknown key", plain, "claude", text(v.add("summary", "x")), InvalidOutput, `unknown key "summary"`},
		{"G1 duplicate key", plain, "claude", text(v.add("verdict", "blocking_findings")), InvalidOutput, `verdict: duplicate key "verdict"`},
		{"G1 standpoint_report without standpoints", plain, "claude", text(spv), InvalidOutput, `unknown key "standpoint_report"`},
		// G2
		{"G2 seven characters", plain, "claude", text(v.set("reviewed_head", head[:7])), Completed, ""},
		{"G2 full ID", plain, "claude", text(v.set("reviewed_head", head)), Completed, ""},
		{"G2 six characters", plain, "claude", text(v.set("reviewed_head", head[:6])), InvalidOutput, "reviewed_head"},
		{"G2 other commit", plain, "claude", text(v.set("reviewed_head", "fedcba9876")), InvalidOutput, "reviewed_head"},
		{"G2 upper case", plain, "claude", text(v.set("reviewed_head", strings.ToUpper(head[:12]))), InvalidOutput, "reviewed_head"},
		{"G2 longer than the ID", plain, "claude", text(v.set("reviewed_head", head+"0")), InvalidOutput, "reviewed_head"},
		{"G2 not a string", plain, "claude", text(v.set("reviewed_head", 123456789)), InvalidOutput, "reviewed_head: not a string"},
		// G3
		{"G3 no_blocking_findings", plain, "claude", text(v.set("verdict", "no_blocking_findings")), Completed, ""},
		{"G3 could_not_review is failed", plain, "claude", text(v.set("verdict", "could_not_review").set("limits", "no access")), Failed, "verdict: could_not_review: no access"},
		{"G3 unknown verdict", plain, "claude", text(v.set("verdict", "pass")), InvalidOutput, "verdict"},
		{"G3 verdict case", plain, "claude", text(v.set("verdict", "Blocking_findings")), InvalidOutput, "verdict"},
		// G4
		{"G4 unchecked angle", plain, "claude", text(v.set("angles_checked", checkedAll()[1:]).set("angles_unchecked", []any{obj{{"angle", allAngles[0]}, {"reason", "no time"}}})), Completed, ""},
		{"G4 repeats and both lists", plain, "claude", text(v.set("angles_checked", append(checkedAll(), checkedAll()[0])).set("angles_unchecked", []any{obj{{"angle", allAngles[0]}, {"reason", "x"}}})), Completed, ""},
		{"G4 only the requested angles", Round{Head: head, Angles: []string{"design"}}, "claude", text(v.set("angles_checked", []any{obj{{"angle", "design"}, {"result", ""}}})), Completed, ""},
		{"G4 missing requested angle", plain, "claude", text(v.set("angles_checked", checkedAll()[1:])), InvalidOutput, `"requirement-counterexample" is in neither list`},
		{"G4 not a list", plain, "claude", text(v.set("angles_checked", obj{})), InvalidOutput, "angles_checked: not a list"},
		{"G4 item not an object", plain, "claude", text(v.set("angles_unchecked", []any{"design"})), InvalidOutput, "angles_unchecked[0]: not an object"},
		{"G4 unknown angle", plain, "claude", text(v.set("angles_unchecked", []any{obj{{"angle", "style"}, {"reason", "x"}}})), InvalidOutput, "angles_unchecked[0].angle"},
		{"G4 missing key", plain, "claude", text(v.set("angles_checked", append(checkedAll(), obj{{"angle", "design"}}))), InvalidOutput, `angles_checked[5]: missing key "result"`},
		{"G4 unknown key", plain, "claude", text(v.set("angles_checked", append(checkedAll(), obj{{"angle", "design"}, {"result", "x"}, {"reason", "y"}}))), InvalidOutput, `angles_checked[5]: unknown key "reason"`},
		{"G4 result not a string", plain, "claude", text(v.set("angles_checked", append(checkedAll(), obj{{"angle", "design"}, {"result", true}}))), InvalidOutput, "angles_checked[5].result: not a string"},
		{"G4 duplicate key in item", plain, "claude", text(v.set("angles_checked", append(checkedAll(), obj{{"angle", "design"}, {"angle", "design"}, {"result", "x"}}))), InvalidOutput, "angles_checked[5].angle: duplicate key"},
		// G5
		{"G5 no findings", plain, "claude", text(v.set("findings", []any{})), Completed, ""},
		{"G5 smallest_fix", plain, "claude", withFinding(f.add("smallest_fix", "add a check")), Completed, ""},
		{"G5 empty smallest_fix", plain, "claude", withFinding(f.add("smallest_fix", "")), Completed, ""},
		{"G5 any id, claim, evidence", plain, "claude", withFinding(f.set("id", "").set("claim", "").set("evidence", "")), Completed, ""},
		{"G5 smallest_fix not a string", plain, "claude", withFinding(f.add("smallest_fix", nil)), InvalidOutput, "findings[0].smallest_fix: not a string"},
		{"G5 findings not a list", plain, "claude", text(v.set("findings", nil)), InvalidOutput, "findings: not a list"},
		{"G5 finding not an object", plain, "claude", withFinding("F1"), InvalidOutput, "findings[0]: not an object"},
		{"G5 missing key", plain, "claude", withFinding(f.del("evidence")), InvalidOutput, `findings[0]: missing key "evidence"`},
		{"G5 unknown key", plain, "claude", withFinding(f.add("severity", "high")), InvalidOutput, `findings[0]: unknown key "severity"`},
		{"G5 duplicate key", plain, "claude", withFinding(f.add("claim", "again")), InvalidOutput, "findings[0].claim: duplicate key"},
		{"G5 value not a string", plain, "claude", withFinding(f.set("claim", 3)), InvalidOutput, "findings[0].claim: not a string"},
		{"G5 proposed_class", plain, "claude", withFinding(f.set("proposed_class", "bug")), InvalidOutput, "findings[0].proposed_class"},
		{"G5 angle", plain, "claude", withFinding(f.set("angle", "style")), InvalidOutput, "findings[0].angle"},
		{"G5 link_kind", plain, "claude", withFinding(f.set("link_kind", "url")), InvalidOutput, "findings[0].link_kind"},
		{"G5 introduced_by_change", plain, "claude", withFinding(f.set("introduced_by_change", "maybe")), InvalidOutput, "findings[0].introduced_by_change"},
		{"G5 regression", plain, "claude", withFinding(f.set("regression", "Yes")), InvalidOutput, "findings[0].regression"},
		{"G5 check_impact", plain, "claude", withFinding(f.set("check_impact", "false-pass")), InvalidOutput, "findings[0].check_impact"},
		{"G5 confidence", plain, "claude", withFinding(f.set("confidence", "certain")), InvalidOutput, "findings[0].confidence"},
		{"G5 empty failure_scenario", plain, "claude", withFinding(f.set("failure_scenario", "")), InvalidOutput, "findings[0].failure_scenario: blank"},
		{"G5 whitespace failure_scenario", plain, "claude", withFinding(f.set("failure_scenario", " \t\n\u00a0\u2003")), InvalidOutput, "findings[0].failure_scenario: blank"},
		{"G5 second finding", plain, "claude", text(v.set("findings", []any{f, f.set("confidence", 1)})), InvalidOutput, "findings[1].confidence"},
		// G6
		{"G6 limits text", plain, "claude", text(v.set("limits", "did not run tests")), Completed, ""},
		{"G6 limits null", plain, "claude", text(v.set("limits", nil)), InvalidOutput, "limits: not a string"},
		{"G6 limits list", plain, "claude", text(v.set("limits", []any{"a"})), InvalidOutput, "limits: not a string"},
		// Standpoint reports
		{"SP assigned report", withSP, "claude", text(spv), Completed, ""},
		{"SP assigned checked false", withSP, "claude", text(v.add("standpoint_report", spReport(false, "no access to the auth module"))), Completed, ""},
		{"SP assigned missing", withSP, "claude", text(v), InvalidOutput, "standpoint_report: missing"},
		{"SP assigned null", withSP, "claude", text(v.add("standpoint_report", nil)), InvalidOutput, "standpoint_report: null"},
		{"SP assigned string", withSP, "claude", text(v.add("standpoint_report", "done")), InvalidOutput, "standpoint_report: not an object"},
		{"SP assigned checked string", withSP, "claude", text(v.add("standpoint_report", spReport("true", "x"))), InvalidOutput, "standpoint_report.checked"},
		{"SP assigned blank detail", withSP, "claude", text(v.add("standpoint_report", spReport(true, "  "))), InvalidOutput, "standpoint_report.detail"},
		{"SP assigned detail not string", withSP, "claude", text(v.add("standpoint_report", spReport(true, 1))), InvalidOutput, "standpoint_report.detail"},
		{"SP assigned missing detail", withSP, "claude", text(v.add("standpoint_report", obj{{"checked", true}})), InvalidOutput, `standpoint_report: missing key "detail"`},
		{"SP assigned extra key", withSP, "claude", text(v.add("standpoint_report", spReport(true, "x").add("why", "y"))), InvalidOutput, `standpoint_report: unknown key "why"`},
		{"SP assigned duplicate key", withSP, "claude", text(v.add("standpoint_report", spReport(true, "x").add("checked", false))), InvalidOutput, "standpoint_report.checked: duplicate key"},
		{"SP assigned duplicate report", withSP, "claude", text(spv.add("standpoint_report", spReport(true, "x"))), InvalidOutput, "standpoint_report: duplicate key"},
		{"SP unassigned omitted", withSP, "codex", text(v), Completed, ""},
		{"SP unassigned null", withSP, "codex", text(v.add("standpoint_report", nil)), Completed, ""},
		{"SP unassigned malformed is not checked", withSP, "codex", text(v.add("standpoint_report", "whatever")), Completed, ""},
		{"SP unassigned report", withSP, "codex", text(spv), Completed, ""},
	}
}

// TestG1toG6_Forms gives every accepted and refused form its status and a
// reason naming the key at fault.
func TestG1toG6_Forms(t *testing.T) {
	for _, f := range forms() {
		got := Raw(f.round, f.reviewer, f.raw)
		if got.Status != f.status {
			t.Errorf("%s: status %s (%s), want %s", f.name, got.Status, got.Reason, f.status)
			continue
		}
		if f.reason == "" && got.Reason != "" {
			t.Errorf("%s: reason %q, want none", f.name, got.Reason)
		}
		if f.reason != "" && !strings.Contains(got.Reason, f.reason) {
			t.Errorf("%s: reason %q, want it to contain %q", f.name, got.Reason, f.reason)
		}
	}
}

func TestStandpointReport_RecordedOnlyForAssigned(t *testing.T) {
	raw := text(validResult().add("standpoint_report", spReport(false, "could not reach it")))
	run := envelope.ReviewerRun{Reviewer: "claude", Status: Completed, Result: &raw}
	got := Check(withSP, run)
	if got.StandpointReport == nil || got.StandpointReport.Checked || got.StandpointReport.Detail != "could not reach it" {
		t.Fatalf("assigned: %+v", got.StandpointReport)
	}
	if got.Standpoint == nil || *got.Standpoint != "auth bypass" {
		t.Fatalf("assigned standpoint: %v", got.Standpoint)
	}
	run.Reviewer = "codex"
	got = Check(withSP, run)
	if got.Status != Completed || got.StandpointReport != nil || got.Standpoint != nil {
		t.Fatalf("unassigned: %+v", got)
	}
}

func TestCheck_PassThroughAndNoResult(t *testing.T) {
	for _, st := range []string{"failed", "unavailable", "timed_out", "tool_violation", "pending", "not_run"} {
		raw := text(validResult())
		got := Check(plain, envelope.ReviewerRun{Reviewer: "r", Status: st, Reason: "why", Result: &raw})
		if got.Status != st || got.Reason != "why" || got.Result != nil || got.Verdict != nil {
			t.Errorf("%s: %+v", st, got)
		}
	}
	got := Check(plain, envelope.ReviewerRun{Reviewer: "r", Status: Completed})
	if got.Status != InvalidOutput || !strings.Contains(got.Reason, "result") {
		t.Errorf("no result: %+v", got)
	}
	raw := " " + text(validResult()) + "\n"
	got = Check(plain, envelope.ReviewerRun{Reviewer: "r", Status: Completed, Result: &raw})
	if got.Status != Completed || *got.Verdict != "blocking_findings" || string(got.Result) != strings.TrimSpace(raw) {
		t.Errorf("completed: %+v", got)
	}
}

func compile(t testing.TB, schema string) *jsonschema.Schema {
	t.Helper()
	s, err := pipe.Compile("result", []byte(schema))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func schemaValid(s *jsonschema.Schema, raw string) bool {
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return false
	}
	return s.Validate(v) == nil
}

// exempt is the one case the contract puts outside the property: an
// unassigned reviewer of a standpoint round may omit standpoint_report or
// give anything (it is not checked), while schema.json lists it in
// required with the exact object shape ("Standpoint reports and records").
func exempt(r Round, reviewer string) bool {
	return len(r.Standpoints) > 0 && standpointOf(r.Standpoints, reviewer) == nil
}

// loose is a schema text less the requirement of smallest_fix: schema.json
// lists it in required for OpenAI's strict mode, while spar's own check
// accepts a finding without it (G5), so the properties below hold against
// the schema without that one requirement.
func loose(t testing.TB, schema string) string {
	t.Helper()
	out := strings.Replace(schema, `"confidence",
          "smallest_fix"
        ]`, `"confidence"
        ]`, 1)
	if out == schema {
		t.Fatal("schema.json no longer lists smallest_fix last in a finding's required")
	}
	return out
}

// property: every result the check accepts (completed, or failed for
// could_not_review) validates against the round's schema.json, and every
// result the schema rejects is invalid_output.
func property(t *testing.T, s *jsonschema.Schema, r Round, reviewer, raw, name string) {
	t.Helper()
	got := Raw(r, reviewer, raw)
	valid := schemaValid(s, raw)
	if got.Status != InvalidOutput && !valid && !exempt(r, reviewer) {
		t.Errorf("%s: check says %s but schema.json rejects it:\n%s", name, got.Status, raw)
	}
	if !valid && got.Status != InvalidOutput && !exempt(r, reviewer) {
		t.Errorf("%s: schema rejects it but status is %s", name, got.Status)
	}
}

func TestProperty_AcceptedResultsValidateAgainstSchema(t *testing.T) {
	plainS, spS := compile(t, loose(t, packet.Schema)), compile(t, loose(t, packet.SchemaStandpoints))
	for _, f := range forms() {
		s := plainS
		if len(f.round.Standpoints) > 0 {
			s = spS
		}
		property(t, s, f.round, f.reviewer, f.raw, f.name)
	}
	// Random mutations of a valid result, for both kinds of round.
	rng := rand.New(rand.NewSource(1))
	accepted, rejected := 0, 0
	defer func() {
		// The mutations must reach both sides, or the property says nothing.
		if accepted < 100 || rejected < 100 {
			t.Errorf("mutations: %d accepted, %d rejected", accepted, rejected)
		}
	}()
	for i := 0; i < 4000; i++ {
		base := validResult()
		r, s := plain, plainS
		if i%2 == 1 {
			r, s = withSP, spS
			base = base.add("standpoint_report", spReport(true, "x"))
		}
		raw := text(mutate(rng, base, 1+rng.Intn(3)))
		property(t, s, r, "claude", raw, fmt.Sprintf("mutation %d", i))
		if Raw(r, "claude", raw).Status == InvalidOutput {
			rejected++
		} else {
			accepted++
		}
	}
}

var junk = []any{nil, true, 0, 1.5, "", " ", "x", "design", "defect", "yes", head[:7], []any{}, []any{"x"}, obj{}, obj{{"angle", "design"}, {"result", "x"}}}

// mutate applies n random changes at random depths: delete, add, duplicate
// or retype a key, or replace a value.
func mutate(rng *rand.Rand, v any, n int) any {
	for ; n > 0; n-- {
		v = mutateOnce(rng, v)
	}
	return v
}

func mutateOnce(rng *rand.Rand, v any) any {
	switch x := v.(type) {
	case obj:
		if len(x) == 0 || rng.Intn(4) == 0 {
			switch rng.Intn(4) {
			case 0:
				return x.add([]string{"verdict", "extra", "angle", "checked", "smallest_fix", "detail"}[rng.Intn(6)], junk[rng.Intn(len(junk))])
			case 1:
				if len(x) > 0 {
					e := x[rng.Intn(len(x))]
					return x.add(e.k, e.v)
				}
			case 2:
				if len(x) > 0 {
					return x.del(x[rng.Intn(len(x))].k)
				}
			}
			return junk[rng.Intn(len(junk))]
		}
		i := rng.Intn(len(x))
		out := append(obj{}, x...)
		out[i].v = mutateOnce(rng, x[i].v)
		return out
	case []any:
		if len(x) == 0 || rng.Intn(4) == 0 {
			if rng.Intn(2) == 0 {
				return append(append([]any{}, x...), junk[rng.Intn(len(junk))])
			}
			return junk[rng.Intn(len(junk))]
		}
		i := rng.Intn(len(x))
		out := append([]any{}, x...)
		out[i] = mutateOnce(rng, x[i])
		return out
	case string:
		opts := []any{"", "  ", x + "x", strings.ToUpper(x), nil, 7}
		return opts[rng.Intn(len(opts))]
	}
	return junk[rng.Intn(len(junk))]
}

// TestSchemas_DifferOnlyByStandpointReport: the standpoint schema is the
// plain schema plus standpoint_report, nothing else (the plain one stays
// byte for byte what a round without standpoints gets).
func TestSchemas_DifferOnlyByStandpointReport(t *testing.T) {
	var a, b map[string]any
	if err := json.Unmarshal([]byte(packet.Schema), &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(packet.SchemaStandpoints), &b); err != nil {
		t.Fatal(err)
	}
	bp := b["properties"].(map[string]any)
	sp := bp["standpoint_report"].(map[string]any)
	if fmt.Sprint(sp["type"]) != "[object null]" {
		t.Fatalf("standpoint_report type %v", sp["type"])
	}
	delete(bp, "standpoint_report")
	req := b["required"].([]any)
	if req[len(req)-1] != "standpoint_report" {
		t.Fatalf("required %v", req)
	}
	b["required"] = req[:len(req)-1]
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if !bytes.Equal(ja, jb) {
		t.Fatalf("schemas differ beyond standpoint_report:\n%s\n%s", ja, jb)
	}
}

func FuzzRaw(f *testing.F) {
	for _, fm := range forms() {
		f.Add(fm.raw)
	}
	s := compile(f, loose(f, packet.Schema))
	f.Fuzz(func(t *testing.T, raw string) {
		got := Raw(plain, "claude", raw)
		if got.Status != InvalidOutput && !schemaValid(s, raw) {
			t.Fatalf("accepted but schema rejects: %q", raw)
		}
		if got.Status == InvalidOutput && got.Reason == "" {
			t.Fatalf("invalid_output without a reason: %q", raw)
		}
	})
}

// readAsDecoded fails when the findings Raw read from an accepted raw
// result are not those encoding/json decodes from it: classification takes
// Raw's reading (the gate re-derives from it), spar-classify's envelope
// reading decodes with encoding/json, and both must give one finding.
func readAsDecoded(t *testing.T, r Round, raw string) {
	t.Helper()
	got := Raw(r, "claude", raw)
	if got.Status == InvalidOutput {
		return
	}
	var top struct {
		Findings []json.RawMessage `json:"findings"`
	}
	if err := json.Unmarshal([]byte(raw), &top); err != nil {
		t.Fatalf("accepted, but encoding/json does not decode it (%v): %q", err, raw)
	}
	want := []Finding{}
	for _, f := range top.Findings {
		var it Finding
		dec := json.NewDecoder(bytes.NewReader(f))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&it); err != nil {
			t.Fatalf("accepted, but encoding/json does not decode its finding (%v): %q", err, raw)
		}
		want = append(want, it)
	}
	g, _ := json.Marshal(got.Findings)
	w, _ := json.Marshal(want)
	if !bytes.Equal(g, w) {
		t.Fatalf("read %s\ndecoded %s\nfrom %q", g, w, raw)
	}
}

// escapes are strings whose JSON text has every escape form: the
// two-character ones, \u in both cases, surrogate pairs, lone and reversed
// surrogates, a NUL, and raw multibyte text.
var escapes = []string{
	`plain`, `a\"b\\c\/d`, `\b\f\n\r\t`, `\u00e9\u00E9é`, `\ud83d\ude00`, `\uD83D\uDE00x`,
	`\ud800`, `\udc00`, `\ud800\ud800\udc00`, `\udc00\ud800`, `\ud800x`, `\ud800\u0041`,
	`\u0000`, `\u2028\u2029`, `日本語 \u65e5`, `<&>`,
}

func TestFindingsReadAsDecoded(t *testing.T) {
	for _, e := range escapes {
		base := text(validResult())
		for _, key := range []string{"claim", "evidence", "link", "id"} {
			raw := strings.Replace(base, `"`+key+`":"`, `"`+key+`":"`+e, 1)
			if Raw(plain, "claude", raw).Status == InvalidOutput {
				t.Fatalf("%s %s: rejected: %s", key, e, Raw(plain, "claude", raw).Reason)
			}
			readAsDecoded(t, plain, raw)
		}
		fix := text(validResult().set("findings", []any{validFinding().add("smallest_fix", "")}))
		readAsDecoded(t, plain, strings.Replace(fix, `"smallest_fix":"`, `"smallest_fix":"`+e, 1))
	}
	rng := rand.New(rand.NewSource(2))
	for i := 0; i < 2000; i++ {
		readAsDecoded(t, plain, text(mutate(rng, validResult(), 1+rng.Intn(3))))
	}
}

func FuzzFindingsReadAsDecoded(f *testing.F) {
	for _, fm := range forms() {
		f.Add(fm.raw)
	}
	for _, e := range escapes {
		f.Add(strings.Replace(text(validResult()), `"claim":"`, `"claim":"`+e, 1))
	}
	f.Fuzz(func(t *testing.T, raw string) { readAsDecoded(t, plain, raw) })
}
