package publog

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jaekit/spar/lib/seriesref"
)

// gitRepo makes an empty repository with a series folder beside its
// files, ignored.
func gitRepo(t testing.TB) (repo, series string) {
	t.Helper()
	repo = t.TempDir()
	run(t, repo, "git", "init", "-q")
	write(t, filepath.Join(repo, ".gitignore"), "reviews/\n")
	series = filepath.Join(repo, "reviews", "s")
	if err := os.MkdirAll(series, 0o755); err != nil {
		t.Fatal(err)
	}
	return repo, series
}

func run(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %v: %s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func write(t testing.TB, p, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// publish publishes the series folder as spar push does locally and
// returns the publish.
func publish(t testing.TB, repo, series string) string {
	t.Helper()
	n, err := seriesref.CheckName(filepath.Base(series))
	if err != nil {
		t.Fatal(err)
	}
	p, err := seriesref.Prepare(repo, series, n)
	if err != nil {
		t.Fatal(err)
	}
	if err := seriesref.Advance(repo, n, p); err != nil {
		t.Fatal(err)
	}
	return p.Commit
}

const pendingRound = `{"schema":"review-round/v1","reviewers":[{"name":"native","status":"pending"}]}`

// A series that grows as spar grows it: rounds added, ledgers and waivers
// appended, summary.md rewritten, a pending native review recorded.
func TestWalk_AGrowingSeriesPasses(t *testing.T) {
	repo, s := gitRepo(t)
	write(t, filepath.Join(s, "code-1", "round.json"), `{"reviewers":[]}`)
	write(t, filepath.Join(s, "code-1", "findings.json"), `{"findings":[]}`)
	write(t, filepath.Join(s, "code-1", "summary.md"), "one\n")
	publish(t, repo, s)
	write(t, filepath.Join(s, "code-1", "ledger.jsonl"), "{\"a\":1}\n")
	publish(t, repo, s)
	write(t, filepath.Join(s, "code-1", "ledger.jsonl"), "{\"a\":1}\n{\"b\":2}\n")
	write(t, filepath.Join(s, "code-1", "summary.md"), "two\n")
	write(t, filepath.Join(s, "extensions.jsonl"), "{\"by\":1}\n")
	publish(t, repo, s)
	write(t, filepath.Join(s, "code-2", "round.json"), pendingRound)
	write(t, filepath.Join(s, "code-2", "findings.json"), `{"findings":[]}`)
	publish(t, repo, s)
	write(t, filepath.Join(s, "code-2", "round.json"), `{"reviewers":[{"name":"native","status":"completed"}]}`)
	write(t, filepath.Join(s, "code-2", "findings.json"), `{"findings":[1]}`)
	write(t, filepath.Join(s, "code-2", "native", "result.json"), `{}`)
	tip := publish(t, repo, s)
	n, err := Walk(repo, tip)
	if err != nil || n != 5 {
		t.Fatalf("Walk: %d publishes, %v", n, err)
	}
	if err := Holds(repo, tip, s); err != nil {
		t.Fatalf("Holds: %v", err)
	}
}

// docs/trust.md "A series only grows": a publish that prunes a round (a
// fast-forward whose tree lacks it), cuts a ledger, or rewrites a recorded
// file is found, whichever publish of the history it is.
func TestTrust_PrunedPublish(t *testing.T) {
	for _, tc := range []struct {
		name, what, path string
		edit             func(t *testing.T, s string)
	}{
		{"round removed", "removed", "code-1/findings.json", func(t *testing.T, s string) {
			os.RemoveAll(filepath.Join(s, "code-1"))
		}},
		{"ledger cut", "cut", "code-1/ledger.jsonl", func(t *testing.T, s string) {
			write(t, filepath.Join(s, "code-1", "ledger.jsonl"), "{\"a\":2}\n")
		}},
		{"findings rewritten", "rewritten", "code-1/findings.json", func(t *testing.T, s string) {
			write(t, filepath.Join(s, "code-1", "findings.json"), `{"findings":[]}`)
		}},
		{"round.json rewritten", "rewritten", "code-1/round.json", func(t *testing.T, s string) {
			write(t, filepath.Join(s, "code-1", "round.json"), `{"reviewers":[{"name":"x","status":"completed"}]}`)
		}},
		{"extensions cut", "cut", "extensions.jsonl", func(t *testing.T, s string) {
			write(t, filepath.Join(s, "extensions.jsonl"), "")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo, s := gitRepo(t)
			write(t, filepath.Join(s, "code-1", "round.json"), `{"reviewers":[]}`)
			write(t, filepath.Join(s, "code-1", "findings.json"), `{"findings":[{"class":"defect"}]}`)
			write(t, filepath.Join(s, "code-1", "ledger.jsonl"), "{\"a\":1}\n")
			write(t, filepath.Join(s, "extensions.jsonl"), "{\"by\":1}\n")
			write(t, filepath.Join(s, "code-2", "round.json"), `{"reviewers":[]}`)
			good := publish(t, repo, s)
			// The folder pruned: Holds finds it before any publish.
			tc.edit(t, s)
			var v *Violation
			if err := Holds(repo, good, s); !errors.As(err, &v) || v.What != tc.what || v.Path != tc.path {
				t.Fatalf("Holds: %v, want %s %s", err, tc.what, tc.path)
			}
			// Published as a fast-forward, then another publish on top:
			// the walk finds the pruning publish in the history.
			bad := publish(t, repo, s)
			write(t, filepath.Join(s, "code-3", "round.json"), `{"reviewers":[]}`)
			tip := publish(t, repo, s)
			_, err := Walk(repo, tip)
			if !errors.As(err, &v) || v.What != tc.what || v.Path != tc.path || v.Publish != bad || v.Parent != good {
				t.Fatalf("Walk: %v, want %s %s in %s", err, tc.what, tc.path, bad)
			}
			if !strings.Contains(err.Error(), tc.path) {
				t.Errorf("the error does not name the record: %v", err)
			}
		})
	}
}

// A history past the bound is an error of its own, not a walk without end.
func TestWalk_Bounded(t *testing.T) {
	repo, s := gitRepo(t)
	old := MaxPublishes
	MaxPublishes = 3
	defer func() { MaxPublishes = old }()
	var tip string
	for i := 0; i < 4; i++ {
		write(t, filepath.Join(s, "r", "ledger.jsonl"), strings.Repeat("{}\n", i+1))
		tip = publish(t, repo, s)
	}
	if _, err := Walk(repo, tip); !errors.Is(err, ErrTooLong) {
		t.Fatalf("Walk: %v, want ErrTooLong", err)
	}
}
