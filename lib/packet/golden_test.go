package packet

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jaekit/spar/lib/document"
	"github.com/jaekit/spar/lib/envelope"
)

var update = flag.Bool("update", false, "rewrite the golden packets in testdata/packet")

func goldenRun() *envelope.Run {
	rule := document.FromText("/repo", "/repo/AGENTS.md", "# Rules\nNo network in tests.\nKeep `spar` fast.\n", "rule", "config")
	crit := document.FromText("/repo", "/elsewhere/criteria.md", "AC-1 login links expire\nAC-2 a used link fails", "criteria", "argument")
	return &envelope.Run{
		Repo: "/repo", Stage: "code",
		Base: "1111111111111111111111111111111111111111", Head: "2222222222222222222222222222222222222222",
		Out: "/repo/.spar/login-link/code-1", Series: "/repo/.spar/login-link", Name: "code-1",
		CheckPaths:  []string{"checks/**", "**/*_test.go"},
		Documents:   []envelope.Document{rule, crit},
		CriteriaIDs: []string{"AC-1", "AC-2"},
		Decisions:   []envelope.Decision{},
		Standpoints: []envelope.Standpoint{},
		Changes: []envelope.Change{
			{Path: "app/login.go", Status: "M", Added: 12, Deleted: 3},
			{Path: "checks/login_test.go", Status: "A", Added: 40, CheckPath: true},
			{Path: "app/new name.go", OldPath: "app/old.go", Status: "R", Added: 1, Deleted: 1},
			{Path: "assets/logo.png", Status: "M", Added: -1, Deleted: -1},
		},
	}
}

func goldenConfig() *envelope.Config {
	return &envelope.Config{
		Angles: []string{"requirement-counterexample", "side-effects", "design", "premises", "check-validity"},
		Reviewers: []envelope.Reviewer{
			{Name: "claude", Preset: "claude"}, {Name: "codex", Preset: "codex"}, {Name: "agy", Preset: "agy"},
			{Name: "native", Preset: "native"}, {Name: "ext", Preset: "command"},
		},
	}
}

var goldenDecisions = []envelope.Decision{
	{Decision: "Links expire after 15 minutes", Quote: "15 minutes, not an hour."},
	{Decision: "  -- starts with dashes, keeps its spaces  \n```\nfenced\n```", Quote: "= yes: as written\n"},
}

var goldenStandpoints = []envelope.Standpoint{
	{Reviewer: "codex", Text: "Replay: can a used link be used again?"},
	{Reviewer: "ext", Text: "  token entropy  "},
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("..", "..", "testdata", "packet", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./lib/packet -update)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the golden file (go test ./lib/packet -update rewrites it):\n%s", name, firstDiff(string(want), got))
	}
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) && i < len(bl); i++ {
		if al[i] != bl[i] {
			return "line " + itoa(i+1) + ":\nwant: " + al[i] + "\n got: " + bl[i]
		}
	}
	return "lengths differ"
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

func inputsText(in []envelope.Input) string {
	b, _ := json.MarshalIndent(in, "", "  ")
	return string(b) + "\n"
}

// section removes the "## title" section (up to the next "## ").
func withoutSection(md, title string) string {
	start := strings.Index(md, "## "+title+"\n")
	if start < 0 {
		return md
	}
	end := strings.Index(md[start+1:], "\n## ")
	return md[:start] + md[start+1+end+1:]
}

