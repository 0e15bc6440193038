package codehost

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/round"
	"github.com/jaekit/spar/lib/sarif"
)

func line(n int) *int { return &n }

// rounds: code-1 with an open defect, a closed defect, an open hardening
// and an unreadable location; code-2 with a defect triaged as a duplicate
// of code-1's open defect (open: its chain ends in an open finding).
func rounds() []sarif.Round {
	r1 := sarif.Round{Series: "s", Record: &round.Record{Name: "code-1"},
		Findings: []envelope.Finding{
			{ID: "codex-F1", Class: "defect", CommittedClass: "defect", Angle: "design", Claim: "a  claim\nover lines", Path: "app/a.go", LineStart: line(3), LineEnd: line(5)},
			{ID: "codex-F2", Class: "defect", CommittedClass: "defect", Angle: "design", Claim: "fixed one", Path: "app/b.go", LineStart: line(1)},
			{ID: "codex-F3", Class: "hardening", CommittedClass: "hardening", Angle: "premises", Claim: "harden", Path: "app/c.go"},
			{ID: "codex-F4", Class: "note", CommittedClass: "defect", Angle: "premises", Claim: "only through a glob", Location: "nowhere:9", LocationUnreadable: true},
		},
		States: map[string]sarif.State{
			"codex-F1": {Blocks: true}, "codex-F2": {Disposition: "fixed", Closed: true, Detail: "abc"},
			"codex-F3": {}, "codex-F4": {Blocks: true},
		}}
	r2 := sarif.Round{Series: "s", Record: &round.Record{Name: "code-2"},
		Findings: []envelope.Finding{{ID: "claude-F1", Class: "defect", CommittedClass: "defect", Angle: "design", Claim: "again", Path: "app/a.go", LineStart: line(4)}},
		States:   map[string]sarif.State{"claude-F1": {Disposition: "duplicate", Detail: "code-1/codex-F1", Blocks: true}}}
	return []sarif.Round{r1, r2}
}

func TestRDJSONL_OpenFindingsOnly(t *testing.T) {
	lines := strings.Split(strings.TrimSuffix(string(RDJSONL(rounds())), "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d diagnostics, want 4 (the closed one left out):\n%s", len(lines), strings.Join(lines, "\n"))
	}
	var ds []Diagnostic
	for _, l := range lines {
		var d Diagnostic
		if err := json.Unmarshal([]byte(l), &d); err != nil {
			t.Fatal(err)
		}
		ds = append(ds, d)
	}
	want := []struct{ code, sev, path string }{
		{"code-1/codex-F1", "ERROR", "app/a.go"},
		{"code-1/codex-F3", "WARNING", "app/c.go"},
		{"code-1/codex-F4", "ERROR", "."}, // a note only through a glob blocks as its committed class
		{"code-2/claude-F1", "ERROR", "app/a.go"},
	}
	for i, w := range want {
		d := ds[i]
		if d.Code.Value != w.code || d.Severity != w.sev || d.Location.Path != w.path {
			t.Errorf("diagnostic %d: %s %s %s, want %+v", i, d.Code.Value, d.Severity, d.Location.Path, w)
		}
	}
	if r := ds[0].Location.Range; r == nil || r.Start.Line != 3 || r.End == nil || r.End.Line != 5 {
		t.Errorf("range %+v, want 3 to 5", r)
	}
	if ds[1].Location.Range != nil {
		t.Errorf("a finding without lines has a range: %+v", ds[1].Location.Range)
	}
	if !strings.Contains(ds[2].Message, `location "nowhere:9" names no file of the change: shown at the repository root`) {
		t.Errorf("unreadable location: %q", ds[2].Message)
	}
	if !strings.Contains(ds[0].Message, "a claim over lines") {
		t.Errorf("message %q: the claim on one line", ds[0].Message)
	}
}

