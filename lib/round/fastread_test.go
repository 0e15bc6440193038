package round

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/jaekit/spar/lib/envelope"
)

// G32: the fast readers agree with the full readers on every form, valid or not:
// the same entries, or the same error.
func TestG32_FastLedgerAgrees(t *testing.T) {
	for name, body := range map[string]string{
		"plain":              `{"finding":"a-F1","disposition":"fixed","commit":"abc","at":"t"}` + "\n" + `{"finding":"a-F2","disposition":"deferred","auto":true,"to":"x","at":"t"}` + "\n",
		"partial last line":  `{"finding":"a-F1","disposition":"rejected","evidence":"e","at":"t"}` + "\n" + `{"finding":"a-F2","dispo`,
		"blank lines":        "\n  \n" + `{"finding":"a-F1","disposition":"answered","user_quote":"q","at":"t"}` + "\n\n",
		"not JSON":           "{not json\n",
		"no disposition":     `{"finding":"a-F1","at":"t"}` + "\n",
		"auto not a boolean": `{"finding":"a-F1","disposition":"deferred","auto":"yes","at":"t"}` + "\n",
		"commit a number":    `{"finding":"a-F1","disposition":"fixed","commit":5,"at":"t"}` + "\n",
		"an array":           `[1,2]` + "\n",
		"two values":         `{"finding":"a-F1","disposition":"fixed"} {}` + "\n",
		"unknown key":        `{"finding":"a-F1","disposition":"fixed","later":{"x":1},"at":"t"}` + "\n",
		"empty":              "",
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, LedgerFile), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		got, gerr := ReadLedger(dir)
		want, werr := decodeLedger(dir)
		if (gerr == nil) != (werr == nil) || (gerr != nil && gerr.Error() != werr.Error()) {
			t.Errorf("%s: error %v, lib/round %v", name, gerr, werr)
			continue
		}
		if len(got) != len(want) || (len(got) > 0 && !reflect.DeepEqual(got, want)) {
			t.Errorf("%s: %+v, lib/round %+v", name, got, want)
		}
	}
}

func TestG32_FastRoundHeadAgrees(t *testing.T) {
	dir := t.TempDir()
	fin, sum, rerun := "2026-01-01T00:00:09Z", "abc", "code-1"
	rec := Record{Schema: Schema, Name: "code-2", Series: "/s", Repo: "/r", Stage: "code", Base: "b", Head: "h",
		StartedAt: "2026-01-01T00:00:01Z", FinishedAt: &fin, FindingsSHA256: &sum, CheckPaths: []string{"checks/**"},
		Counts: Counts{Defect: 1, Note: 2}, Cap: envelope.Cap{Stage: "code", Counted: false, Number: 0, Limit: 3, RerunOf: &rerun},
		Config: envelope.Config{Caps: envelope.Caps{Plan: 1, PlanDelta: 2, Code: 3}}}
	if err := WriteJSON(filepath.Join(dir, RoundFile), rec); err != nil {
		t.Fatal(err)
	}
	full, err := ReadRecord(dir)
	if err != nil {
		t.Fatal(err)
	}
	head, err := ReadHead(dir)
	if err != nil {
		t.Fatal(err)
	}
	if head.Name != full.Name || head.Repo != full.Repo || head.Stage != full.Stage || head.Base != full.Base ||
		head.Head != full.Head || head.DryRun != full.DryRun || head.StartedAt != full.StartedAt ||
		*head.FinishedAt != *full.FinishedAt || *head.FindingsSHA256 != *full.FindingsSHA256 ||
		head.Counts != full.Counts || !reflect.DeepEqual(head.Cap, full.Cap) ||
		!reflect.DeepEqual(head.CheckPaths, full.CheckPaths) || head.Config.Caps != full.Config.Caps {
		t.Errorf("head %+v\nfull %+v", head, full)
	}
	for name, body := range map[string]string{
		"not JSON":        "{not json",
		"other schema":    `{"schema":"review-round/v0"}`,
		"dry_run string":  `{"schema":"review-round/v1","dry_run":"no"}`,
		"cap not object":  `{"schema":"review-round/v1","cap":[]}`,
		"number fraction": `{"schema":"review-round/v1","cap":{"number":1.5}}`,
		"two values":      `{"schema":"review-round/v1"} {}`,
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, RoundFile), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		_, gerr := ReadHead(dir)
		_, werr := ReadRecord(dir)
		if gerr == nil || werr == nil || gerr.Error() != werr.Error() {
			t.Errorf("%s: error %v, lib/round %v", name, gerr, werr)
		}
	}
}

func TestG32_FindingsRead(t *testing.T) {
	good := `{"schema":"review-round/v1","round":"r","findings":[{"id":"a-F1","class":"defect"},{"id":"a-F2","class":"hardening","location_unreadable":true},{"id":"a-F3","class":"hardening","check_path":"**","committed_class":"defect"}]}`
	f, err := ParseFindingHeads([]byte(good))
	if err != nil || len(f) != 3 || f[0] != (FindingHead{ID: "a-F1", Class: "defect"}) || f[1] != (FindingHead{ID: "a-F2", Class: "hardening", LocationUnreadable: true}) ||
		f[2] != (FindingHead{ID: "a-F3", Class: "hardening", CheckPath: "**", CommittedClass: "defect"}) {
		t.Fatalf("got %+v, %v", f, err)
	}
	for _, bad := range []string{
		`{not json`,
		`[]`,
		`{"schema":"review-round/v0","findings":[]}`,
		`{"schema":"review-round/v1","findings":{}}`,
		`{"schema":"review-round/v1","findings":[{"class":"defect"}]}`,
		`{"schema":"review-round/v1","findings":[{"id":"x","class":"bug"}]}`,
		`{"schema":"review-round/v1","findings":[{"id":"x","class":5}]}`,
		`{"schema":"review-round/v1","findings":[{"id":"x","class":"note","location_unreadable":"yes"}]}`,
		`{"schema":"review-round/v1","findings":[{"id":"x","class":"note","check_path":1}]}`,
		`{"schema":"review-round/v1","findings":[{"id":"x","class":"note","committed_class":"bug"}]}`,
	} {
		if _, err := ParseFindingHeads([]byte(bad)); err == nil || !strings.HasPrefix(err.Error(), "findings.json: ") {
			t.Errorf("%s: err %v", bad, err)
		}
	}
}
