package round

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/pipe"
)

func writeRound(t *testing.T, dir, findings string, finished bool, sum string) {
	t.Helper()
	os.MkdirAll(dir, 0o755)
	if findings != "" {
		os.WriteFile(filepath.Join(dir, FindingsFile), []byte(findings), 0o644)
	}
	rec := Record{Schema: Schema, Name: filepath.Base(dir)}
	if finished {
		at := "2026-01-02T03:04:05Z"
		rec.FinishedAt, rec.FindingsSHA256 = &at, &sum
	}
	if err := WriteJSON(filepath.Join(dir, RoundFile), rec); err != nil {
		t.Fatal(err)
	}
}

// G29/G32 and docs/review-round.md §1: a reader accepts a round only when round.json
// has finished_at and findings.json has the sha256 round.json names;
// anything else is a round that stopped before recording, and a record that
// is not review-round/v1 is unreadable.
func TestG29_Load(t *testing.T) {
	base := t.TempDir()
	fs := `{"schema":"review-round/v1","round":"r","findings":[]}` + "\n"
	ok := filepath.Join(base, "ok")
	writeRound(t, ok, fs, true, SHA256([]byte(fs)))
	if _, f, err := Load(ok); err != nil || f.Round != "r" {
		t.Fatalf("finished round: %v", err)
	}
	for name, c := range map[string]struct {
		findings string
		finished bool
		sum      string
	}{
		"no finished_at":               {fs, false, ""},
		"another recording's findings": {fs, true, SHA256([]byte("other"))},
	} {
		dir := filepath.Join(base, strings.ReplaceAll(name, " ", "-"))
		writeRound(t, dir, c.findings, c.finished, c.sum)
		if _, _, err := Load(dir); !errors.Is(err, ErrUnfinished) {
			t.Errorf("%s: %v, want ErrUnfinished", name, err)
		}
	}
	bad := filepath.Join(base, "bad")
	os.MkdirAll(bad, 0o755)
	for _, content := range []string{`{"schema":"review-round/v2"}`, `not json`, `{"schema":"review-round/v1"} {}`} {
		os.WriteFile(filepath.Join(bad, RoundFile), []byte(content), 0o644)
		if _, _, err := Load(bad); err == nil || errors.Is(err, ErrUnfinished) {
			t.Errorf("%q: %v, want an unreadable record", content, err)
		}
	}
	// G29, G32: finished_at without findings.json is a missing file, not a
	// round that stopped before recording.
	gone := filepath.Join(base, "findings-gone")
	writeRound(t, gone, "", true, SHA256([]byte(fs)))
	if _, _, err := Load(gone); err == nil || errors.Is(err, ErrUnfinished) || err.Error() != "findings.json is missing" {
		t.Errorf("findings.json missing: %v, want an unreadable record", err)
	}
	if _, _, err := Load(filepath.Join(base, "missing")); err == nil || errors.Is(err, ErrUnfinished) {
		t.Errorf("missing round: %v", err)
	}
	// findings.json with the right sha256 but another schema is unreadable.
	other := `{"schema":"x/v1","round":"r","findings":[]}`
	dir := filepath.Join(base, "other-schema")
	writeRound(t, dir, other, true, SHA256([]byte(other)))
	if _, _, err := Load(dir); err == nil || errors.Is(err, ErrUnfinished) {
		t.Errorf("findings schema: %v", err)
	}
}

func TestG32_LedgerPartialLastLine(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, LedgerFile), []byte(`{"finding":"a-F1","disposition":"deferred","auto":true,"at":"x"}`+"\n"+`{"finding":"a-F2","dispo`), 0o644)
	l, err := ReadLedger(dir)
	if err != nil || len(l) != 1 || l[0].Finding != "a-F1" || !l[0].Auto {
		t.Fatalf("%+v %v", l, err)
	}
	os.WriteFile(filepath.Join(dir, LedgerFile), []byte("{\"finding\":\"a-F1\"}\n"), 0o644)
	if _, err := ReadLedger(dir); err == nil {
		t.Fatal("a line without disposition read")
	}
	os.WriteFile(filepath.Join(dir, LedgerFile), []byte("nope\n"), 0o644)
	if _, err := ReadLedger(dir); err == nil {
		t.Fatal("a line that is not JSON read")
	}
	if l, err := ReadLedger(t.TempDir()); err != nil || len(l) != 0 {
		t.Fatalf("missing ledger: %v %v", l, err)
	}
}

func TestG32_ExtensionsWithoutCause(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, ExtensionFile), []byte(`{"stage":"plan","by":1,"at":"x"}`+"\n"+`{"stage":"code","by":2,"cause":"churn","reason":"r","at":"y"}`+"\n"), 0o644)
	e, err := ReadExtensions(dir)
	if err != nil || len(e) != 2 || e[0].Cause != "" || e[1].By != 2 {
		t.Fatalf("%+v %v", e, err)
	}
	os.WriteFile(filepath.Join(dir, ExtensionFile), []byte(`{"stage":"code","by":0,"at":"x"}`+"\n"), 0o644)
	if _, err := ReadExtensions(dir); err == nil {
		t.Fatal("by 0 read")
	}
}