func TestCodeQuality_SeverityAndFingerprint(t *testing.T) {
	var issues []Issue
	if err := json.Unmarshal(CodeQuality(rounds()), &issues); err != nil {
		t.Fatal(err)
	}
	if len(issues) != 4 {
		t.Fatalf("%d issues, want 4", len(issues))
	}
	sev := []string{issues[0].Severity, issues[1].Severity, issues[2].Severity, issues[3].Severity}
	if strings.Join(sev, " ") != "blocker minor blocker blocker" {
		t.Errorf("severities %v", sev)
	}
	if issues[0].Fingerprint != issues[3].Fingerprint {
		t.Errorf("a finding and its duplicate in a later round: %s, %s", issues[0].Fingerprint, issues[3].Fingerprint)
	}
	if issues[0].Fingerprint == issues[1].Fingerprint {
		t.Error("two findings share a fingerprint")
	}
	if issues[0].CheckName != "spar/defect/design" || issues[0].Location.Lines.Begin != 3 || issues[1].Location.Lines.Begin != 1 {
		t.Errorf("%+v %+v", issues[0], issues[1])
	}
	if issues[2].Location.Path != "." {
		t.Errorf("unreadable location at %q", issues[2].Location.Path)
	}
	// Stable: the same input gives the same fingerprints.
	var again []Issue
	json.Unmarshal(CodeQuality(rounds()), &again)
	if again[0].Fingerprint != issues[0].Fingerprint {
		t.Error("fingerprint not stable")
	}
	if string(CodeQuality(nil)) != "[]\n" {
		t.Errorf("nothing open: %q", CodeQuality(nil))
	}
}

func TestStepSummary_CutBeforeTheLimit(t *testing.T) {
	short := "# report\n"
	if StepSummary(short) != short {
		t.Error("a short report changed")
	}
	long := strings.Repeat("a line of the report\n", StepSummaryLimit/20)
	got := StepSummary(long)
	if len(got) > StepSummaryLimit {
		t.Fatalf("%d bytes, more than the limit", len(got))
	}
	if !strings.HasSuffix(got, "`spar gate` prints it whole (`--format md`), and its reasons on stderr.**\n") {
		t.Errorf("no last line saying it was cut: %q", got[len(got)-200:])
	}
	if !strings.Contains(got, "a line of the report\n\n**The report was cut here") {
		t.Error("not cut at a line")
	}
}

// shifted is a line map from a round's head to the gated head: one line
// added at the top of app/a.go, line 9 of app/c.go deleted.
type shifted struct{}

func (shifted) Map(path string, start, end int) (string, int, int, bool) {
	if path == "app/c.go" && start <= 9 && end >= 9 {
		return "", 0, 0, false
	}
	return path, start + 1, end + 1, true
}

// A round of an earlier head: its findings are placed where their lines
// read at the gated head, as in the SARIF log (sarif.Place); lines that are
// gone leave the file's start and say so.
func TestFormats_PlacedAtTheGatedHead(t *testing.T) {
	r := sarif.Round{Series: "s", Record: &round.Record{Name: "code-1", Head: "aaaa"}, GatedHead: "bbbb", Lines: shifted{},
		Findings: []envelope.Finding{
			{ID: "codex-F1", Class: "defect", CommittedClass: "defect", Angle: "design", Claim: "moved", Path: "app/a.go", LineStart: line(3), LineEnd: line(5)},
			{ID: "codex-F2", Class: "defect", CommittedClass: "defect", Angle: "design", Claim: "gone", Path: "app/c.go", LineStart: line(9)},
		},
		States: map[string]sarif.State{"codex-F1": {Blocks: true}, "codex-F2": {Blocks: true}}}
	lines := strings.Split(strings.TrimSpace(string(RDJSONL([]sarif.Round{r}))), "\n")
	var moved, gone Diagnostic
	json.Unmarshal([]byte(lines[0]), &moved)
	json.Unmarshal([]byte(lines[1]), &gone)
	if moved.Location.Range == nil || moved.Location.Range.Start.Line != 4 || moved.Location.Range.End.Line != 6 {
		t.Errorf("moved: %+v, want lines 4 to 6", moved.Location.Range)
	}
	if gone.Location.Range != nil || gone.Location.Path != "app/c.go" || !strings.Contains(gone.Message, "no longer exist at the gated head bbbb") {
		t.Errorf("gone: %+v %q", gone.Location, gone.Message)
	}
	var issues []Issue
	json.Unmarshal(CodeQuality([]sarif.Round{r}), &issues)
	if issues[0].Location.Lines.Begin != 4 || issues[1].Location.Lines.Begin != 1 {
		t.Errorf("code quality lines: %+v %+v", issues[0].Location, issues[1].Location)
	}
}