// TestGolden_Packets: packet.md and the reviewer inputs of a round without
// decisions and standpoints, with decisions, with standpoints, and with
// both; and the byte-for-byte rule: removing the optional sections from
// the richer packets gives exactly the plain packet, and without
// standpoints the inputs, schema and sha256 are the plain ones.
func TestGolden_Packets(t *testing.T) {
	cfg := goldenConfig()
	plainRun := goldenRun()
	plain := Build(plainRun, cfg)
	golden(t, "plain.md", plain.Markdown)
	golden(t, "plain.inputs.json", inputsText(plain.Inputs))
	if plain.Schema != Schema {
		t.Error("a round without standpoints must get schema.json unchanged")
	}

	dr := goldenRun()
	dr.Decisions = goldenDecisions
	dec := Build(dr, cfg)
	golden(t, "decisions.md", dec.Markdown)

	sr := goldenRun()
	sr.Standpoints = goldenStandpoints
	sp := Build(sr, cfg)
	golden(t, "standpoints.md", sp.Markdown)
	golden(t, "standpoints.inputs.json", inputsText(sp.Inputs))
	if sp.Schema != SchemaStandpoints {
		t.Error("a round with standpoints must get the standpoint schema")
	}

	br := goldenRun()
	br.Decisions, br.Standpoints = goldenDecisions, goldenStandpoints
	both := Build(br, cfg)
	golden(t, "decisions-standpoints.md", both.Markdown)

	// A plan round with a subject document, an empty criteria document and
	// a name that needs quoting.
	pr := goldenRun()
	pr.Stage, pr.CheckPaths, pr.Changes = "plan", nil, []envelope.Change{{Path: "docs/`odd` name.md", Status: "A", Added: 3}}
	pr.Documents = append(pr.Documents[:1],
		document.FromText("/repo", "/repo/docs/PLAN.md", "# Plan\n\n1. Links expire.\n", "subject", "argument"),
		document.FromText("/repo", "/tmp/empty.md", "", "criteria", "argument"))
	pr.CriteriaIDs = []string{}
	golden(t, "plan-subject.md", Build(pr, cfg).Markdown)

	// A follow-up round (docs/review-round.md §2.4): the delta first, the
	// earlier findings with their decisions; removing its two sections
	// gives the plain packet; --full (follow_up.full) is the plain packet.
	fr := goldenRun()
	fr.FollowUp = &envelope.FollowUp{Since: "1111111111111111111111111111111111111111", SinceRound: "code-1",
		Delta:   []envelope.Change{{Path: "app/link.go", Status: "M", Added: 2, Deleted: 1}},
		Earlier: []string{"code-1/codex-F1", "code-1/codex-F2", "code-1/claude-F1"}}
	fr.DeltaDiff = "diff --git a/app/link.go b/app/link.go\n--- a/app/link.go\n+++ b/app/link.go\n@@ -3 +3,2 @@\n-\treturn ttl\n+\tif ttl <= 0 { return 0 }\n+\treturn ttl\n"
	fr.EarlierFindings = []envelope.EarlierFinding{
		{Round: "code-1", Finding: "codex-F1", Reviewer: "codex", Class: "defect", Location: "head/app/link.go:3", Claim: "A link never expires when ttl is 0", Evidence: "return ttl",
			Disposition: &envelope.Disposition{Kind: "fixed", Commit: "1111111111111111111111111111111111111111", FailedBefore: "go test ./app -run TestTTL", PassedAfter: "go test ./app -run TestTTL"}},
		{Round: "code-1", Finding: "codex-F2", Reviewer: "codex", Class: "requirement-question", Location: "docs/criteria.md:2", Claim: "Must a used link fail ```twice```?", Evidence: "",
			Disposition: &envelope.Disposition{Kind: "answered", UserQuote: "Yes, the second use fails."}},
		{Round: "code-1", Finding: "claude-F1", Reviewer: "claude", Class: "hardening", Location: "head/app/link.go:9", Claim: "The token could be longer", Evidence: "32 bytes",
			Disposition: &envelope.Disposition{Kind: "deferred", Auto: true, To: "automatic deferral of hardening at record"}},
	}
	follow := Build(fr, cfg)
	golden(t, "follow-up.md", follow.Markdown)
	if got := withoutSection(withoutSection(follow.Markdown, "Since the last reviewed round"), "Earlier findings"); got != plain.Markdown {
		t.Errorf("a follow-up added more than its sections:\n%s", firstDiff(plain.Markdown, got))
	}
	fr.FollowUp = &envelope.FollowUp{Full: true}
	if got := Build(fr, cfg).Markdown; got != plain.Markdown {
		t.Errorf("--full is not the plain packet:\n%s", firstDiff(plain.Markdown, got))
	}

	if got := withoutSection(dec.Markdown, "Decisions the user made"); got != plain.Markdown {
		t.Errorf("decisions added more than their section:\n%s", firstDiff(plain.Markdown, got))
	}
	if got := withoutSection(sp.Markdown, "Standpoints for this round"); got != plain.Markdown {
		t.Errorf("standpoints added more than their section:\n%s", firstDiff(plain.Markdown, got))
	}
	if got := withoutSection(both.Markdown, "Standpoints for this round"); got != dec.Markdown {
		t.Errorf("standpoints with decisions:\n%s", firstDiff(dec.Markdown, got))
	}
	// Without standpoints: no input.md, no standpoint words anywhere.
	for _, in := range plain.Inputs {
		for _, f := range in.Files {
			if f.Name == InputFile {
				t.Errorf("%s: input.md in a round without standpoints", in.Reviewer)
			}
		}
		if strings.Contains(in.Text, "standpoint") {
			t.Errorf("%s: standpoint text in a round without standpoints", in.Reviewer)
		}
	}
	// With standpoints: every reviewer has input.md holding exactly its input.
	for _, in := range sp.Inputs {
		var got *envelope.NamedText
		for i := range in.Files {
			if in.Files[i].Name == InputFile {
				got = &in.Files[i]
			}
		}
		if got == nil || got.Text != in.Text {
			t.Errorf("%s: input.md is not exactly its input", in.Reviewer)
		}
		// The packet in every input is the shared packet, unchanged.
		if in.Preset != "native" && !strings.HasSuffix(in.Text, sp.Markdown) {
			t.Errorf("%s: the input does not end with the shared packet", in.Reviewer)
		}
	}
	if plain.SHA256 == dec.SHA256 || plain.SHA256 == sp.SHA256 || dec.SHA256 == both.SHA256 {
		t.Error("packet_sha256 must change when decisions or standpoints change")
	}
}

