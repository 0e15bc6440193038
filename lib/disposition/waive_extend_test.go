package disposition

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/round"
)

var required = []envelope.RequiredReviewer{{Name: "claude", Preset: "claude"}, {Name: "my-agy", Preset: "agy"}}

// TestG20_Waive: the name is literally a required reviewer of the round
// (configured_required); the user's words are not blank (G30).
func TestG20_Waive(t *testing.T) {
	repo, _ := gitRepo(t)
	series := filepath.Join(t.TempDir(), "s")
	dir := writeRound(t, series, roundFixture{name: "code-1", stage: "code", repo: repo, required: required})
	dry := writeRound(t, series, roundFixture{name: "dry", stage: "code", repo: repo, required: required, dry: true})
	cases := []struct {
		name, dir, reviewer, quote string
		want                       int
		msg                        string
	}{
		{"required preset name", dir, "claude", "skip claude today", 0, ""},
		{"required custom name", dir, "my-agy", "  agy is down  ", 0, ""},
		{"again appends", dir, "claude", "still skip", 0, ""},
		{"case differs", dir, "Claude", "q", 65, `"Claude" is not a required reviewer of round "code-1" (required: "claude", "my-agy")`},
		{"not required", dir, "codex", "q", 65, `"codex" is not a required reviewer`},
		{"outside G20 syntax", dir, "-x", "q", 65, `"-x"`},
		{"empty name", dir, "", "q", 65, `"" is not a required reviewer`},
		{"no words", dir, "claude", "", 65, "needs the user's words"},
		{"blank words", dir, "claude", " \t\n", 65, "needs the user's words"},
		{"dry run", dry, "claude", "q", 65, "is a dry run"},
		{"no round", filepath.Join(series, "nope"), "claude", "q", 65, "is not a round folder"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(c.dir, round.WaiversFile)
			before := readFile(t, p)
			w, err := Waive(WaiveRequest{Round: c.dir, Reviewer: c.reviewer, UserQuote: c.quote}, &bytes.Buffer{})
			if got := code(err); got != c.want {
				t.Fatalf("exit %d, want %d (%v)", got, c.want, err)
			}
			after := readFile(t, p)
			if c.want != 0 {
				if after != before {
					t.Fatalf("refused but waivers.jsonl changed: %q", after)
				}
				if !strings.Contains(err.Error(), c.msg) || !strings.HasPrefix(err.Error(), "waive: ") {
					t.Fatalf("message %q, want %q", err, c.msg)
				}
				return
			}
			ws, ok, err := round.ReadWaivers(c.dir)
			if err != nil || !ok {
				t.Fatal(ok, err)
			}
			last := ws[len(ws)-1]
			if last != w || w.Reviewer != c.reviewer || w.UserQuote != c.quote || w.At == "" {
				t.Fatalf("%+v %+v", last, w)
			}
			for _, r := range required {
				if r.Name == c.reviewer && w.Preset != r.Preset {
					t.Fatalf("preset %q", w.Preset)
				}
			}
		})
	}
}

// TestG32_WaiveRefusesUnreadableWaivers: when waivers.jsonl exists every
// line has reviewer, preset and a non-blank user_quote; otherwise waive
// refuses and writes nothing.
func TestG32_WaiveRefusesUnreadableWaivers(t *testing.T) {
	for name, content := range map[string]string{
		"not JSON":        "{\n",
		"no reviewer":     `{"preset":"claude","user_quote":"q","at":"x"}` + "\n",
		"no preset":       `{"reviewer":"claude","user_quote":"q","at":"x"}` + "\n",
		"no quote":        `{"reviewer":"claude","preset":"claude","at":"x"}` + "\n",
		"blank quote":     `{"reviewer":"claude","preset":"claude","user_quote":"  ","at":"x"}` + "\n",
		"second line bad": `{"reviewer":"claude","preset":"claude","user_quote":"q","at":"x"}` + "\n[]\n",
	} {
		t.Run(name, func(t *testing.T) {
			repo, _ := gitRepo(t)
			dir := writeRound(t, filepath.Join(t.TempDir(), "s"), roundFixture{name: "code-1", stage: "code", repo: repo, required: required})
			p := filepath.Join(dir, round.WaiversFile)
			os.WriteFile(p, []byte(content), 0o644)
			_, err := Waive(WaiveRequest{Round: dir, Reviewer: "claude", UserQuote: "q"}, &bytes.Buffer{})
			if code(err) != 65 || !strings.Contains(err.Error(), "waivers.jsonl: line") {
				t.Fatalf("%v", err)
			}
			if readFile(t, p) != content {
				t.Fatal("waivers.jsonl changed")
			}
		})
	}
	t.Run("unfinished round", func(t *testing.T) {
		repo, _ := gitRepo(t)
		dir := writeRound(t, filepath.Join(t.TempDir(), "s"), roundFixture{name: "code-1", stage: "code", repo: repo, required: required, unfinished: true})
		_, err := Waive(WaiveRequest{Round: dir, Reviewer: "claude", UserQuote: "q"}, &bytes.Buffer{})
		if code(err) != 65 || !strings.Contains(err.Error(), "stopped before recording") {
			t.Fatalf("%v", err)
		}
		if _, err := os.Stat(filepath.Join(dir, round.WaiversFile)); !os.IsNotExist(err) {
			t.Fatal("waivers.jsonl written")
		}
	})
}

