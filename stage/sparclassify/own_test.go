package sparclassify

// Cases of our own beyond the representative forms: every "result outside the format" of
// G7, G8, G9 and G24, and the envelope faults spar-classify refuses, run
// through Main.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jaekit/spar/lib/envelope"
)

var ownRepo = repoSpec{
	Base: map[string]fileSpec{
		"old.go":      {Text: "package old\n"},
		"AGENTS.md":   {Text: "base agents\n"},
		"checks/t.py": {Text: "1\n2\n3\n"},
	},
	Head: map[string]fileSpec{
		"checks/t.py":       {Text: "1\n2\n3\n"},
		"checks/my test.py": {Text: "a\n"},
		"app/x_test.go":     {Text: "package app\n"},
		"AGENTS.md":         {Text: "# Agents\nline 2\n"},
		"link.go":           {Symlink: "checks/t.py"},
		"vendor/sub":        {Submodule: true},
		"tools/run.sh":      {Text: "#!/bin/sh\ntrue\n", Executable: true},
		"nonl.md":           {Text: "a\nb"},
		"empty.md":          {Text: ""},
		"plain.md":          {Text: "not a rule\n"},
		"a:1.txt":           {Text: "a file whose name holds a colon\n"},
	},
	Documents: []docSpec{
		{Role: "rule", Place: "repository", Name: "AGENTS.md", Text: "# Agents\nline 2\n"},
		{Role: "criteria", Place: "repository", Name: "docs/AC.md", Text: "AC-1 AC-2\nAC-01\n"},
		{Role: "subject", Place: "outside", Name: "plan.md", Text: "p1\np2\n"},
		{Role: "rule", Place: "outside", Name: "style.md", Text: "s1\n"},
		{Role: "criteria", Place: "outside", Name: "other/style.md", Text: "s2\n"},
	},
}

// G7: results outside the format are unreadable locations; accepted edge
// forms land where the grammar says (docs/review-round.md §6.2).
func TestG7_Own(t *testing.T) {
	r := buildRepo(t, ownRepo)
	cases := []struct {
		location string
		path     string // "" with unreadable
		bad      string // the reason inside "unreadable location (...)"
		check    bool
	}{
		{"head/checks/t.py:10x", "", `outside the grammar: 'x' after line 10`, false},
		{"head/checks/t.py:10-", "", `outside the grammar: '-' after line 10`, false},
		{"head/checks/t.py:1–x", "", `outside the grammar: '–' after line 1`, false},
		{"/etc/passwd:1", "", `no target: "/etc/passwd" is not a file or folder of head or base or a round document`, false},
		{"../checks/t.py:1", "", `no target: "../checks/t.py" is not a file or folder of head or base or a round document`, false},
		{"head/../checks/t.py", "", `no target: "head/../checks/t.py" is not a file or folder of head or a round document`, false},
		{"head//checks/t.py:1", "", `no target: "head//checks/t.py" is not a file or folder of head or a round document`, false},
		{"base/checks/my test.py:1", "", `no target: "base/checks/my test.py" is not a file or folder of base`, false},
		{"head/old.go:1", "", `no target: "head/old.go" is not a file or folder of head or a round document`, false},
		{"head/checks/t.py:99999999999", "", `line 99999999999 too large`, false},
		{" \t\u3000", "", `empty location`, false},
		{"head/vendor/sub", "", `no target: "head/vendor/sub" is not a file or folder of head or a round document`, false},
		{"vendor", "", `no target: "vendor" is not a file or folder of head or base or a round document`, false},
		{"style.md:1", "", `no target: "style.md" is not a file or folder of head or base or a round document`, false},
		{"base/plan.md:1", "", `no target: "base/plan.md" is not a file or folder of base`, false},
		{":3", "", `no target: "" is not a file or folder of head or base or a round document`, false},
		// Accepted forms.
		{"old.go:1", "old.go", "", false},
		{"head/link.go:2", "link.go", "", false},
		{"tools/run.sh", "tools/run.sh", "", false},
		{"./", "", "", false},
		{"base/", "", "", false},
		{"head/app/x_test.go:1", "app/x_test.go", "", true},
		{"plan.md:2", "plan.md", "", false},
		{"head/plan.md", "plan.md", "", false},
		{"docs/AC.md:1", "docs/AC.md", "", true},
		{"a:1.txt", "a:1.txt", "", false},
		// Without a line the whole is tried, then the first word only.
		{"checks/my test.py (see the loop)", "", `no target: "checks/my" is not a file or folder of head or base or a round document`, false},
		{"checks/t.py:2\u00a0and more", "checks/t.py", "", true},
	}
	var fs []finding
	for i, c := range cases {
		fs = append(fs, newFinding(i, c.location, nil))
	}
	// The outside document's real path is a target too.
	abs := r.docs[2].Path
	fs = append(fs, newFinding(len(fs), abs+":2", nil))
	got := classifyBin(t, envelopeFor(r, []string{"checks/**", "**/*_test.go", "docs/*.md", "*.md"}, nil,
		map[string][]finding{"r": fs}, []string{"r"}))
	for i, c := range cases {
		g := got[i]
		if c.bad != "" {
			want := "unreadable location (" + c.bad + "); "
			if !g.LocationUnreadable || g.Path != "" || g.InCheckPaths || g.LineStart != nil || !strings.HasPrefix(g.ClassReason, want) {
				t.Errorf("G7 %q: unreadable %v path %q lines %s in_check_paths %v reason %q; want prefix %q",
					c.location, g.LocationUnreadable, g.Path, intp(g.LineStart), g.InCheckPaths, g.ClassReason, want)
			}
			continue
		}
		if g.LocationUnreadable || g.Path != c.path || g.InCheckPaths != c.check {
			t.Errorf("G7 %q: unreadable %v path %q in_check_paths %v (%s); want %q %v", c.location, g.LocationUnreadable,
				g.Path, g.InCheckPaths, g.ClassReason, c.path, c.check)
		}
	}
	last := got[len(got)-1]
	if last.LocationUnreadable || last.Path != "plan.md" || intp(last.LineStart) != "2" || last.InCheckPaths {
		t.Errorf("G7 real absolute path of an outside document: %+v", last)
	}
}