// TestPacketSHA256_ChangesExactlyWithContent: the same run gives the same
// bytes; each change of a value the packet shows changes the digest; what
// the packet does not show (round name, folder, dry run, the reviewers of
// this run) leaves it unchanged, so a rerun keeps its packet_sha256.
func TestPacketSHA256_ChangesExactlyWithContent(t *testing.T) {
	cfg := goldenConfig()
	base := Build(goldenRun(), cfg).SHA256
	same := []func(r *envelope.Run, c *envelope.Config){
		func(r *envelope.Run, c *envelope.Config) { r.Out, r.Name = "/repo/.spar/login-link/code-2", "code-2" },
		func(r *envelope.Run, c *envelope.Config) { r.DryRun = true },
		func(r *envelope.Run, c *envelope.Config) { c.Reviewers = c.Reviewers[:1] },
	}
	for i, f := range same {
		r, c := goldenRun(), goldenConfig()
		f(r, c)
		if got := Build(r, c).SHA256; got != base {
			t.Errorf("unchanged content %d changed the digest", i)
		}
	}
	differ := map[string]func(r *envelope.Run, c *envelope.Config){
		"stage":      func(r *envelope.Run, c *envelope.Config) { r.Stage = "plan" },
		"head":       func(r *envelope.Run, c *envelope.Config) { r.Head = strings.Repeat("3", 40) },
		"base":       func(r *envelope.Run, c *envelope.Config) { r.Base = strings.Repeat("3", 40) },
		"series":     func(r *envelope.Run, c *envelope.Config) { r.Series = "/repo/.spar/other" },
		"angles":     func(r *envelope.Run, c *envelope.Config) { c.Angles = c.Angles[1:] },
		"check path": func(r *envelope.Run, c *envelope.Config) { r.CheckPaths = r.CheckPaths[:1] },
		"rule text":  func(r *envelope.Run, c *envelope.Config) { r.Documents[0].Lines[1] = "No network." },
		"decision": func(r *envelope.Run, c *envelope.Config) {
			r.Decisions = []envelope.Decision{{Decision: "a", Quote: "b"}}
		},
		"decision nl": func(r *envelope.Run, c *envelope.Config) {
			r.Decisions = []envelope.Decision{{Decision: "a\n", Quote: "b"}}
		},
		"standpoint": func(r *envelope.Run, c *envelope.Config) {
			r.Standpoints = []envelope.Standpoint{{Reviewer: "codex", Text: "x"}}
		},
		"change": func(r *envelope.Run, c *envelope.Config) { r.Changes[0].Added++ },
	}
	seen := map[string]string{base: "base"}
	for name, f := range differ {
		r, c := goldenRun(), goldenConfig()
		f(r, c)
		got := Build(r, c).SHA256
		if prev, dup := seen[got]; dup {
			t.Errorf("%s gives the same digest as %s", name, prev)
		}
		seen[got] = name
	}
	// Two decisions that differ only by a trailing newline stay apart.
	a, b := goldenRun(), goldenRun()
	a.Decisions = []envelope.Decision{{Decision: "a", Quote: "b"}}
	b.Decisions = []envelope.Decision{{Decision: "a\n", Quote: "b"}}
	if Build(a, cfg).SHA256 == Build(b, cfg).SHA256 {
		t.Error("a trailing newline in a decision must change the packet")
	}
}

// TestAgy_LargePacketGoesToPACKETmd: over AgyArgLimit, -p holds the note,
// the instruction and a reference; PACKET.md holds the packet.
func TestAgy_LargePacketGoesToPACKETmd(t *testing.T) {
	r := goldenRun()
	big := strings.Repeat("x\n", AgyArgLimit/2+10)
	r.Documents = append(r.Documents, document.FromText("/repo", "/repo/big.md", big, "rule", "argument"))
	cfg := &envelope.Config{Angles: goldenConfig().Angles, Reviewers: []envelope.Reviewer{{Name: "agy", Preset: "agy"}}}
	p := Build(r, cfg)
	in := p.Inputs[0]
	if len(in.Files) != 1 || in.Files[0].Name != AgyPacketFile || in.Files[0].Text != p.Markdown {
		t.Fatalf("files: %+v", in.Files)
	}
	if strings.Contains(in.Text, "# Review packet") || !strings.HasPrefix(in.Text, AgyNote) ||
		!strings.Contains(in.Text, "/repo/.spar/login-link/code-1/agy/PACKET.md") || in.PromptFile != "agy/PACKET.md" {
		t.Fatalf("-p text: %q (prompt_file %q)", in.Text, in.PromptFile)
	}
	// Standpoint round: input.md holds the -p text, PACKET.md the packet.
	r.Standpoints = []envelope.Standpoint{{Reviewer: "agy", Text: "x"}}
	p = Build(r, cfg)
	in = p.Inputs[0]
	if len(in.Files) != 2 || in.Files[1].Name != InputFile || in.Files[1].Text != in.Text || in.Files[0].Text != p.Markdown {
		t.Fatalf("standpoint files: %+v", in.Files)
	}
	// At the limit the packet stays in -p.
	small := goldenRun()
	p = Build(small, cfg)
	if len(p.Markdown) > AgyArgLimit || len(p.Inputs[0].Files) != 0 || !strings.HasSuffix(p.Inputs[0].Text, p.Markdown) {
		t.Fatal("a small packet must be in -p")
	}
}
