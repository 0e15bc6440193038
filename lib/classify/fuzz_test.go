package classify

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jaekit/spar/lib/envelope"
)

// fuzzIndex builds a small repository (head and base differ, a symbolic
// link, a submodule, a round document inside and one outside) and its index.
func fuzzIndex(t testing.TB) *Index {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, "repo")
	git := func(stdin string, args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
			"GIT_AUTHOR_NAME=f", "GIT_AUTHOR_EMAIL=f@example.invalid", "GIT_COMMITTER_NAME=f", "GIT_COMMITTER_EMAIL=f@example.invalid")
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git %v: %v", args, err)
		}
		return strings.TrimSpace(string(out))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	git("", "init", "-q")
	blob := git("a\nb\nc\n", "hash-object", "-w", "--stdin")
	link := git("checks/t.py", "hash-object", "-w", "--stdin")
	commit := func(index, parent string) string {
		git("", "read-tree", "--empty")
		git(index, "update-index", "--add", "--index-info")
		args := []string{"commit-tree", git("", "write-tree"), "-m", "c"}
		if parent != "" {
			args = append(args, "-p", parent)
		}
		return git("", args...)
	}
	base := commit("100644 "+blob+"\told.go\n100644 "+blob+"\tchecks/t.py\n", "")
	head := commit("100644 "+blob+"\tchecks/t.py\n100644 "+blob+"\tchecks/my test.py\n100755 "+blob+"\tbase/x.sh\n"+
		"120000 "+link+"\tl.py\n160000 "+strings.Repeat("4", 40)+"\tvendor/sub\n100644 "+blob+"\thead/x.go\n", base)
	in := filepath.Join(dir, "docs", "PLAN.md")
	out := filepath.Join(root, "out", "rules.md")
	for _, p := range []string{in, out} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x\ny\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rin, _ := filepath.EvalSymlinks(in)
	rout, _ := filepath.EvalSymlinks(out)
	run := &envelope.Run{Repo: dir, Base: base, Head: head, CheckPaths: []string{"checks/**"}, CriteriaIDs: []string{"AC-1"},
		Documents: []envelope.Document{
			{Role: "subject", Name: "docs/PLAN.md", Path: rin, FileName: "PLAN.md", LineCount: 2, Lines: []string{"x", "y", ""}},
			{Role: "rule", Name: "rules.md", Path: rout, FileName: "rules.md", LineCount: 2, Lines: []string{"x", "y", ""}},
		}}
	ix, err := NewIndex(run)
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

// FuzzLocate: whatever the location, G7 either finds no target or lands on
// a file or folder of the copy it names, or on a round document; its path
// never leaves the repository.
func FuzzLocate(f *testing.F) {
	for _, s := range []string{"head/checks/t.py:10-20", "../old.go:1", "/etc/passwd", "head/checks/my test.py (x)",
		"base/old.go:4", "./", "head/", "PLAN.md:1", "head/head/x.go:1", "head/base/x.sh", "vendor/sub", "l.py:2", "rules.md",
		"head/checks/t.py:10:5", "checks/t.py:0", "a:1–2; b"} {
		f.Add(s)
	}
	ix := fuzzIndex(f)
	f.Fuzz(func(t *testing.T, text string) {
		l := ix.Locate(text)
		if l.Unreadable {
			if l.Path != "" || l.InCheck || l.LineStart != nil || l.Reason == "" {
				t.Fatalf("Locate(%q) unreadable but %+v", text, l)
			}
			return
		}
		if strings.HasPrefix(l.Path, "/") || l.Path == ".." || strings.HasPrefix(l.Path, "../") ||
			strings.Contains(l.Path, "/../") || strings.HasSuffix(l.Path, "/..") {
			t.Fatalf("Locate(%q) = %q leaves the repository", text, l.Path)
		}
		switch l.Target {
		case "head":
			if !ix.head.Has(l.Path) {
				t.Fatalf("Locate(%q) = %q, not in head", text, l.Path)
			}
		case "base":
			if !ix.base.Has(l.Path) {
				t.Fatalf("Locate(%q) = %q, not in base", text, l.Path)
			}
		case "round document":
			if l.Path != "docs/PLAN.md" && l.Path != "rules.md" {
				t.Fatalf("Locate(%q) = %q, not a round document name", text, l.Path)
			}
		default:
			t.Fatalf("Locate(%q): target %q", text, l.Target)
		}
		if ix.head.IsSubmodule(l.Path) && l.Target == "head" {
			t.Fatalf("Locate(%q) landed on a submodule", text)
		}
		if (l.LineStart == nil) != (l.LineEnd == nil) || l.LineStart != nil && (*l.LineStart < 1 || *l.LineEnd < *l.LineStart) {
			t.Fatalf("Locate(%q): lines %v %v", text, l.LineStart, l.LineEnd)
		}
		if l.Path == "" && l.InCheck {
			t.Fatalf("Locate(%q): the root in check paths", text)
		}
	})
}

// FuzzLink: a confirmed rule or contract link lands on a rule document or
// a regular file of head, and its fragment is the cited lines.
func FuzzLink(f *testing.F) {
	for _, s := range []string{"rules.md:1-2", "checks/t.py:3", "l.py:1", "vendor/sub", "old.go", "./rules.md", "head/base/x.sh:1",
		"/etc/passwd", "../rules.md", "rules.md:0", "rules.md:3"} {
		f.Add(s)
	}
	ix := fuzzIndex(f)
	f.Fuzz(func(t *testing.T, text string) {
		for _, kind := range []string{"rule", "contract"} {
			tg := ix.findLinkTarget(kind, text)
			heads := map[string]headFile{}
			if tg.why == "" && tg.doc == nil {
				heads[tg.blob.ID] = headFile{count: 3, lines: []string{"a", "b", "c", ""}}
				if !tg.blob.IsRegular() || kind == "rule" {
					t.Fatalf("%s %q landed on %+v", kind, text, tg.blob)
				}
			}
			l := tg.confirm(kind, heads)
			if !l.Confirmed {
				if l.Fragment != nil || l.Why == "" {
					t.Fatalf("%s %q unconfirmed: %+v", kind, text, l)
				}
				continue
			}
			if fr := l.Fragment; fr != nil && (fr.Start < 1 || fr.End < fr.Start || len(fr.Lines) != fr.End-fr.Start+1) {
				t.Fatalf("%s %q fragment %+v", kind, text, fr)
			}
		}
	})
}