// hostile is an open finding whose reviewer-written text holds terminal
// escapes (SGR colour, an OSC 8 hyperlink, OSC 52 that writes the
// clipboard), NUL and BEL.
func hostile() []sarif.Round {
	return []sarif.Round{{Series: "s", Record: &round.Record{Name: "code-1"},
		Findings: []envelope.Finding{{ID: "codex-F1", Class: "defect", CommittedClass: "defect", Angle: "design",
			Claim:           "red \x1b[31mclaim\x1b[0m \x1b]8;;https://evil.example\x07link\x1b]8;;\x07",
			FailureScenario: "clip \x1b]52;c;ZXZpbA==\x07 nul \x00",
			Evidence:        "bell \x07", SmallestFix: "\x1b[2Jcleared",
			Path: "app/a.go", LineStart: line(3)}},
		States: map[string]sarif.State{"codex-F1": {Blocks: true}}}}
}

// TestTrust_ReviewerTextReachesTheTerminal: reviewdog's local reporter
// prints original_output raw, and CI logs render terminal escapes; every
// text spar writes for a code host shows a control character as its Go
// escape (\x1b), never raw.
func TestTrust_ReviewerTextReachesTheTerminal(t *testing.T) {
	var d Diagnostic
	if err := json.Unmarshal(RDJSONL(hostile()), &d); err != nil {
		t.Fatal(err)
	}
	var issues []Issue
	if err := json.Unmarshal(CodeQuality(hostile()), &issues); err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string]string{"message": d.Message, "original_output": d.OriginalOutput, "description": issues[0].Description} {
		for _, l := range strings.Split(s, "\n") {
			if i := strings.IndexFunc(l, func(r rune) bool { return r < 0x20 || r == 0x7f }); i >= 0 {
				t.Errorf("%s holds the control character %q: %q", name, l[i], l)
			}
		}
	}
	if !strings.Contains(d.OriginalOutput, `red \x1b[31mclaim\x1b[0m \x1b]8;;https://evil.example\alink`) {
		t.Errorf("original_output: %q", d.OriginalOutput)
	}
}

// TestRDJSONL_LongTextUnderReviewdogsLineLimit: reviewdog v0.21.0 reads
// rdjsonl with a bufio.Scanner of 64 KiB and ignores its error: a longer
// line, and every line after it, is dropped without a word and reviewdog
// exits 0 (tried with the real reviewdog). Every Diagnostic spar writes
// stays under it, whatever the reviewer wrote, and says where the whole
// text is.
func TestRDJSONL_LongTextUnderReviewdogsLineLimit(t *testing.T) {
	long := func(c string) string { return strings.Repeat(c, 200<<10) }
	rs := []sarif.Round{{Series: "s", Record: &round.Record{Name: "code-1"},
		Findings: []envelope.Finding{
			{ID: "codex-F1", Class: "defect", CommittedClass: "defect", Angle: "design", Claim: long(`"`), FailureScenario: long(`<`), Evidence: long(`\`), SmallestFix: long("\x1b"), Path: "app/a.go", LineStart: line(3)},
			{ID: "codex-F2", Class: "defect", CommittedClass: "defect", Angle: "design", Claim: long("é"), Location: long("\x00"), LocationUnreadable: true},
			{ID: "codex-F3", Class: "defect", CommittedClass: "defect", Angle: "design", Claim: "short", Path: "app/b.go"},
		},
		States: map[string]sarif.State{"codex-F1": {Blocks: true}, "codex-F2": {Blocks: true}, "codex-F3": {Blocks: true}}}}
	lines := strings.Split(strings.TrimSuffix(string(RDJSONL(rs)), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines, want 3", len(lines))
	}
	for i, l := range lines {
		if len(l)+1 > RDLineMax {
			t.Errorf("diagnostic %d: %d bytes, more than %d", i, len(l)+1, RDLineMax)
		}
		var d Diagnostic
		if err := json.Unmarshal([]byte(l), &d); err != nil {
			t.Fatalf("diagnostic %d: %v", i, err)
		}
		if i < 2 && !strings.Contains(d.Message, "more bytes cut: spar gate --sarif and findings.json hold the whole text") {
			t.Errorf("diagnostic %d does not say it was cut: %q", i, d.Message[len(d.Message)-300:])
		}
		if strings.ContainsRune(d.Message, utf8.RuneError) || strings.ContainsRune(d.OriginalOutput, utf8.RuneError) {
			t.Errorf("diagnostic %d: a cut split a UTF-8 sequence", i)
		}
	}
}