// G8: results outside the format are unconfirmed links.
func TestG8_Own(t *testing.T) {
	r := buildRepo(t, ownRepo)
	cases := []struct {
		kind, link string
		ok         bool
		why        string // part of class_reason
	}{
		{"rule", "", false, `"" is not a rule document of the round`},
		{"rule", "plain.md", false, `"plain.md" is not a rule document of the round`},
		{"rule", "AGENTS.md:1.", false, `"AGENTS.md:1." is not a rule document`},
		{"rule", "AGENTS.md:1:2", false, `"AGENTS.md:1" is not a rule document`},
		{"rule", "AGENTS.md:0", false, "line 0"},
		{"rule", "AGENTS.md:2-1", false, "end line 1 < start line 2"},
		{"rule", "AGENTS.md:3", false, `line 3 is not in rule document "AGENTS.md" (2 lines)`},
		{"rule", "AGENTS.md:99999999999", false, "line 99999999999 too large"},
		{"rule", "base/AGENTS.md:1", false, `"base/AGENTS.md" is not a rule document`},
		{"rule", "../AGENTS.md:1", false, `"../AGENTS.md" is not a rule document`},
		{"rule", "plan.md", false, `"plan.md" is not a rule document`}, // a subject document is not a rule document
		{"contract", "head/nonl.md:3", false, `line 3 is not in head file "nonl.md" (2 lines)`},
		{"contract", "empty.md:1", false, `line 1 is not in head file "empty.md" (0 lines)`},
		{"contract", "link.go:1", false, `"link.go" is a symbolic link in head`},
		{"contract", "vendor/sub", false, `"vendor/sub" is a submodule in head`},
		{"contract", "checks/:1", false, `"checks" is a folder in head`},
		{"contract", "old.go", false, `"old.go" is only in base`},
		{"contract", "/etc/passwd:1", false, `"/etc/passwd" is not a rule document or a file of head`},
		{"contract", "../x.md", false, `"../x.md" is not a rule document or a file of head`},
		{"contract", "AGENTS.md:5", false, `line 5 is not in rule document "AGENTS.md" (2 lines)`},
		// Accepted forms.
		{"rule", "./AGENTS.md", true, `rule link confirmed: rule document "AGENTS.md"`},
		{"rule", "style.md", true, `rule link confirmed: rule document "style.md"`}, // the criteria style.md is no rule document
		{"contract", "head/nonl.md:2", true, `contract link confirmed: head file "nonl.md" lines 2-2`},
		{"contract", "empty.md", true, `contract link confirmed: head file "empty.md"`},
		{"contract", "tools/run.sh:1-2", true, `contract link confirmed: head file "tools/run.sh" lines 1-2`},
		{"contract", "plain.md:1 (the first line)", true, `contract link confirmed: head file "plain.md" lines 1-1`},
		{"contract", "AGENTS.md:2", true, `contract link confirmed: rule document "AGENTS.md" lines 2-2`},
	}
	var fs []finding
	for i, c := range cases {
		fs = append(fs, newFinding(i, "head/", map[string]string{"proposed_class": "defect", "link_kind": c.kind, "link": c.link}))
	}
	abs := r.docs[3].Path // style.md, outside the repository
	fs = append(fs, newFinding(len(fs), "head/", map[string]string{"proposed_class": "defect", "link_kind": "rule", "link": abs + ":1"}))
	got := classifyBin(t, envelopeFor(r, nil, nil, map[string][]finding{"r": fs}, []string{"r"}))
	for i, c := range cases {
		g := got[i]
		if (g.LinkKind != "none") != c.ok || !strings.Contains(g.ClassReason, c.why) {
			t.Errorf("G8 %s %q: link_kind %s link %q (%s); want confirmed=%v with %q", c.kind, c.link, g.LinkKind, g.Link, g.ClassReason, c.ok, c.why)
		}
		if !c.ok && (g.Link != "" || g.LinkFragment != nil || g.Class != "note") {
			t.Errorf("G8 %s %q unconfirmed: link %q fragment %v class %s", c.kind, c.link, g.Link, g.LinkFragment, g.Class)
		}
	}
	if g := got[len(got)-1]; g.LinkKind != "rule" || g.LinkFragment == nil || g.LinkFragment.Document != "style.md" ||
		strings.Join(g.LinkFragment.Lines, "|") != "s1" {
		t.Errorf("G8 real absolute path of an outside rule document: %+v", g)
	}
	if g := got[22]; g.LinkFragment == nil || strings.Join(g.LinkFragment.Lines, "|") != "b" {
		t.Errorf("G8 last line without a newline: %+v", g.LinkFragment)
	}
}

