package gate

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/jaekit/spar/lib/round"
)

// G32: the fast readers agree with lib/round's on every form, valid or not:
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
		if err := os.WriteFile(filepath.Join(dir, round.LedgerFile), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		got, gerr := readLedger(dir)
		want, werr := round.ReadLedger(dir)
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
	dirs := benchSeries(t, 20)
	full, err := round.ReadRecord(dirs[3])
	if err != nil {
		t.Fatal(err)
	}
	head, err := readHead(dirs[3])
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
		if err := os.WriteFile(filepath.Join(dir, round.RoundFile), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		_, gerr := readHead(dir)
		_, werr := round.ReadRecord(dir)
		if gerr == nil || werr == nil || gerr.Error() != werr.Error() {
			t.Errorf("%s: error %v, lib/round %v", name, gerr, werr)
		}
	}
}
