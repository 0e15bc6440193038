package seal

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const key = "0123456789abcdef0123"

// roundDir is a recorded round as spar-record leaves it: its records, a
// reviewer's folder, and the workspace link.
func roundDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "code-1")
	for name, text := range map[string]string{
		"round.json":         `{"name":"code-1"}`,
		"packet.md":          "# packet\n",
		"findings.json":      `{"findings":[]}`,
		"ledger.jsonl":       "",
		"summary.md":         "# summary\n",
		"codex/stdout":       `{"type":"item.completed"}` + "\n",
		"codex/result.json":  `{"verdict":"clean"}`,
		"codex/prompt.md":    "review\n",
		"claude/stream.json": "{}\n",
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.Symlink(t.TempDir(), filepath.Join(dir, "workspace"))
	return dir
}

func TestSeal_SignVerify(t *testing.T) {
	dir := roundDir(t)
	if err := Verify(key, dir); !errors.Is(err, ErrNoSeal) {
		t.Fatalf("unsealed: %v, want ErrNoSeal", err)
	}
	if err := Sign(key, dir); err != nil {
		t.Fatal(err)
	}
	if err := Verify(key, dir); err != nil {
		t.Fatalf("sealed: %v", err)
	}
	if err := Verify(key+"x", dir); err == nil {
		t.Error("another key verified the seal")
	}
	// What changes after recording is not sealed: triage, waivers, the
	// summary they rewrite.
	for _, f := range []string{"ledger.jsonl", "waivers.jsonl", "summary.md", "findings.json.tmp"} {
		os.WriteFile(filepath.Join(dir, f), []byte(`{"finding":"codex-F1","disposition":"rejected"}`+"\n"), 0o644)
	}
	if err := Verify(key, dir); err != nil {
		t.Errorf("after triage: %v", err)
	}
}

// TestTrust_SealedRoundEdited: every file fixed at recording is sealed, the
// reviewer's raw output first of all: an edit, an added file or a removed
// one breaks the seal, so a job never reuses a review the agent changed.
func TestTrust_SealedRoundEdited(t *testing.T) {
	for name, edit := range map[string]func(dir string) error{
		"raw output edited": func(d string) error {
			return os.WriteFile(filepath.Join(d, "codex", "stdout"), []byte(`{"type":"item.completed","x":1}`+"\n"), 0o644)
		},
		"result edited": func(d string) error {
			return os.WriteFile(filepath.Join(d, "codex", "result.json"), []byte(`{}`), 0o644)
		},
		"round.json": func(d string) error {
			return os.WriteFile(filepath.Join(d, "round.json"), []byte(`{"name":"code-2"}`), 0o644)
		},
		"findings.json":  func(d string) error { return os.WriteFile(filepath.Join(d, "findings.json"), []byte(`{}`), 0o644) },
		"a file added":   func(d string) error { return os.WriteFile(filepath.Join(d, "codex", "extra"), nil, 0o644) },
		"a file removed": func(d string) error { return os.Remove(filepath.Join(d, "claude", "stream.json")) },
		"a file renamed": func(d string) error {
			return os.Rename(filepath.Join(d, "codex", "prompt.md"), filepath.Join(d, "codex", "prompt2.md"))
		},
		"a link for file": func(d string) error {
			p := filepath.Join(d, "packet.md")
			os.Remove(p)
			return os.Symlink("/etc/hostname", p)
		},
		"the seal copied from another round": func(d string) error {
			other := roundDir(t)
			os.WriteFile(filepath.Join(other, "round.json"), []byte(`{"name":"other"}`), 0o644)
			if err := Sign(key, other); err != nil {
				return err
			}
			b, _ := os.ReadFile(filepath.Join(other, File))
			return os.WriteFile(filepath.Join(d, File), b, 0o644)
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir := roundDir(t)
			editBreaksSeal(t, dir, name, edit)
		})
	}
}

func TestSeal_Key(t *testing.T) {
	env := func(v string) func(string) string { return func(string) string { return v } }
	if k, err := Key(env("")); k != "" || err != nil {
		t.Errorf("unset: %q %v", k, err)
	}
	if _, err := Key(env("short")); err == nil || !strings.Contains(err.Error(), "at least 16") {
		t.Errorf("a short key: %v", err)
	}
	if k, err := Key(env(key)); k != key || err != nil {
		t.Errorf("a key: %q %v", k, err)
	}
}

func TestSeal_BadSeal(t *testing.T) {
	dir := roundDir(t)
	for _, text := range []string{"", "{", `{"schema":"other","mac":"00"}`, `{"schema":"spar-seal/v1","mac":"zz"}`} {
		os.WriteFile(filepath.Join(dir, File), []byte(text), 0o644)
		if err := Verify(key, dir); err == nil || errors.Is(err, ErrNoSeal) {
			t.Errorf("seal %q: %v", text, err)
		}
	}
}

// TestTrust_SealReviewerFolderNamedTmp: a reviewer may be named "r.tmp"
// (G20 reserves only spar's own names with .tmp appended), and its folder
// is raw output like any other: the seal covers it. An empty folder added
// to a sealed round, or a round folder that is a link, breaks the seal too.
func TestTrust_SealReviewerFolderNamedTmp(t *testing.T) {
	for name, edit := range map[string]func(dir string) error{
		"a .tmp reviewer's raw output edited": func(d string) error {
			return os.WriteFile(filepath.Join(d, "r.tmp", "stdout"), []byte(`{"type":"forged"}`+"\n"), 0o644)
		},
		"a .tmp reviewer's result removed": func(d string) error {
			return os.Remove(filepath.Join(d, "r.tmp", "result.json"))
		},
		"an empty folder added": func(d string) error { return os.Mkdir(filepath.Join(d, "gemini"), 0o755) },
	} {
		t.Run(name, func(t *testing.T) {
			dir := roundDir(t)
			os.MkdirAll(filepath.Join(dir, "r.tmp"), 0o755)
			os.WriteFile(filepath.Join(dir, "r.tmp", "stdout"), []byte(`{"type":"item.completed"}`+"\n"), 0o644)
			os.WriteFile(filepath.Join(dir, "r.tmp", "result.json"), []byte(`{"verdict":"clean"}`), 0o644)
			editBreaksSeal(t, dir, name, edit)
		})
	}
	t.Run("the round folder a link", func(t *testing.T) {
		dir := roundDir(t)
		link := filepath.Join(t.TempDir(), "code-2")
		os.Symlink(dir, link)
		if err := Sign(key, link); err == nil {
			t.Error("sealed a round folder that is a link")
		}
	})
}

// editBreaksSeal seals the round folder dir, runs edit on it and wants the
// seal not to verify any more.
func editBreaksSeal(t *testing.T, dir, name string, edit func(string) error) {
	t.Helper()
	if err := Sign(key, dir); err != nil {
		t.Fatal(err)
	}
	if err := edit(dir); err != nil {
		t.Fatal(err)
	}
	if err := Verify(key, dir); err == nil || errors.Is(err, ErrNoSeal) {
		t.Errorf("after %s: %v, want a seal that does not match", name, err)
	}
}