// G9: criterion links, against run.criteria_ids.
func TestG9_Own(t *testing.T) {
	r := buildRepo(t, ownRepo)
	ids := []string{"AC-1", "AC-2", "AC-01"}
	cases := []struct {
		link string
		ok   bool
		why  string
	}{
		{"AC-1", true, "criterion link confirmed: AC-1"},
		{"AC-1,AC-2", true, "criterion link confirmed: AC-1, AC-2"},
		{"see AC-2 and AC-01", true, "criterion link confirmed: AC-2, AC-01"},
		{"AC-1_", true, "AC-1"},
		{"ÄAC-2", true, "AC-2"}, // only ASCII letters and digits bound an ID
		{"AC-1, AC-9", false, "AC-9 not in the criteria documents"},
		{"AC-001", false, "AC-001 not in the criteria documents"},
		{"xAC-1", false, "no AC-<digits> ID"},
		{"AC-1x", false, "no AC-<digits> ID"},
		{"1AC-1", false, "no AC-<digits> ID"},
		{"ac-1", false, "no AC-<digits> ID"},
		{"AC-", false, "no AC-<digits> ID"},
		{"", false, "no AC-<digits> ID"},
	}
	var fs []finding
	for i, c := range cases {
		fs = append(fs, newFinding(i, "head/", map[string]string{"proposed_class": "defect", "link_kind": "criterion", "link": c.link}))
	}
	got := classifyBin(t, envelopeFor(r, nil, ids, map[string][]finding{"r": fs}, []string{"r"}))
	for i, c := range cases {
		g := got[i]
		if (g.LinkKind == "criterion") != c.ok || !strings.Contains(g.ClassReason, c.why) || g.LinkFragment != nil {
			t.Errorf("G9 %q: link_kind %s (%s); want confirmed=%v with %q", c.link, g.LinkKind, g.ClassReason, c.ok, c.why)
		}
		if c.ok && g.Link != c.link {
			t.Errorf("G9 %q: link %q", c.link, g.Link)
		}
	}
}

