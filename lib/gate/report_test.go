package gate

import (
	"github.com/jaekit/spar/lib/envelope"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jaekit/spar/lib/escape"
)

// reason splits its format at "; to clear: " with the arguments that go
// with each part, so that the record's line and the Reason agree.
func TestReasonSplit(t *testing.T) {
	g := &gate{rec: &Record{}}
	g.reason("1", "%s: round %s at 100%% (%d)%s to clear: %s %q", "s", "r", 3, ";", "spar gate", "x y")
	g.reason("9", "%s: round %s: %v; to clear: spar triage %s %s", "s", "a\nb", "bad", "dir", "id")
	g.reason("13", "only a problem %s", "here")
	g.finish()
	want := []Reason{
		{Code: "1", Problem: `s: round r at 100% (3); to clear: spar gate "x y"`},
		{Code: "9", Problem: `s: round a\nb: bad`, Clear: "spar triage dir id"},
		{Code: "13", Problem: "only a problem here"},
	}
	// The first format has no "; to clear: " of its own: it is all problem.
	for i, w := range want {
		if g.reasons[i] != w {
			t.Errorf("reason %d: %+v, want %+v", i, g.reasons[i], w)
		}
		if g.rec.Reasons[i] != w.Line() {
			t.Errorf("record %d: %q, want %q", i, g.rec.Reasons[i], w.Line())
		}
		if d := g.rec.ReasonDetails[i]; d.Code != w.Code || d.Problem != w.Problem || d.Clear != w.Clear {
			t.Errorf("record detail %d: %+v, want %+v", i, d, w)
		}
	}
	g.menu("defect")
	if g.reasons[2].Menu != "defect" || g.reasons[1].Menu != "" {
		t.Errorf("menu marks the last reason only: %+v", g.reasons)
	}
}

func TestCommandOf(t *testing.T) {
	for clear, want := range map[string][2]string{
		"spar triage d id --as fixed --commit REV":                    {"", "spar triage d id --as fixed --commit REV"},
		"rerun it: spar run --repo r --out s/code-2":                  {"rerun it", "spar run --repo r --out s/code-2"},
		"record it (spar record ROUND --transcript FILE): spar run x": {"record it (spar record ROUND --transcript FILE)", "spar run x"},
		"give one, as checked by: git -C r rev-parse --verify 'x'":    {"give one, as checked by", "git -C r rev-parse --verify 'x'"},
		"restore it, or remove the round folder s/r":                  {"restore it, or remove the round folder s/r", ""},
		"leave it out: spar gate 'a: spar b'":                         {"leave it out", "spar gate 'a: spar b'"},
	} {
		w, c := CommandOf(clear)
		if w != want[0] || c != want[1] {
			t.Errorf("%q: (%q, %q), want %q", clear, w, c, want)
		}
	}
}

// The one command a reason names is the first disposition of its class;
// the menu lists them all, the same table.
func TestDispositionsAndMenu(t *testing.T) {
	if got := triageHint("reviews/a b/code-1", "x-F1", "defect", "code"); got != "spar triage 'reviews/a b/code-1' x-F1 --as fixed --commit REV --check CMD" {
		t.Errorf("code defect: %s", got)
	}
	if got := triageHint("r", "x-F1", "defect", "plan"); got != "spar triage r x-F1 --as fixed --commit REV" {
		t.Errorf("plan defect: %s", got)
	}
	if got := triageHint("r", "x-F2", "requirement-question", "code"); got != "spar triage r x-F2 --as answered --user-quote WORDS" {
		t.Errorf("question: %s", got)
	}
	label, cmds := MenuLine("requirement-question")
	if label != "a requirement-question closes with" || strings.Join(cmds, " | ") != "spar triage ROUND ID --as answered --user-quote WORDS | --as rejected --evidence TEXT | --as deferred --to WHERE --user-quote WORDS | --as duplicate --of ID" {
		t.Errorf("%s: %q", label, cmds)
	}
	for _, c := range cmds {
		if strings.Contains(c, "fixed") || strings.Contains(c, "accepted") {
			t.Errorf("docs/review-round.md §8.2: %q does not close a question", c)
		}
	}
	_, cmds = MenuLine("defect")
	if len(cmds) != 5 || cmds[0] != "spar triage ROUND ID --as fixed --commit REV (in a code round also --check CMD, or --failed-before CHECK --passed-after CHECK)" {
		t.Errorf("defect: %q", cmds)
	}
	if label, cmds := MenuLine(waiverMenu); !strings.Contains(label, "required reviewer") || cmds[0] != "spar waive ROUND --reviewer NAME --user-quote WORDS" {
		t.Errorf("%s: %q", label, cmds)
	}
}