func TestListRoundsOrder(t *testing.T) {
	s := t.TempDir()
	for _, r := range []struct{ name, started string }{{"b", "2"}, {"a", "2"}, {"c", "1"}} {
		os.MkdirAll(filepath.Join(s, r.name), 0o755)
		WriteJSON(filepath.Join(s, r.name, RoundFile), Record{Schema: Schema, StartedAt: r.started})
	}
	os.MkdirAll(filepath.Join(s, "no-round"), 0o755)
	// One definition of a series' rounds (docs/review-gate.md §2): a round
	// moved away behind a link is still a round, and a folder whose
	// round.json is gone but whose ledger remains is a round (unreadable,
	// without started_at: first).
	away := filepath.Join(t.TempDir(), "d")
	os.MkdirAll(away, 0o755)
	WriteJSON(filepath.Join(away, RoundFile), Record{Schema: Schema, StartedAt: "0"})
	if err := os.Symlink(away, filepath.Join(s, "d")); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(s, "e"), 0o755)
	os.WriteFile(filepath.Join(s, "e", LedgerFile), nil, 0o644)
	os.WriteFile(filepath.Join(s, "f"), []byte("a file"), 0o644)
	got, err := ListRounds(s)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range got {
		names = append(names, filepath.Base(d))
	}
	if strings.Join(names, ",") != "e,d,c,a,b" {
		t.Fatalf("%v", names)
	}
}

// WriteFindings writes the bytes MarshalIndent gives the whole record, for
// none, one and many findings (the record Load holds to its sha256).
func TestWriteFindings_IsMarshalIndent(t *testing.T) {
	for _, fs := range [][]envelope.Finding{nil, {{ID: "a-F1", Class: "defect", Claim: "<x> & \"y\"\n"}},
		{{ID: "a-F1", Evidence: strings.Repeat("é\\\"", 40000)}, {ID: "a-F2", CommittedClass: "defect"}}} {
		want := fs
		if want == nil {
			want = []envelope.Finding{}
		}
		b, err := pipe.MarshalIndent(Findings{Schema: Schema, Round: "code-1", Findings: want})
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := WriteFindings(&got, "code-1", fs); err != nil {
			t.Fatal(err)
		}
		if got.String() != string(b) {
			t.Errorf("%d findings: got\n%.200s\nwant\n%.200s", len(fs), got.String(), b)
		}
	}
}

// TestStartedAtAsDecoded: ListRounds' reading of started_at gives what
// encoding/json gives for it alone, for the record spar writes and for
// hand edits (a key twice, another case, another type, not JSON).
func TestStartedAtAsDecoded(t *testing.T) {
	for _, text := range []string{
		`{"schema":"review-round/v1","started_at":"2026-01-01T00:00:01Z","documents":[{"lines":["a"]}]}`,
		`{"started_at":"2026-01-01T00:00:01Z","started_at":"2026-01-02T00:00:00Z"}`,
		`{"Started_At":"2026-01-03T00:00:00Z"}`, `{"started_at":"a","STARTED_AT":"b"}`,
		`{"started_at":7}`, `{"started_at":null}`, `{"started_at":"x\u00e9\n"}`, `{}`, `[]`, `"x"`, `{"started_at":"a"`, ``,
		`{"other":{"started_at":"nested"}}`,
	} {
		var want struct {
			StartedAt string `json:"started_at"`
		}
		_ = json.Unmarshal([]byte(text), &want)
		if got := startedAt([]byte(text)); got != want.StartedAt {
			t.Errorf("%s: %q, encoding/json %q", text, got, want.StartedAt)
		}
	}
}

// TestIsRound: a round folder is one spar recognises (round.json, or
// another record in a series holding such a round), never a folder that
// merely holds a file named like a record (docs/review-gate.md §5).
func TestIsRound(t *testing.T) {
	root := t.TempDir()
	put := func(rel string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	put("reviews/s/code-1/round.json")
	put("reviews/s/code-0/waivers.jsonl") // round.json gone: unreadable round
	put("own/d/summary.md")
	put("own/e/findings.json")
	for rel, want := range map[string]bool{
		"reviews/s/code-1": true, "reviews/s/code-0": true, "own/d": false, "own/e": false, "own": false, "reviews/s": false,
	} {
		if got := IsRound(filepath.Join(root, rel)); got != want {
			t.Errorf("IsRound(%s) = %v, want %v", rel, got, want)
		}
	}
	for rel, want := range map[string]bool{"reviews/s": true, "own": false, "reviews": false, "reviews/s/code-1": false} {
		if got := IsRecordedSeries(filepath.Join(root, rel)); got != want {
			t.Errorf("IsRecordedSeries(%s) = %v, want %v", rel, got, want)
		}
	}
}