// G24 in classification: in_check_paths is the first matching glob; the
// root is never a check path. A glob outside the format in the envelope is
// refused like any other envelope fault.
func TestG24_Own(t *testing.T) {
	r := buildRepo(t, ownRepo)
	cases := []struct {
		location string
		glob     string // the glob named in class_reason, "" when not in check paths
	}{
		{"checks/t.py", "checks/*"}, // "checks/" is the glob "checks": the folder itself, nothing below it
		{"checks", "checks/"},
		{"head/checks/my test.py", "checks/*"},
		{"app/x_test.go", "**/*_test.go"},
		{"tools/run.sh", "tools/*.[s]h"},
		{"head/", ""},
		{"AGENTS.md", ""},
	}
	var fs []finding
	for i, c := range cases {
		fs = append(fs, newFinding(i, c.location, nil))
	}
	got := classifyBin(t, envelopeFor(r, []string{"checks/", "**/*_test.go", "tools/*.[s]h", "checks/*"}, nil, map[string][]finding{"r": fs}, []string{"r"}))
	for i, c := range cases {
		g := got[i]
		want := "rule 7: proposed_class note, not in check paths"
		if c.glob != "" {
			want = "rule 3: in check paths (" + c.glob + ")"
		}
		if g.InCheckPaths != (c.glob != "") || g.ClassReason != want {
			t.Errorf("G24 %q: in_check_paths %v (%s), want %q", c.location, g.InCheckPaths, g.ClassReason, want)
		}
	}
	for _, bad := range []string{"", "/abs/**", "a/../b", "[ab", "ab\\"} {
		env := envelopeFor(r, []string{"checks/**", bad}, nil, map[string][]finding{"r": fs}, []string{"r"})
		out, stderr, code := runBin(env)
		if code != 65 || len(out) != 0 || !strings.HasPrefix(stderr, "spar-classify: stdin: /run/check_paths/1: ") {
			t.Errorf("G24 %q: exit %d stdout %d bytes stderr %q", bad, code, len(out), stderr)
		}
	}
}

