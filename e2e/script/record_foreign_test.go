package script

// Records are spar's alone (docs/review-round.md §1;
// docs/trust.md "Records"): a record file in a round folder before its
// first recording was put there by someone else (a reviewer process), and
// spar-record refuses the round (65) with nothing written, instead of
// appending to a ledger it did not create.

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jaekit/spar/lib/round"
)

// snapshot is every file under dir with its bytes (links as "-> target").
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			l, _ := os.Readlink(p)
			out[rel] = "-> " + l
		case fi.Mode().IsRegular():
			b, _ := os.ReadFile(p)
			out[rel] = string(b)
		case fi.IsDir():
			out[rel] = "/"
		}
		return nil
	})
	return out
}

func TestTrust_RecordFilePlantedBeforeFirstRecordingIsRefused(t *testing.T) {
	forged := `{"finding":"claude-F2","disposition":"rejected","evidence":"looks fine to me","at":"x"}` + "\n"
	for _, name := range []string{round.LedgerFile, round.FindingsFile, round.WaiversFile, round.SummaryFile, round.LedgerFile + " (link)"} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "series", "code-1")
			env := crashEnvelope(t, dir, false)
			file, link := strings.CutSuffix(name, " (link)")
			if link {
				target := filepath.Join(t.TempDir(), "elsewhere.jsonl")
				os.WriteFile(target, []byte(forged), 0o644)
				if err := os.Symlink(target, filepath.Join(dir, file)); err != nil {
					t.Fatal(err)
				}
			} else if err := os.WriteFile(filepath.Join(dir, file), []byte(forged), 0o644); err != nil {
				t.Fatal(err)
			}
			before := snapshot(t, dir)
			cmd := exec.Command(filepath.Join(binDir, "spar-record"))
			cmd.Stdin = bytes.NewReader(env)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 65 {
				t.Fatalf("spar-record: %v, want exit 65\n%s", err, stderr.String())
			}
			msg := stderr.String()
			if !strings.Contains(msg, file+" before its first recording: spar did not write it") || !strings.Contains(msg, "run a new round") {
				t.Errorf("message does not name the file and what clears it: %s", msg)
			}
			after := snapshot(t, dir)
			if len(after) != len(before) {
				t.Errorf("files changed: before %v\nafter %v", keys(before), keys(after))
			}
			for k, v := range before {
				if after[k] != v {
					t.Errorf("%s changed: %q -> %q", k, v, after[k])
				}
			}
			// The gate never passes it: the round is not published.
			if _, _, err := round.Load(dir); !errors.Is(err, round.ErrUnfinished) {
				t.Errorf("round.Load: %v, want a round that stopped before recording", err)
			}
		})
	}
}

// A .recording/ folder that round.json does not name is scratch (a crash
// before a recording started, or a folder a reviewer made): it is removed
// and never published.
func TestTrust_UnnamedRecordingFolderIsScratch(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "series", "code-1")
	env := crashEnvelope(t, dir, false)
	os.MkdirAll(filepath.Join(dir, round.RecordingDir), 0o755)
	os.WriteFile(filepath.Join(dir, round.RecordingDir, "1"), []byte(`{"schema":"review-round/v1","round":"code-1","findings":[]}`), 0o644)
	recordOnce(t, env)
	_, f, err := round.Load(dir)
	if err != nil || len(f.Findings) != 4 {
		t.Fatalf("round.Load: %+v %v", f, err)
	}
	if _, err := os.Lstat(filepath.Join(dir, round.RecordingDir)); err == nil {
		t.Errorf(".recording/ left behind")
	}
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