func TestLinesAndVerdict(t *testing.T) {
	fix := "40af6fdc2bbc7587f13c0c18fda0f59b4a1ad9e9"
	rep := &Report{
		Record: &Record{State: Blocked, Reasons: []string{"a; to clear: spar x", "b; to clear: spar y", "c"},
			Rounds: []RoundRef{{Series: "reviews/s"}, {Series: "reviews/s"}, {Series: "reviews/t"}},
			Head:   &Head{Commit: &fix, Source: HeadFromExpect}, ExpectHead: &ExpectHead{Rev: "my head", Commit: &fix}},
		Reasons: []Reason{{Problem: "a", Clear: "spar x", Menu: "defect"}, {Problem: "b", Clear: "spar y", Menu: "defect"}, {Problem: "c", Menu: waiverMenu}},
	}
	got := rep.Lines()
	if len(got) != 6 {
		t.Fatalf("%q", got)
	}
	if got[0] != "blocked by 3 reasons: 3 rounds of reviews/s, reviews/t, head "+fix+" (--expect-head 'my head')" {
		t.Errorf("verdict: %s", got[0])
	}
	if got[1] != "blocked: a; to clear: spar x" || got[3] != "blocked: c" {
		t.Errorf("reasons: %q", got[1:4])
	}
	if !strings.HasPrefix(got[4], "a defect closes with: ") || !strings.HasPrefix(got[5], "a required reviewer") {
		t.Errorf("menus, once each: %q", got[4:])
	}
	rep.Record = &Record{State: Passed, Rounds: []RoundRef{{Series: "s"}}, Head: &Head{Source: HeadFromRepo}}
	if v := rep.Verdict(); v != "passed: 1 round of s, no head (the repository's HEAD does not resolve)" {
		t.Errorf("%s", v)
	}
	rep.Record = &Record{State: Blocked, Reasons: []string{"x"}}
	if v := rep.Verdict(); v != "blocked by 1 reason: 0 rounds, no head (no round of the list was recorded)" {
		t.Errorf("%s", v)
	}
}

func TestMarkdownPieces(t *testing.T) {
	for in, want := range map[string]string{
		"spar gate a":  "`spar gate a`",
		"a `b` c":      "`` a `b` c ``",
		"x | y":        "`x \\| y`",
		"``two``":      "``` ``two`` ```",
		"two\nlines\r": "`two lines `",
	} {
		if got := code(in); got != want {
			t.Errorf("code(%q) = %s, want %s", in, got, want)
		}
	}
	if got := mdText("a_b *c* [d](e) <f> | #g\nh"); got != `a\_b \*c\* \[d\](e) \<f\> \| \#g h` {
		t.Errorf("%s", got)
	}
	rep := &Report{
		Record: &Record{State: Blocked, Reasons: []string{"x"}, Rounds: []RoundRef{{Dir: "s/r", Series: "s", Stage: "code"}}},
		Rounds: []RoundState{{RoundRef: RoundRef{Dir: "s/r", Series: "s", Stage: "code"}, State: "unreadable"}},
		Reasons: []Reason{
			{Problem: "s: round r is unreadable (bad_json)", Clear: "restore it, or remove the round folder s/r"},
			{Problem: "p", Clear: "rerun it: spar run --out s/r-2"},
		},
	}
	for i := 0; i < 3; i++ {
		rep.Findings = append(rep.Findings, FindingState{Round: "s/r", ID: "a-F" + string(rune('1'+i)), Class: "note", Open: i == 2})
	}
	old := MarkdownFindingsMax
	MarkdownFindingsMax = 2
	defer func() { MarkdownFindingsMax = old }()
	md := rep.Markdown()
	for _, want := range []string{
		"# spar gate: blocked\n",
		"| `s/r` | code | unreadable | - | - | no |\n",
		"1. s: round r is unreadable (bad\\_json)  \n   To clear: restore it, or remove the round folder s/r\n",
		"2. p  \n   To clear: rerun it: `spar run --out s/r-2`\n",
		"| `s/r` | `a-F3` | note | **open** | - |\n",
		"2 closed findings not listed: only the open findings are, past 2.\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("no %q in\n%s", want, md)
		}
	}
	if strings.Contains(md, "`a-F1`") || strings.Contains(md, "## Other ways") {
		t.Errorf("closed findings past the bound, or a menu no reason names:\n%s", md)
	}
}

