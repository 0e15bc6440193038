package gate

// Gating a rebased series (docs/review-gate.md §3 "Credit by content"):
// the 100-round series of the gate's benchmark, its branch rebased onto a
// main that moved (one commit on another file), gated with --expect-base
// and credited by replay, against the same series not rebased. Target:
// rebased / not rebased <= 1.5.

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jaekit/spar/lib/gate/fixture"
)

// rebasedSeries writes the benchmark's series of n rounds under a new
// temporary folder and rebases its branch: main moves by one commit (a
// README) and the rounds' commits are made again on top of it, each with
// its own file changes (git fast-import). It returns the round folders,
// the reviewed head and its base, and the rebased head and its base.
func rebasedSeries(tb testing.TB, n int) (dirs []string, head, base, newHead, newBase string) {
	root := tb.TempDir()
	dirs = fixture.SeriesPackets(tb, root, n)
	repo := filepath.Join(root, "repo")
	git := func(stdin []byte, args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
		cmd.Stdin = bytes.NewReader(stdin)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			tb.Fatalf("git %v: %v\n%s", args, err, errb.Bytes())
		}
		return out.String()
	}
	commits := strings.Fields(git(nil, "rev-list", "--reverse", "main"))
	if len(commits) != n+1 {
		tb.Fatalf("the fixture's repository has %d commits, want %d", len(commits), n+1)
	}
	base, head = commits[0], commits[n]
	var s bytes.Buffer
	fmt.Fprintf(&s, "commit refs/heads/upstream\nmark :1\ncommitter spar <spar@example.invalid> 1800000000 +0000\ndata 6\nreadme\nfrom %s\nM 100644 inline README\ndata 7\nreadme\n\n", base)
	// Each commit of the branch again, on top of the moved main: its
	// changed blobs, as git log --raw lists them.
	mark := 1
	for _, block := range strings.Split(git(nil, "log", "--reverse", "--raw", "--no-abbrev", "--no-renames", "--format=@%H", base+".."+head), "@")[1:] {
		lines := strings.Split(strings.TrimSpace(block), "\n")
		mark++
		fmt.Fprintf(&s, "commit refs/heads/rebased\nmark :%d\ncommitter spar <spar@example.invalid> %d +0000\ndata 8\nrebased\nfrom :%d\n", mark, 1800000000+mark, mark-1)
		for _, l := range lines[1:] {
			meta, path, ok := strings.Cut(l, "\t")
			f := strings.Fields(meta)
			if l == "" {
				continue
			}
			if !ok || len(f) != 5 {
				tb.Fatalf("git log --raw: %q", l)
			}
			if f[4] == "D" {
				fmt.Fprintf(&s, "D %s\n", path)
			} else {
				fmt.Fprintf(&s, "M %s %s %s\n", f[1], f[3], path)
			}
		}
		s.WriteString("\n")
	}
	git(s.Bytes(), "fast-import", "--quiet")
	newBase = strings.TrimSpace(git(nil, "rev-parse", "upstream"))
	newHead = strings.TrimSpace(git(nil, "rev-parse", "rebased"))
	return dirs, head, base, newHead, newBase
}

// gateAt gates dirs at head with --expect-base base; replay: the head must
// be credited by replay.
func gateAt(tb testing.TB, dirs []string, env func(string) string, head, base string, replay bool) {
	rec := Decide(Options{Rounds: dirs, Getenv: env, ExpectHead: head, ExpectHeadGiven: true, ExpectBase: base, ExpectBaseGiven: true})
	if rec.State != Passed {
		tb.Fatalf("benchmark series blocked at %s: %q", head, rec.Reasons[:min(3, len(rec.Reasons))])
	}
	if got := len(rec.Credits) == 1 && rec.Credits[0].How == "replay"; got != replay {
		tb.Fatalf("credits at %s: %+v", head, rec.Credits)
	}
}

// BenchmarkGateRebased100 gates the 100-round series at its reviewed head
// and at its rebased head (credited by replay) in each iteration, and
// reports both times and their ratio (the CPU times too: on a shared
// machine the wall time also measures the neighbours).
func BenchmarkGateRebased100(b *testing.B) {
	dirs, head, base, newHead, newBase := rebasedSeries(b, 100)
	env := benchEnv(b)
	b.ResetTimer()
	var tp, tr, cp, cr time.Duration
	for i := 0; i < b.N; i++ {
		t0, c0 := time.Now(), fixture.CPUTime()
		gateAt(b, dirs, env, head, base, false)
		t1, c1 := time.Now(), fixture.CPUTime()
		gateAt(b, dirs, env, newHead, newBase, true)
		tp += t1.Sub(t0)
		tr += time.Since(t1)
		cp += c1 - c0
		cr += fixture.CPUTime() - c1
	}
	b.ReportMetric(tp.Seconds()/float64(b.N), "s/plain")
	b.ReportMetric(tr.Seconds()/float64(b.N), "s/rebased")
	b.ReportMetric(float64(tr)/float64(tp), "ratio_rebased/plain")
	b.ReportMetric(float64(cr)/float64(cp), "cpu-ratio_rebased/plain")
}

// TestGateRebased keeps the benchmark's series honest in `make test`: a
// small series passes at its reviewed head, and at its rebased head by
// replay.
func TestGateRebased(t *testing.T) {
	dirs, head, base, newHead, newBase := rebasedSeries(t, 5)
	env := benchEnv(t)
	gateAt(t, dirs, env, head, base, false)
	gateAt(t, dirs, env, newHead, newBase, true)
}