// TestG31_ExtensionArguments: every accepted form and every result outside
// the format of extend --stage, --by, --cause, --reason.
func TestG31_ExtensionArguments(t *testing.T) {
	cases := []struct {
		name string
		req  ExtendRequest
		want int
		ext  round.Extension
	}{
		{"plan", ExtendRequest{Stage: "plan", By: "1"}, 0, round.Extension{Stage: "plan", By: 1}},
		{"plan-delta by 3", ExtendRequest{Stage: "plan-delta", By: "3"}, 0, round.Extension{Stage: "plan-delta", By: 3}},
		{"code churn", ExtendRequest{Stage: "code", By: "1", Cause: "churn", CauseGiven: true}, 0, round.Extension{Stage: "code", By: 1, Cause: "churn"}},
		{"code with reason trimmed", ExtendRequest{Stage: "code", By: "2", Cause: "recurring", CauseGiven: true, Reason: "  the same flake \n", ReasonGiven: true}, 0,
			round.Extension{Stage: "code", By: 2, Cause: "recurring", Reason: "the same flake"}},
		{"code other with reason", ExtendRequest{Stage: "code", By: "1", Cause: "other", CauseGiven: true, Reason: "r", ReasonGiven: true}, 0, round.Extension{Stage: "code", By: 1, Cause: "other", Reason: "r"}},
		{"code by 1 blank reason", ExtendRequest{Stage: "code", By: "1", Cause: "unrelated", CauseGiven: true, Reason: " ", ReasonGiven: true}, 0, round.Extension{Stage: "code", By: 1, Cause: "unrelated"}},
		{"code hardening", ExtendRequest{Stage: "code", By: "01", Cause: "hardening", CauseGiven: true}, 0, round.Extension{Stage: "code", By: 1, Cause: "hardening"}},
		// usage errors
		{"stage plan_delta", ExtendRequest{Stage: "plan_delta", By: "1"}, 64, round.Extension{}},
		{"stage Code", ExtendRequest{Stage: "Code", By: "1"}, 64, round.Extension{}},
		{"stage empty", ExtendRequest{Stage: "", By: "1"}, 64, round.Extension{}},
		{"by 0", ExtendRequest{Stage: "plan", By: "0"}, 64, round.Extension{}},
		{"by negative", ExtendRequest{Stage: "plan", By: "-1"}, 64, round.Extension{}},
		{"by plus", ExtendRequest{Stage: "plan", By: "+1"}, 64, round.Extension{}},
		{"by fraction", ExtendRequest{Stage: "plan", By: "1.5"}, 64, round.Extension{}},
		{"by word", ExtendRequest{Stage: "plan", By: "one"}, 64, round.Extension{}},
		{"by empty", ExtendRequest{Stage: "plan", By: ""}, 64, round.Extension{}},
		{"by spaces", ExtendRequest{Stage: "plan", By: " 1"}, 64, round.Extension{}},
		{"by overflow", ExtendRequest{Stage: "plan", By: "99999999999999999999999"}, 64, round.Extension{}},
		{"code without cause", ExtendRequest{Stage: "code", By: "1"}, 64, round.Extension{}},
		{"code cause outside list", ExtendRequest{Stage: "code", By: "1", Cause: "Churn", CauseGiven: true}, 64, round.Extension{}},
		{"code cause empty", ExtendRequest{Stage: "code", By: "1", Cause: "", CauseGiven: true}, 64, round.Extension{}},
		{"plan with cause", ExtendRequest{Stage: "plan", By: "1", Cause: "churn", CauseGiven: true}, 64, round.Extension{}},
		{"plan-delta with reason", ExtendRequest{Stage: "plan-delta", By: "1", Reason: "r", ReasonGiven: true}, 64, round.Extension{}},
		{"plan with empty reason", ExtendRequest{Stage: "plan", By: "1", Reason: "", ReasonGiven: true}, 64, round.Extension{}},
		// refusals: a missing reason that is needed
		{"code by 2 without reason", ExtendRequest{Stage: "code", By: "2", Cause: "churn", CauseGiven: true}, 65, round.Extension{}},
		{"code by 2 blank reason", ExtendRequest{Stage: "code", By: "2", Cause: "churn", CauseGiven: true, Reason: "\t", ReasonGiven: true}, 65, round.Extension{}},
		{"code other without reason", ExtendRequest{Stage: "code", By: "1", Cause: "other", CauseGiven: true}, 65, round.Extension{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			series := filepath.Join(t.TempDir(), "s")
			c.req.Series = series
			e, err := Extend(c.req, &bytes.Buffer{})
			if got := code(err); got != c.want {
				t.Fatalf("exit %d, want %d (%v)", got, c.want, err)
			}
			p := filepath.Join(series, round.ExtensionFile)
			if c.want != 0 {
				if _, err := os.Stat(series); !os.IsNotExist(err) {
					t.Fatalf("refused but the series was created")
				}
				return
			}
			exts, err := round.ReadExtensions(series)
			if err != nil || len(exts) != 1 {
				t.Fatalf("%v %+v\n%s", err, exts, readFile(t, p))
			}
			c.ext.At = e.At
			if exts[0] != c.ext || e != c.ext || e.At == "" {
				t.Fatalf("recorded %+v, returned %+v, want %+v", exts[0], e, c.ext)
			}
			line := readFile(t, p)
			if c.ext.Cause == "" && strings.Contains(line, "cause") || c.ext.Reason == "" && strings.Contains(line, "reason") {
				t.Fatalf("line %q", line)
			}
		})
	}
}

