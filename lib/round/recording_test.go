package round

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// anchored stages a recording of dir (findings.json, two ledger lines after
// the ledger it holds) and writes the anchoring round.json, as spar-record
// does (docs/review-round.md §1, "Crashes roll forward").
func anchored(t *testing.T, dir string) {
	t.Helper()
	final := []byte(`{"schema":"review-round/v1","name":"code-1","finished_at":"x","findings_sha256":"y"}` + "\n")
	lines := [][]byte{[]byte(`{"finding":"a-F1","disposition":"deferred","auto":true,"at":"t"}`), []byte(`{"finding":"a-F2","disposition":"deferred","auto":true,"at":"t"}`)}
	st, err := NewStager(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct{ name, data string }{{FindingsFile, "{}\n"}, {"a/result.json", "{}"}} {
		sum, err := st.Add(f.name, func(w io.Writer) error { _, err := io.WriteString(w, f.data); return err })
		if err != nil || sum != SHA256([]byte(f.data)) {
			t.Fatalf("Add %s: %s %v", f.name, sum, err)
		}
	}
	rec, err := st.Done(final, lines)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteJSON(filepath.Join(dir, RoundFile), Record{Schema: Schema, Name: "code-1", Recording: rec}); err != nil {
		t.Fatal(err)
	}
}

func TestFinish_RollsForwardOnceAndIdempotently(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "code-1")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, LedgerFile), []byte(`{"finding":"x","disposition":"rejected","at":"t"}`+"\n"+`{"partial`), 0o644)
	anchored(t, dir)
	// An earlier Finish appended one of the two lines before it was killed.
	os.WriteFile(filepath.Join(dir, LedgerFile), []byte(`{"finding":"x","disposition":"rejected","at":"t"}`+"\n"+`{"finding":"a-F1","disposition":"deferred","auto":true,"at":"t"}`+"\n"+`{"finding":"a-F2","disp`), 0o644)
	for i := 0; i < 2; i++ {
		done, err := Finish(dir, nil)
		if err != nil || done != (i == 0) {
			t.Fatalf("Finish %d: %v %v", i, done, err)
		}
	}
	l, err := ReadLedger(dir)
	if err != nil || len(l) != 3 || l[1].Finding != "a-F1" || l[2].Finding != "a-F2" {
		t.Fatalf("ledger %+v %v", l, err)
	}
	rec, err := ReadRecord(dir)
	if err != nil || rec.Recording != nil || rec.FinishedAt == nil {
		t.Fatalf("round.json %+v %v", rec, err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a", "result.json")); string(b) != "{}" {
		t.Errorf("a/result.json %q", b)
	}
	if _, err := os.Lstat(filepath.Join(dir, RecordingDir)); err == nil {
		t.Errorf(".recording/ left behind")
	}
}

func TestFinish_RefusesWhatSparDidNotWrite(t *testing.T) {
	for _, c := range []struct {
		what, want string
		bend       func(dir string)
	}{
		{"a ledger line appended by someone else", "did not write", func(dir string) {
			os.WriteFile(filepath.Join(dir, LedgerFile), []byte(`{"finding":"a-F3","disposition":"rejected","evidence":"e","at":"t"}`+"\n"), 0o644)
		}},
		{"a ledger created by someone else as a link", "symbolic link", func(dir string) {
			os.Symlink("/dev/null", filepath.Join(dir, LedgerFile))
		}},
		{"a staged file changed", "does not have the sha256", func(dir string) {
			os.WriteFile(filepath.Join(dir, RecordingDir, "1"), []byte(`{"forged":true}`), 0o644)
		}},
		{"a reviewer folder that is a link", "not a folder", func(dir string) {
			os.Symlink(t.TempDir(), filepath.Join(dir, "a"))
		}},
	} {
		t.Run(c.what, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "code-1")
			os.MkdirAll(dir, 0o755)
			anchored(t, dir)
			c.bend(dir)
			if _, err := Finish(dir, nil); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Finish: %v, want %q", err, c.want)
			}
			if _, _, err := Load(dir); err != ErrRecording {
				t.Errorf("Load: %v, want ErrRecording", err)
			}
		})
	}
}

// A file whose writer fails is not staged, and Abandon leaves no
// .recording/ behind: a recording refused before its anchor writes
// nothing (docs/trust.md "Records").
func TestStager_FailedWriteAndAbandon(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "code-1")
	os.MkdirAll(dir, 0o755)
	st, err := NewStager(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	if _, err := st.Add(FindingsFile, func(w io.Writer) error { io.WriteString(w, "{"); return boom }); !errors.Is(err, boom) {
		t.Fatalf("Add: %v, want boom", err)
	}
	ents, _ := os.ReadDir(filepath.Join(dir, RecordingDir))
	if len(ents) != 0 {
		t.Errorf(".recording/ holds %v after a failed write", ents)
	}
	if err := st.Abandon(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(dir, RecordingDir)); err == nil {
		t.Errorf(".recording/ left behind by Abandon")
	}
	if _, err := st.Done([]byte("{}"), nil); err == nil {
		t.Errorf("Done after Abandon staged a round.json")
	}
}
