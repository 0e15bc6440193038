package gate

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Contains gives the same answer one commit at a time (git merge-base
// --is-ancestor) and through one rev-list of the head.
func TestG27_FixedCommitContained(t *testing.T) {
	dirs := benchSeries(t, 20)
	rec, err := readRecordForTest(dirs)
	if err != nil {
		t.Fatal(err)
	}
	head := rec[10] // the head of round 10
	commits := append([]string{}, rec...)
	commits = append(commits, "nosuchrev", rec[3][:12])
	defer func(n int) { ManyCommits = n }(ManyCommits)
	for _, many := range []int{1000, 0} {
		ManyCommits = many
		got := Contains(filepath.Join(filepath.Dir(filepath.Dir(filepath.Dir(dirs[0]))), "repo"), head, commits)
		for i, c := range rec {
			want := i <= 10
			if (got[c] == nil) != want {
				t.Errorf("ManyCommits=%d: commit %d contained=%v, want %v (%v)", many, i, got[c] == nil, want, got[c])
			}
			if got[c] != nil && !errors.Is(got[c], errNotAncestor) {
				t.Errorf("ManyCommits=%d: commit %d: %v", many, i, got[c])
			}
		}
		if got["nosuchrev"] == nil || errors.Is(got["nosuchrev"], errNotAncestor) {
			t.Errorf("ManyCommits=%d: unresolvable commit: %v", many, got["nosuchrev"])
		}
		if got[rec[3][:12]] != nil {
			t.Errorf("ManyCommits=%d: abbreviated contained commit: %v", many, got[rec[3][:12]])
		}
	}
}

// readRecordForTest returns the base and the heads of the benchmark series.
func readRecordForTest(dirs []string) ([]string, error) {
	var out []string
	for i, d := range dirs {
		r := readRound(d, nil)
		if r.state != published {
			return nil, r.err
		}
		if i == 0 {
			out = append(out, r.rec.Base)
		}
		out = append(out, r.rec.Head)
	}
	return out, nil
}

func TestNextName(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"code-2", "code-3", "plan"} {
		if err := os.Mkdir(filepath.Join(dir, n), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for latest, want := range map[string]string{"code-2": "code-4", "plan": "plan-2", "code-1-rerun": "code-1-rerun-2", "x-007": "x-007-2"} {
		s := &seriesData{abs: dir, latest: &roundData{name: latest}}
		if got := s.nextName(); got != want {
			t.Errorf("after %s: %s, want %s", latest, got, want)
		}
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"reviews/a/code-1": "reviews/a/code-1",
		"my dir":           "'my dir'",
		"it's":             `'it'\''s'`,
		"":                 "''",
		"a{b,c}":           "'a{b,c}'",
		"two\nlines\n":     `$'two\nlines\n'`,
		"it's\t\\ \x01":    `$'it\'s\t\\ \x01'`,
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("%q: %s, want %s", in, got, want)
		}
	}
	// Every form reads back byte for byte in a shell.
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	for _, in := range []string{"plain", "my dir", "it's", "two\nlines\n", "tab\tand\\back'quote\x7f\x01", "- starts with a dash"} {
		out, err := exec.Command(bash, "-c", "printf %s "+shellQuote(in)).Output()
		if err != nil || string(out) != in {
			t.Errorf("%q: the shell read %q (%v)", in, out, err)
		}
	}
}

// A reason is one line even when a record brings a control character.
func TestReasonOneLine(t *testing.T) {
	g := &gate{rec: &Record{}}
	g.reason("1", "round %s: %s", "a\nb", "c\td")
	g.finish()
	if len(g.rec.Reasons) != 1 || strings.ContainsAny(g.rec.Reasons[0], "\n\t") || g.rec.Reasons[0] != `round a\nb: c\td` {
		t.Errorf("%q", g.rec.Reasons)
	}
}