// Targets tells series folders from round folders and refuses a mix,
// naming the series folders; Folders lists a series' rounds for the --out
// checks.
func TestTargets(t *testing.T) {
	dir := t.TempDir()
	mk := func(p, file string) {
		if err := os.MkdirAll(filepath.Join(dir, p), 0o755); err != nil {
			t.Fatal(err)
		}
		if file != "" {
			if err := os.WriteFile(filepath.Join(dir, p, file), []byte(`{"started_at":"2026-01-01T00:00:0`+p[len(p)-1:]+`Z"}`), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	mk("s/code-2", "round.json")
	mk("s/code-1", "round.json")
	mk("t/lost", "findings.json") // a round without round.json: an unreadable round of the series t (round.Folders)
	mk("empty", "")
	s, r1, lost, empty := filepath.Join(dir, "s"), filepath.Join(dir, "s", "code-1"), filepath.Join(dir, "t", "lost"), filepath.Join(dir, "empty")
	rounds, series, err := Targets([]string{r1, lost, empty})
	if err != nil || len(series) != 0 || len(rounds) != 3 {
		t.Errorf("rounds: %q %q %v", rounds, series, err)
	}
	if rounds, series, err := Targets([]string{filepath.Join(dir, "t")}); err != nil || len(rounds) != 0 || len(series) != 1 {
		t.Errorf("a series whose one round lost its round.json: %q %q %v", rounds, series, err)
	}
	rounds, series, err = Targets([]string{s, s + "/"})
	if err != nil || len(rounds) != 0 || len(series) != 2 {
		t.Errorf("series: %q %q %v", rounds, series, err)
	}
	if got := Folders(nil, []string{s}); len(got) != 2 || got[0] != r1 {
		t.Errorf("folders in series order: %q", got)
	}
	_, _, err = Targets([]string{r1, s})
	if err == nil || !strings.Contains(err.Error(), quote(s)+" is a series folder, given among round folders ("+quote(r1)+")") {
		t.Errorf("mixed: %v", err)
	}
}

// TestTrust_TriageTextInTheMarkdownReport: a triage line's detail (the
// agent's evidence, the user's words) and a round folder's name reach the
// Markdown report, which `spar gate --format md` prints to a terminal and
// CI writes into the step summary: a control character in them is shown as
// its Go escape, never raw, and the table keeps its cells.
func TestTrust_TriageTextInTheMarkdownReport(t *testing.T) {
	rep := &Report{
		Record: &Record{State: Blocked, Reasons: []string{"x"}, Rounds: []RoundRef{{Dir: "s/r\x1b[8m", Series: "s", Stage: "code"}}},
		Rounds: []RoundState{{RoundRef: RoundRef{Dir: "s/r\x1b[8m", Series: "s", Stage: "code"}, State: "gated"}},
		Findings: []FindingState{{Round: "s/r\x1b[8m", ID: "a-F1", Class: "defect\x1b[8m", Disposition: "rejected",
			Detail: "hidden \x1b]52;c;ZXZpbA==\x07 | cell\x00 \u2028 next \u202erev"}},
	}
	md := rep.Markdown()
	if i := strings.IndexFunc(md, func(r rune) bool { return r != '\n' && (r < 0x20 || r == 0x7f || r == '\u202e') }); i >= 0 {
		t.Errorf("a raw control character %q in\n%q", md[i], md)
	}
	for _, want := range []string{
		"| `s/r\\x1b[8m` | `a-F1` | defect\\x1b[8m | closed | rejected: hidden \\\\x1b\\]52;c;ZXZpbA==\\\\a \\| cell\\\\x00 \u2028 next \\\\u202erev |\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("no %q in\n%s", want, md)
		}
	}
}

// TestTrust_RecordTextOnTheTerminal: text from records (a reviewer's
// location, a folder name, triage words) reaches the user's terminal
// through `spar status` and the gate's reasons: a C1 control (U+009B is
// CSI on many terminals), a terminal escape or a bidirectional override in
// it is shown escaped, never raw.
func TestTrust_RecordTextOnTheTerminal(t *testing.T) {
	hostile := "app.go:1 \x1b]8;;http://x\x07link \u009b2J \u202eevil"
	raw := func(s string) int {
		return strings.IndexFunc(s, func(r rune) bool { return r != '\n' && escape.Escaped(r) })
	}
	st := &Status{Series: []SeriesStatus{{Series: "s\x1b[8m", State: "blocked", Next: "spar triage",
		Findings: []StatusFinding{{Round: "code-1", ID: "codex-F1", Class: "defect", Location: hostile, Open: true, Blocks: true, Why: "no disposition \u202e"}}}}}
	if i := raw(st.Text()); i >= 0 {
		t.Errorf("spar status shows a raw control or bidi character at %d:\n%q", i, st.Text())
	}
	g := &gate{rec: &Record{}}
	g.reason("9", "%s: round %s: location %s; to clear: %s", "s", "code-1", hostile, "spar triage")
	g.reason("9", "%s: round %s: location %s; to clear: %s", "s", "code-1", "app.go ‮evil 2J", "spar triage")
	g.finish()
	for _, line := range g.rec.Reasons {
		if i := raw(line); i >= 0 {
			t.Errorf("a reason shows a raw control or bidi character at %d: %q", i, line)
		}
	}
}

// TestRequiredLine: which reviewers the gate required and where from, every
// series in one line, so that the laptop's gate and CI's can be compared; a
// reviewer only one side requires says which, an unreadable configuration
// says so.
func TestRequiredLine(t *testing.T) {
	codex := envelope.RequiredReviewer{Name: "codex", Preset: "codex"}
	mine := envelope.RequiredReviewer{Name: "mine", Preset: "claude"}
	agy := envelope.RequiredReviewer{Name: "agy", Preset: "agy"}
	rep := &Report{Record: &Record{
		RequiredReviewers: []Required{{Series: "reviews/a", Name: "codex", Preset: "codex"}, {Series: "reviews/a", Name: "mine", Preset: "claude"},
			{Series: "reviews/a", Name: "agy", Preset: "agy"}, {Series: "reviews/b", Name: "codex", Preset: "codex"}},
		RequiredSources: []RequiredSource{
			{Series: "reviews/a", Round: "code-2", RoundSource: ConfigSource{Kind: "HOME", Path: "/home/u/.config/jaekit/spar.toml"},
				RoundRequired: []envelope.RequiredReviewer{codex, mine}, GateSource: &ConfigSource{Kind: "default"}, GateRequired: []envelope.RequiredReviewer{codex, agy}},
			{Series: "reviews/b", Round: "plan-1", RoundSource: ConfigSource{Kind: "SPAR_CONFIG", Path: "/ci/spar.toml"}, RoundRequired: []envelope.RequiredReviewer{codex}},
		}}}
	want := "required reviewers of reviews/a: codex, mine (claude; round code-2 only), agy (the gate's configuration only); " +
		"from round code-2's configuration (HOME /home/u/.config/jaekit/spar.toml) and the gate's (the default list, no user configuration file); " +
		"required reviewers of reviews/b: codex (round plan-1 only); from round plan-1's configuration (SPAR_CONFIG /ci/spar.toml) and the gate's (unreadable)"
	if got := rep.RequiredLine(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if got := rep.Lines(); len(got) < 2 || got[1] != want {
		t.Errorf("the line after the verdict: %q", got)
	}
	if md := rep.Markdown(); !strings.Contains(md, "\nRequired reviewers of reviews/a: codex, mine") {
		t.Errorf("markdown: %s", md)
	}
	rep.Record = &Record{}
	if got := rep.RequiredLine(); got != "" {
		t.Errorf("no series: %q", got)
	}
}