// TestG28_ExtendSeriesPath: the series of extend is a record path.
func TestG28_ExtendSeriesPath(t *testing.T) {
	repo, _ := gitRepo(t)
	git := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.invalid", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.invalid")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v %s", err, out)
		}
	}
	os.WriteFile(filepath.Join(repo, ".gitignore"), []byte("reviews/\n"), 0o644)
	os.MkdirAll(filepath.Join(repo, "docs"), 0o755)
	os.WriteFile(filepath.Join(repo, "docs", "x.md"), []byte("x\n"), 0o644)
	git("add", ".gitignore", "docs/x.md")
	git("commit", "-q", "-m", "two")
	ok := func(p string) {
		t.Helper()
		if _, err := Extend(ExtendRequest{Series: p, Stage: "plan", By: "1"}, &bytes.Buffer{}); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if exts, err := round.ReadExtensions(p); err != nil || len(exts) != 1 {
			t.Fatalf("%v %v", exts, err)
		}
	}
	bad := func(p, msg string) {
		t.Helper()
		_, statErr := os.Stat(p)
		_, err := Extend(ExtendRequest{Series: p, Stage: "plan", By: "1"}, &bytes.Buffer{})
		if code(err) != 65 || !strings.Contains(err.Error(), msg) {
			t.Fatalf("%s: %v, want 65 with %q", p, err, msg)
		}
		if _, err := os.Stat(filepath.Join(p, round.ExtensionFile)); err == nil {
			t.Fatalf("%s: extensions.jsonl written", p)
		}
		if _, err := os.Stat(p); os.IsNotExist(statErr) && !os.IsNotExist(err) {
			t.Fatalf("%s: created", p)
		}
	}
	ok(filepath.Join(repo, "reviews", "login"))    // ignored, created
	ok(filepath.Join(t.TempDir(), "outside", "s")) // outside any repository
	bad(filepath.Join(repo, "notes", "s"), "is not ignored")
	bad(filepath.Join(repo, "docs"), "tracked")
	bad(repo, "working tree")
	f := filepath.Join(t.TempDir(), "file")
	os.WriteFile(f, []byte("x"), 0o644)
	bad(f, "is not a folder")
}

// TestG32_ExtendRefusesUnreadableExtensions.
func TestG32_ExtendRefusesUnreadableExtensions(t *testing.T) {
	for name, content := range map[string]string{
		"not JSON": "nope\n",
		"no stage": `{"by":1,"at":"x"}` + "\n",
		"by 0":     `{"stage":"plan","by":0,"at":"x"}` + "\n",
	} {
		t.Run(name, func(t *testing.T) {
			series := filepath.Join(t.TempDir(), "s")
			os.MkdirAll(series, 0o755)
			p := filepath.Join(series, round.ExtensionFile)
			os.WriteFile(p, []byte(content), 0o644)
			_, err := Extend(ExtendRequest{Series: series, Stage: "plan", By: "1"}, &bytes.Buffer{})
			if code(err) != 65 || !strings.Contains(err.Error(), "extensions.jsonl: line 1") {
				t.Fatalf("%v", err)
			}
			if readFile(t, p) != content {
				t.Fatal("changed")
			}
		})
	}
	t.Run("older line without cause reads", func(t *testing.T) {
		series := filepath.Join(t.TempDir(), "s")
		os.MkdirAll(series, 0o755)
		os.WriteFile(filepath.Join(series, round.ExtensionFile), []byte(`{"stage":"code","by":1,"at":"x"}`+"\n"), 0o644)
		if _, err := Extend(ExtendRequest{Series: series, Stage: "code", By: "1", Cause: "churn", CauseGiven: true}, &bytes.Buffer{}); err != nil {
			t.Fatal(err)
		}
	})
}
