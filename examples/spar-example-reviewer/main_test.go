package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jaekit/spar/lib/envelope"
	sparpacket "github.com/jaekit/spar/lib/packet"
)

// copyTree copies the demo overlays into dst, later ones over earlier ones.
func copyTree(t *testing.T, dst string, srcs ...string) {
	t.Helper()
	for _, src := range srcs {
		err := filepath.Walk(src, func(p string, fi os.FileInfo, err error) error {
			if err != nil || fi.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(src, p)
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out := filepath.Join(dst, rel)
			if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
				return err
			}
			return os.WriteFile(out, b, 0o644)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

func demoPacket(t *testing.T, dir string) string {
	return packetOf(t, dir, []envelope.Change{
		{Path: "app/auth.go", Status: "M", Added: 10, Deleted: 2},
		{Path: "checks/verify_test.go", Status: "M", Added: 8, Deleted: 2, CheckPath: true},
	})
}

func packetOf(t *testing.T, dir string, changes []envelope.Change) string {
	agents, err := os.ReadFile("../../testdata/demo/base/AGENTS.md")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(agents), "\n")
	run := &envelope.Run{
		Stage: "code", Base: strings.Repeat("b", 40), Head: strings.Repeat("a", 40), Series: "/x/demo",
		CheckPaths: []string{"checks/**"},
		Changes:    changes,
		Documents: []envelope.Document{{Role: "rule", Origin: "config", Name: "AGENTS.md", Path: "/x/AGENTS.md", FileName: "AGENTS.md",
			LineCount: len(lines) - 1, Lines: lines}},
	}
	md := sparpacket.Markdown(run, sparpacket.Angles)
	p := filepath.Join(dir, "packet.md")
	if err := os.WriteFile(p, []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func runReviewer(t *testing.T, overlays []string, focus string) result {
	dir := t.TempDir()
	ws := filepath.Join(dir, "workspace")
	copyTree(t, filepath.Join(ws, "base"), "../../testdata/demo/base")
	copyTree(t, filepath.Join(ws, "head"), overlays...)
	var out, errb bytes.Buffer
	if code := run([]string{"--packet", demoPacket(t, dir), "--workspace", ws, "--focus", focus}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var r result
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	return r
}

func TestExampleReviewer_FindsTheDemoDefects(t *testing.T) {
	change := []string{"../../testdata/demo/base", "../../testdata/demo/change"}
	r := runReviewer(t, change, "all")
	if r.Verdict != "blocking_findings" || len(r.Findings) != 2 {
		t.Fatalf("verdict %s, findings %+v", r.Verdict, r.Findings)
	}
	cmp, weak := r.Findings[0], r.Findings[1]
	if cmp.Location != "head/app/auth.go:33" || cmp.Link != "AGENTS.md:3" || cmp.Regression != "yes" || cmp.IntroducedByChange != "yes" {
		t.Errorf("comparison finding = %+v", cmp)
	}
	if !strings.HasPrefix(weak.Location, "head/checks/verify_test.go:") || weak.CheckImpact != "false_pass" || weak.Link != "AGENTS.md:4" {
		t.Errorf("weak test finding = %+v", weak)
	}
	if !strings.Contains(weak.Evidence, "app.Verify(…)") {
		t.Errorf("evidence does not name the thrown-away call: %s", weak.Evidence)
	}
	if len(r.AnglesChecked)+len(r.AnglesUnchecked) != 5 {
		t.Errorf("angles: %+v %+v", r.AnglesChecked, r.AnglesUnchecked)
	}
	if r.ReviewedHead != strings.Repeat("a", 40) {
		t.Errorf("reviewed_head = %s", r.ReviewedHead)
	}
}

func TestExampleReviewer_Focus(t *testing.T) {
	change := []string{"../../testdata/demo/base", "../../testdata/demo/change"}
	if r := runReviewer(t, change, "rules"); len(r.Findings) != 1 || r.Findings[0].Angle != rulesAngle {
		t.Errorf("rules focus: %+v", r.Findings)
	}
	if r := runReviewer(t, change, "checks"); len(r.Findings) != 1 || r.Findings[0].Angle != checksAngle {
		t.Errorf("checks focus: %+v", r.Findings)
	}
}

func TestExampleReviewer_FixedChangeHasNoFindings(t *testing.T) {
	fixed := []string{"../../testdata/demo/base", "../../testdata/demo/change", "../../testdata/demo/fix"}
	r := runReviewer(t, fixed, "all")
	if r.Verdict != "no_blocking_findings" || len(r.Findings) != 0 {
		t.Fatalf("verdict %s, findings %+v", r.Verdict, r.Findings)
	}
}

func TestExampleReviewer_Usage(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"--help"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "usage:") {
		t.Errorf("--help: exit %d, %q", code, errb.String())
	}
	if code := run([]string{"--focus", "x", "--packet", "p", "--workspace", "w"}, &out, &errb); code != 2 {
		t.Errorf("bad focus: exit %d", code)
	}
}

// TestExampleReviewer_NoGoFileChecksNothing: on a change without Go files
// (a Python project) the reviewer says it checked nothing, never that it
// checked its angles after looking at no file.
func TestExampleReviewer_NoGoFileChecksNothing(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "workspace")
	copyTree(t, filepath.Join(ws, "base"), "../../testdata/demo/base")
	copyTree(t, filepath.Join(ws, "head"), "../../testdata/demo/base")
	os.WriteFile(filepath.Join(ws, "head", "app.py"), []byte("x = 1\n"), 0o644)
	packet := packetOf(t, dir, []envelope.Change{{Path: "app.py", Status: "A", Added: 1}})
	var out, errb bytes.Buffer
	if code := run([]string{"--packet", packet, "--workspace", ws, "--focus", "all"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var r result
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	for _, a := range r.AnglesChecked {
		if a.Angle == rulesAngle || a.Angle == checksAngle {
			t.Errorf("%s checked on a change without Go files: %s", a.Angle, a.Result)
		}
	}
	found := 0
	for _, a := range r.AnglesUnchecked {
		if (a.Angle == rulesAngle || a.Angle == checksAngle) && strings.Contains(a.Reason, "checked nothing here") {
			found++
		}
	}
	if found != 2 {
		t.Errorf("unchecked: %+v", r.AnglesUnchecked)
	}
}
