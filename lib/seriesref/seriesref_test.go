package seriesref

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func git(t *testing.T, dir string, stdin string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// A publish holds the series folder's regular files and nothing else:
// not the lock, a temporary file, a staged recording, a workspace link.
func TestPublish_HoldsTheRecordsOnly(t *testing.T) {
	repo := t.TempDir()
	git(t, repo, "", "init", "-q")
	dir := filepath.Join(repo, "reviews", "s")
	for p, text := range map[string]string{
		"code-1/round.json":               "{}",
		"code-1/findings.json":            "{}",
		"code-1/codex/result.json":        "{}",
		"extensions.jsonl":                "",
		".lock":                           "",
		"code-1/round.json.123.tmp":       "x",
		"code-1/.recording/findings.json": "x",
		"code-2/summary.md.tmp-1-2":       "x",
	} {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755)
		os.WriteFile(filepath.Join(dir, p), []byte(text), 0o644)
	}
	os.Symlink("/nowhere", filepath.Join(dir, "code-1", "workspace"))
	pub, err := Publish(repo, dir, "s")
	if err != nil {
		t.Fatal(err)
	}
	got := git(t, repo, "", "ls-tree", "-r", "--name-only", Ref("s"))
	want := "code-1/codex/result.json\ncode-1/findings.json\ncode-1/round.json\nextensions.jsonl"
	if got != want {
		t.Errorf("the ref holds:\n%s\nwant:\n%s\nleft out: %v", got, want, pub.Left)
	}
	again, err := Publish(repo, dir, "s")
	if err != nil || again.Changed || again.Commit != pub.Commit {
		t.Errorf("a publish of an unchanged folder: %+v, %v", again, err)
	}
	os.WriteFile(filepath.Join(dir, "code-1", "ledger.jsonl"), []byte("{}\n"), 0o644)
	next, err := Publish(repo, dir, "s")
	if err != nil || !next.Changed || next.Parent != pub.Commit {
		t.Errorf("the next publish: %+v, %v: want a child of %s", next, err, pub.Commit)
	}
}

// A fetched ref is a remote's, whoever could push it: WriteFolder writes
// only regular files at plain paths inside the folder.
func TestWriteFolder_RefusesWhatIsNoRecord(t *testing.T) {
	repo := t.TempDir()
	git(t, repo, "", "init", "-q")
	blob := git(t, repo, "x\n", "hash-object", "-w", "--stdin")
	for name, entry := range map[string]string{
		"symlink": "120000 blob " + blob + "\tlink",
		"dot git": "100644 blob " + blob + "\t.git",
	} {
		t.Run(name, func(t *testing.T) {
			tree := git(t, repo, entry+"\n", "mktree", "--missing")
			commit := git(t, repo, "", "commit-tree", tree, "-m", "hostile")
			out := filepath.Join(t.TempDir(), "s")
			if _, err := WriteFolder(repo, commit, out); err == nil {
				t.Fatalf("%s written", entry)
			}
			if _, err := os.Lstat(out); err == nil {
				t.Error("the folder was made")
			}
		})
	}
}
