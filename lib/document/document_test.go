package document

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestG26_Documents: names inside and outside the repository, real path,
// file name, sha256, lines kept so that they join back to the bytes; and
// every refusal.
func TestG26_Documents(t *testing.T) {
	top := t.TempDir()
	top, _ = filepath.EvalSymlinks(top)
	repo := filepath.Join(top, "repo")
	os.MkdirAll(filepath.Join(repo, "docs"), 0o755)
	os.WriteFile(filepath.Join(repo, "docs", "PLAN.md"), []byte("one\ntwo"), 0o644)
	os.WriteFile(filepath.Join(top, "criteria.md"), []byte("AC-1\n"), 0o644)
	os.Symlink(filepath.Join(repo, "docs", "PLAN.md"), filepath.Join(top, "plan-link.md"))
	os.WriteFile(filepath.Join(top, "latin1.md"), []byte("caf\xe9\n"), 0o644)
	os.WriteFile(filepath.Join(top, "locked.md"), []byte("x"), 0o000)

	d, err := Read(repo, filepath.Join(repo, "docs", "PLAN.md"), RoleSubject, OriginArgument)
	if err != nil {
		t.Fatal(err)
	}
	if d.Name != "docs/PLAN.md" || d.FileName != "PLAN.md" || d.Path != filepath.Join(repo, "docs", "PLAN.md") ||
		d.LineCount != 2 || Text(d) != "one\ntwo" || d.SHA256 != "21066d108d5319ecb5a1fc4454f42ef22fc5f1c7df49c31d90294950e0ea8b2c" {
		t.Fatalf("inside: %+v", d)
	}
	d, err = Read(repo, filepath.Join(top, "criteria.md"), RoleCriteria, OriginArgument)
	if err != nil || d.Name != "criteria.md" || d.Path != filepath.Join(top, "criteria.md") || d.LineCount != 1 {
		t.Fatalf("outside: %+v %v", d, err)
	}
	// A link outside the repository to a file inside: the real path decides.
	d, err = Read(repo, filepath.Join(top, "plan-link.md"), RoleRule, OriginArgument)
	if err != nil || d.Name != "docs/PLAN.md" || d.FileName != "PLAN.md" {
		t.Fatalf("symlink: %+v %v", d, err)
	}
	d, err = ReadRule(repo, "docs/PLAN.md")
	if err != nil || d.Name != "docs/PLAN.md" || d.Origin != OriginConfig {
		t.Fatalf("rule: %+v %v", d, err)
	}
	refused := map[string]string{
		filepath.Join(top, "missing.md"): "cannot be read",
		filepath.Join(repo, "docs"):      "is a folder",
		"/dev/null":                      "not a regular file",
		filepath.Join(top, "latin1.md"):  "not UTF-8",
	}
	if os.Getuid() != 0 {
		refused[filepath.Join(top, "locked.md")] = "cannot be read"
	}
	for p, want := range refused {
		if _, err := Read(repo, p, RoleRule, OriginArgument); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", p, err, want)
		}
	}
}
