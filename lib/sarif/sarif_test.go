package sarif

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/pipe"
	"github.com/jaekit/spar/lib/round"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

func ptr[T any](v T) *T { return &v }

func sample() []Round {
	rec := &round.Record{Schema: round.Schema, Name: "code-1", Series: "/repo/reviews/login", Repo: "/repo", Stage: "code", Base: "b", Head: "h",
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
	if d := codex.Tool.Driver; d.Version == "" || d.InformationURI != "https://github.com/jaekit/spar" {
		t.Errorf("driver version %q, informationUri %q", d.Version, d.InformationURI)
	}
	for _, r := range codex.Tool.Driver.Rules {
		if r.FullDescription.Text == "" || r.Help.Text == "" || r.Help.Markdown == "" {
			t.Errorf("rule %s without fullDescription or help: %+v", r.ID, r)
		}
	}
	if h := codex.Tool.Driver.Rules[0].Help.Text; !strings.Contains(h, "An open defect blocks spar's gate") || !strings.Contains(h, "side-effects angle, whose question is: Find what the change breaks") {
		t.Errorf("defect/side-effects help = %q", h)
	}
	// An unreadable location is shown at the round's findings.json, inside
	// the repository.
	f2 := codex.Results[1]
	if l := f2.Locations[0].PhysicalLocation; f2.Level != "note" || len(f2.Suppressions) != 1 ||
		l.ArtifactLocation != (ArtifactLocation{URI: "reviews/login/code-1/findings.json", URIBaseID: "%SRCROOT%"}) || *l.Region != (Region{StartLine: 1}) {
		t.Errorf("unreadable deferred hardening = %+v", f2)
	}
	// A path without lines starts at line 1.
	lint := log.Runs[1]
	if lint.Results[0].Level != "error" || *lint.Results[0].Locations[0].PhysicalLocation.Region != (Region{StartLine: 1}) {
		t.Errorf("question = %+v", lint.Results[0])
	}
	if s := lint.Results[1].Suppressions; len(s) != 1 || s[0].Justification != "fixed: abc123" {
		t.Errorf("fixed defect suppressions = %+v", s)
	}
}

func TestSARIF_NoPlaceInTheChange(t *testing.T) {
	root := envelope.Finding{ID: "x-F1", Reviewer: "x", Class: "note", Angle: "design", Claim: "c", Path: ""}
	for _, c := range []struct {
		name             string
		dir, repo        string
		series, roundNam string
		want             ArtifactLocation
	}{
		{"round inside the repository", "/r/my repo/reviews/s/code-2", "/r/my repo", "", "", ArtifactLocation{URI: "reviews/s/code-2/findings.json", URIBaseID: "%SRCROOT%"}},
		{"round outside it", "/elsewhere/s/code-2", "/r/repo", "", "", ArtifactLocation{URI: "file:///elsewhere/s/code-2/findings.json"}},
		{"the record's series when the gate gave no folder", "", "/r/repo", "/r/repo/reviews/s", "code-3", ArtifactLocation{URI: "reviews/s/code-3/findings.json", URIBaseID: "%SRCROOT%"}},
		{"a sibling folder whose name starts with ..", "/r/repo/..x/s/code-1", "/r/repo", "", "", ArtifactLocation{URI: "..x/s/code-1/findings.json", URIBaseID: "%SRCROOT%"}},
	} {
		r := Round{Dir: c.dir, Record: &round.Record{Repo: c.repo, Series: c.series, Name: c.roundNam}}
		if loc, _ := location(r, root); loc.PhysicalLocation.ArtifactLocation != c.want {
			got := loc.PhysicalLocation.ArtifactLocation
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}

// Repository paths become RFC 3986 URI references (the Multitool's SARIF1002
// refuses "docs/my file.md"); the repository's base URI is escaped too.
func TestSARIF_URIsAreEscaped(t *testing.T) {
	for path, want := range map[string]string{
		"app/auth.go":     "app/auth.go",
		"docs/my file.md": "docs/my%20file.md",
		"a:b.go":          "a%3Ab.go",
		"x/100%.txt":      "x/100%25.txt",
		"q/why?#.md":      "q/why%3F%23.md",
		"über/straße.go":  "%C3%BCber/stra%C3%9Fe.go",
	} {
		if got := relURI(path); got != want {
			t.Errorf("relURI(%q) = %q, want %q", path, got, want)
		}
	}
	if got := fileURI("/home/me/my repo"); got != "file:///home/me/my%20repo" {
		t.Errorf("fileURI = %q", got)
	}
}

// shiftMap is a LineMap of a later head: app.go gained one line at the top,
// its line 9 was changed, old.go was renamed new.go.
type shiftMap struct{}

func (shiftMap) Map(path string, start, end int) (string, int, int, bool) {
	switch {
	case path == "app.go" && start <= 9 && end >= 9:
		return "", 0, 0, false
	case path == "app.go":
		return path, start + 1, end + 1, true
	case path == "old.go":
		return "new.go", start, end, true
	}
	return path, start, end, true
}

// A round of an earlier head: its findings' regions are where the lines read
// at the gated head; lines that no longer exist keep the file, shown at its
// start (line 1), and the result says so. A finding on the base copy is not mapped.
func TestLocation_MappedToGatedHead(t *testing.T) {
	n := func(i int) *int { return &i }
	r := Round{Record: &round.Record{Repo: "/r", Series: "/r/reviews/s", Name: "code-1", Head: "1111111111111111"},
		GatedHead: "2222222222222222", Lines: shiftMap{}}
	for _, c := range []struct {
		f         envelope.Finding
		uri       string
		reg       *Region
		goneWords string
	}{
		{envelope.Finding{Path: "app.go", Location: "head/app.go:44", LineStart: n(44), LineEnd: n(44)}, "app.go", &Region{StartLine: 45, EndLine: 45}, ""},
		{envelope.Finding{Path: "old.go", Location: "old.go:3-4", LineStart: n(3), LineEnd: n(4)}, "new.go", &Region{StartLine: 3, EndLine: 4}, ""},
		{envelope.Finding{Path: "app.go", Location: "head/app.go:8-10", LineStart: n(8), LineEnd: n(10)}, "app.go", &Region{StartLine: 1},
			"lines 8-10 of app.go at the round's head 111111111111 no longer exist at the gated head 222222222222"},
		{envelope.Finding{Path: "app.go", Location: "base/app.go:44", LineStart: n(44), LineEnd: n(44)}, "app.go", &Region{StartLine: 44, EndLine: 44}, ""},
	} {
		loc, gone := location(r, c.f)
		pl := loc.PhysicalLocation
		if pl.ArtifactLocation.URI != c.uri || !reflect.DeepEqual(pl.Region, c.reg) || gone != c.goneWords {
			t.Errorf("%s: %s %+v %q, want %s %+v %q", c.f.Location, pl.ArtifactLocation.URI, pl.Region, gone, c.uri, c.reg, c.goneWords)
		}
	}
	// the result says why it has no region
	res := result(r, envelope.Finding{ID: "x-F1", Claim: "c", Path: "app.go", Location: "app.go:9", LineStart: n(9), LineEnd: n(9)}, "defect/design", 0, "code-1/x-F1")
	if !strings.Contains(res.Message.Text, "no longer exist at the gated head") || res.Properties["region"] == nil || res.Locations[0].PhysicalLocation.Region.StartLine != 1 {
		t.Errorf("%+v", res)
	}
}