// Finding IDs count per completed reviewer in reviewer order; a reviewer
// that did not complete has no findings; the reviewer's id stays as
// reviewer_id; smallest_fix is "" when absent; other keys pass through.
func TestFindingIDs(t *testing.T) {
	r := buildRepo(t, ownRepo)
	a := []finding{newFinding(1, "head/", nil), newFinding(2, "head/", nil)}
	a[1]["smallest_fix"] = "do x"
	c := []finding{newFinding(7, "head/", nil)}
	env := envelopeFor(r, nil, nil, map[string][]finding{"a": a, "c": c}, []string{"a", "c"})
	var m map[string]any
	if err := json.Unmarshal(env, &m); err != nil {
		t.Fatal(err)
	}
	res := m["results"].([]any)
	res = append(res[:1], append([]any{map[string]any{"reviewer": "b", "status": "invalid_output", "reason": "findings", "result": nil}}, res[1:]...)...)
	m["results"] = res
	m["packet"] = map[string]any{"markdown": "kept"}
	env, _ = json.Marshal(m)
	out, stderr, code := runBin(env)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got struct {
		Packet   map[string]any `json:"packet"`
		Findings []struct {
			ID          string `json:"id"`
			Reviewer    string `json:"reviewer"`
			ReviewerID  string `json:"reviewer_id"`
			SmallestFix string `json:"smallest_fix"`
		} `json:"findings"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	type idr struct{ ID, Reviewer, ReviewerID, SmallestFix string }
	want := []idr{{"a-F1", "a", "own-1", ""}, {"a-F2", "a", "own-2", "do x"}, {"c-F1", "c", "own-7", ""}}
	if len(got.Findings) != len(want) {
		t.Fatalf("findings %+v", got.Findings)
	}
	for i, w := range want {
		g := got.Findings[i]
		if (idr{g.ID, g.Reviewer, g.ReviewerID, g.SmallestFix}) != w {
			t.Errorf("finding %d = %+v, want %+v", i, g, w)
		}
	}
	if got.Packet["markdown"] != "kept" {
		t.Errorf("packet not passed through: %v", got.Packet)
	}
	for _, key := range []string{`"findings": []`} {
		out, _, _ := runBin(envelopeFor(r, nil, nil, nil, nil))
		if !strings.Contains(string(out), key) {
			t.Errorf("no reviewers: %s", out)
		}
	}
}

// Envelope faults: nothing written, "spar-classify: stdin: …", exit 65.
func TestEnvelopeFaults(t *testing.T) {
	r := buildRepo(t, ownRepo)
	good := envelopeFor(r, nil, nil, map[string][]finding{"a": {newFinding(1, "head/", nil)}}, []string{"a"})
	edit := func(f func(m map[string]any)) []byte {
		var m map[string]any
		_ = json.Unmarshal(good, &m)
		f(m)
		b, _ := json.Marshal(m)
		return b
	}
	result := func(m map[string]any) map[string]any {
		return m["results"].([]any)[0].(map[string]any)
	}
	item := func(m map[string]any) map[string]any {
		return result(m)["result"].(map[string]any)["findings"].([]any)[0].(map[string]any)
	}
	cases := []struct {
		name  string
		env   []byte
		where string
	}{
		{"empty", []byte(""), "/"},
		{"not JSON", []byte("{"), "/: not JSON"},
		{"no run", edit(func(m map[string]any) { delete(m, "run") }), "/"},
		{"no results", edit(func(m map[string]any) { delete(m, "results") }), "/"},
		{"short head", edit(func(m map[string]any) { m["run"].(map[string]any)["head"] = "abc" }), "/run/head"},
		{"unknown head", edit(func(m map[string]any) { m["run"].(map[string]any)["head"] = strings.Repeat("e", 40) }), "/run/head"},
		{"relative repo", edit(func(m map[string]any) { m["run"].(map[string]any)["repo"] = "repo" }), "/run/repo"},
		{"completed without result", edit(func(m map[string]any) { result(m)["result"] = nil }), "/results/0/result"},
		{"unknown finding key", edit(func(m map[string]any) { item(m)["extra"] = "x" }), "/results/0/result/findings/0"},
		{"finding value not a string", edit(func(m map[string]any) { item(m)["claim"] = 3 }), "/results/0/result/findings/0"},
		{"class outside the enumeration", edit(func(m map[string]any) { item(m)["proposed_class"] = "bug" }), "/results/0/result/findings/0/proposed_class"},
		{"reviewer twice", edit(func(m map[string]any) {
			m["results"] = append(m["results"].([]any), map[string]any{"reviewer": "a", "status": "failed", "result": nil})
		}), "/results/1/reviewer"},
		{"document lines short", edit(func(m map[string]any) {
			m["run"].(map[string]any)["documents"].([]any)[0].(map[string]any)["line_count"] = 50
		}), "/run/documents/0/lines"},
	}
	for _, c := range cases {
		out, stderr, code := runBin(c.env)
		if code != 65 || len(out) != 0 || !strings.HasPrefix(stderr, "spar-classify: stdin: "+c.where) {
			t.Errorf("%s: exit %d stdout %q stderr %q; want 65 at %s", c.name, code, out, stderr, c.where)
		}
	}
	if out, stderr, code := runBin(good, "--help"); code != 0 || !strings.HasPrefix(string(out), "usage: spar-classify") || stderr != "" {
		t.Errorf("--help: exit %d", code)
	}
	if _, stderr, code := runBin(good, "--bogus"); code != 64 || !strings.HasPrefix(stderr, "spar-classify: unknown argument") {
		t.Errorf("--bogus: exit %d %q", code, stderr)
	}
}

// G23/G26: a project rule reached through a symbolic link inside the
// repository keeps the path the configuration wrote as its name; links and
// locations find it by that name, its real path, or its file name.
func TestG8_SymlinkedRule(t *testing.T) {
	r := buildRepo(t, ownRepo)
	real := filepath.Join(r.dir, "rules", "real.md")
	if err := os.MkdirAll(filepath.Dir(real), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(real, []byte("r1\nr2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real.md", filepath.Join(r.dir, "rules", "link.md")); err != nil {
		t.Fatal(err)
	}
	rp, _ := filepath.EvalSymlinks(real)
	r.docs = append(r.docs, envelope.Document{Role: "rule", Origin: "config", Name: "rules/link.md", Path: rp,
		FileName: "real.md", LineCount: 2, Lines: []string{"r1", "r2", ""}})
	fs := []finding{
		newFinding(0, "head/", map[string]string{"link_kind": "rule", "link": "rules/link.md:2"}),
		newFinding(1, "head/", map[string]string{"link_kind": "rule", "link": "real.md:1"}),
		newFinding(2, "head/", map[string]string{"link_kind": "rule", "link": rp + ":1-2"}),
		newFinding(3, "rules/link.md:1", nil),
	}
	got := classifyBin(t, envelopeFor(r, []string{"rules/**"}, nil, map[string][]finding{"r": fs}, []string{"r"}))
	for i := 0; i < 3; i++ {
		if got[i].LinkKind != "rule" || got[i].LinkFragment == nil || got[i].LinkFragment.Document != "rules/link.md" {
			t.Errorf("link %q: %s %+v (%s)", got[i].ClaimedLink, got[i].LinkKind, got[i].LinkFragment, got[i].ClassReason)
		}
	}
	if g := got[3]; g.LocationUnreadable || g.Path != "rules/link.md" || !g.InCheckPaths {
		t.Errorf("location rules/link.md:1: %+v", g)
	}
}
