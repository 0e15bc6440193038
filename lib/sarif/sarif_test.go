package sarif

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/pipe"
	"github.com/jaekit/spar/lib/round"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

func ptr[T any](v T) *T { return &v }

func sample() []Round {
	rec := &round.Record{Schema: round.Schema, Name: "code-1", Repo: "/repo", Stage: "code", Base: "b", Head: "h",
		Reviewers: []round.Reviewer{
			{Name: "codex", Preset: "codex", Status: "completed", Model: ptr("gpt-6-astra"), ObservedModel: ptr("gpt-6-astra")},
			{Name: "lint", Preset: "command", Status: "completed"},
		}}
	return []Round{{
		Series: "login",
		Record: rec,
		Findings: []envelope.Finding{
			{ID: "codex-F1", Reviewer: "codex", Class: "defect", Angle: "side-effects", Claim: "token compared with ==",
				Path: "app/auth.go", LineStart: ptr(12), LineEnd: ptr(14)},
			{ID: "codex-F2", Reviewer: "codex", Class: "hardening", Angle: "design", Claim: "unreadable", LocationUnreadable: true},
			{ID: "lint-F1", Reviewer: "lint", Class: "requirement-question", Angle: "premises", Claim: "which limit?", Path: "docs/x.md"},
			{ID: "lint-F2", Reviewer: "lint", Class: "defect", Angle: "check-validity", Claim: "weak test", Path: "checks/t_test.go", LineStart: ptr(3)},
		},
		States: map[string]State{
			"codex-F2": {Disposition: "deferred", Closed: true, Detail: "automatic"},
			"lint-F2":  {Disposition: "fixed", Closed: true, Detail: "abc123"},
		},
	}}
}

func TestSARIF_ValidatesAgainstSchema(t *testing.T) {
	schema, err := os.ReadFile(filepath.Join("..", "..", "testdata", "sarif", "sarif-schema-2.1.0.json"))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("sarif.json", bytes.NewReader(schema)); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("sarif.json")
	if err != nil {
		t.Fatal(err)
	}
	b, err := pipe.MarshalIndent(Export(sample()))
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(doc); err != nil {
		t.Fatalf("SARIF does not validate: %#v\n%s", err, b)
	}
	// The schema must be able to fail: a result without a message is invalid.
	bad := map[string]any{"version": "2.1.0", "runs": []any{map[string]any{"tool": map[string]any{"driver": map[string]any{"name": "x"}}, "results": []any{map[string]any{"ruleId": "x"}}}}}
	if err := sch.Validate(bad); err == nil {
		t.Fatal("schema accepted a result without a message")
	}
}

func TestSARIF_Mapping(t *testing.T) {
	log := Export(sample())
	if len(log.Runs) != 2 {
		t.Fatalf("runs = %d, want one per reviewer", len(log.Runs))
	}
	codex := log.Runs[0]
	if codex.Tool.Driver.Name != "spar/codex" || codex.Tool.Driver.Properties["model"] != "gpt-6-astra" {
		t.Errorf("codex driver = %+v", codex.Tool.Driver)
	}
	f1 := codex.Results[0]
	if f1.Level != "error" || f1.RuleID != "defect/side-effects" || f1.Suppressions != nil {
		t.Errorf("open defect = %+v", f1)
	}
	if r := f1.Locations[0].PhysicalLocation.Region; r == nil || r.StartLine != 12 || r.EndLine != 14 {
		t.Errorf("region = %+v", r)
	}
	if f1.PartialFingerprints[FingerprintKey] != "code-1/codex-F1" {
		t.Errorf("fingerprint = %v", f1.PartialFingerprints)
	}
	f2 := codex.Results[1]
	if f2.Level != "note" || len(f2.Locations) != 0 || len(f2.Suppressions) != 1 {
		t.Errorf("unreadable deferred hardening = %+v", f2)
	}
	lint := log.Runs[1]
	if lint.Results[0].Level != "warning" || lint.Results[0].Locations[0].PhysicalLocation.Region != nil {
		t.Errorf("question = %+v", lint.Results[0])
	}
	if s := lint.Results[1].Suppressions; len(s) != 1 || s[0].Justification != "fixed: abc123" {
		t.Errorf("fixed defect suppressions = %+v", s)
	}
}
