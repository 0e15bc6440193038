package gate

// The gate's scale (docs/review-gate.md §7): a generated series of rounds of 50 findings
// each, with ledgers, gated whole. Target: 1,000 rounds under 1 s, cost
// linear in rounds (BenchmarkGateRatio reports the 1000/100 ratio).

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jaekit/spar/lib/gate/fixture"
	"github.com/jaekit/spar/lib/round"
)

var (
	benchMu   sync.Mutex
	benchRoot string
	benchSets = map[int][]string{}
)

func TestMain(m *testing.M) {
	code := m.Run()
	if benchRoot != "" {
		os.RemoveAll(benchRoot)
	}
	os.Exit(code)
}

// benchRepo makes a repository of n+1 commits with git fast-import (one
// process): commit 0 is the base, commit i the head of round i, each
// changing one source file and one check file.
func benchRepo(tb testing.TB, dir string, n int) []string {
	git := func(stdin []byte, args ...string) []byte {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
		cmd.Stdin = bytes.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		if err != nil {
			tb.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return out
	}
	git(nil, "init", "-q", "-b", "main")
	var s bytes.Buffer
	for i := 0; i <= n; i++ {
		fmt.Fprintf(&s, "commit refs/heads/main\nmark :%d\ncommitter spar <spar@example.invalid> %d +0000\ndata 4\nc%03d\n", i+1, 1700000000+i, i%1000)
		if i > 0 {
			fmt.Fprintf(&s, "from :%d\n", i)
		}
		body := strings.Repeat(fmt.Sprintf("line %d\n", i), 1+i%7)
		fmt.Fprintf(&s, "M 100644 inline src/f%d.go\ndata %d\n%s\n", i%20, len(body), body)
		fmt.Fprintf(&s, "M 100644 inline checks/t%d.sh\ndata %d\n%s\n", i%5, len(body), body)
	}
	git(s.Bytes(), "fast-import", "--quiet")
	return strings.Fields(string(git(nil, "rev-list", "--reverse", "main")))
}

// benchSeries writes (once per size) a series of n counted code rounds of 50
// findings each: 10 defects fixed by their round's head, 5 questions
// answered, 25 hardening deferred automatically, 10 notes; the required
// reviewer completed; two documents.
func benchSeries(tb testing.TB, n int) []string {
	benchMu.Lock()
	defer benchMu.Unlock()
	if dirs, ok := benchSets[n]; ok {
		return dirs
	}
	if benchRoot == "" {
		d, err := os.MkdirTemp("", "spar-gate-bench-")
		if err != nil {
			tb.Fatal(err)
		}
		benchRoot = d
	}
	dirs := writeSeries(tb, filepath.Join(benchRoot, fmt.Sprint(n)), n)
	benchSets[n] = dirs
	return dirs
}

// writeSeries writes benchSeries' series of n rounds under root (its
// repository in root/repo, the rounds in root/reviews/s).
func writeSeries(tb testing.TB, root string, n int) []string {
	repo := filepath.Join(root, "repo")
	if err := os.MkdirAll(repo, 0o755); err != nil {
		tb.Fatal(err)
	}
	commits := benchRepo(tb, repo, n)
	for _, d := range []string{"rules.md", "criteria.md"} {
		if err := os.WriteFile(filepath.Join(root, d), []byte(strings.Repeat("a rule line of the document\n", 100)), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	fixture.Sync = false
	defer func() { fixture.Sync = true }()
	var dirs []string
	for i := 1; i <= n; i++ {
		s := fixture.Spec{
			Dir: filepath.Join("reviews", "s", fmt.Sprintf("code-%d", i)), Repo: "repo",
			Base: commits[0], Head: commits[i], Number: i,
			StartedAt:  time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Second).Format(time.RFC3339),
			Required:   []string{"codex"},
			Reviewers:  []string{"codex=completed", "claude=completed"},
			CheckPaths: []string{"checks/**"},
			Documents:  []fixture.Document{{Role: "rule", Path: "rules.md"}, {Role: "criteria", Path: "criteria.md"}},
		}
		for k := 0; k < 50; k++ {
			id := fmt.Sprintf("codex-F%d", k+1)
			var class string
			var e *round.LedgerEntry
			switch {
			case k < 10:
				class = "defect"
				e = &round.LedgerEntry{Finding: id, Disposition: "fixed", Commit: commits[i], FailedBefore: "go test ./x", PassedAfter: "go test ./x"}
			case k < 15:
				class = "requirement-question"
				e = &round.LedgerEntry{Finding: id, Disposition: "answered", UserQuote: "keep the old behaviour"}
			case k < 40:
				class = "hardening"
				e = &round.LedgerEntry{Finding: id, Disposition: "deferred", Auto: true, To: "hardening backlog"}
			default:
				class = "note"
			}
			s.Findings = append(s.Findings, fixture.Finding{ID: id, Class: class})
			if e != nil {
				s.Ledger = append(s.Ledger, *e)
			}
		}
		if err := fixture.Write(root, s); err != nil {
			tb.Fatal(err)
		}
		dirs = append(dirs, filepath.Join(root, s.Dir))
	}
	return dirs
}

// benchEnv is the environment of the gate's own configuration in the
// benchmark and the tests: a user configuration whose one reviewer, codex,
// is required (docs/review-gate.md §3: the gate adds the reviewers its own
// configuration requires).
func benchEnv(tb testing.TB) func(string) string {
	path := filepath.Join(tb.TempDir(), "spar.toml")
	if err := os.WriteFile(path, []byte("[[reviewers]]\nname = \"codex\"\npreset = \"codex\"\n"), 0o644); err != nil {
		tb.Fatal(err)
	}
	return func(k string) string {
		if k == "SPAR_CONFIG" {
			return path
		}
		return ""
	}
}

func gateOnce(tb testing.TB, dirs []string) {
	gateEnv(tb, dirs, nil)
}

func gateEnv(tb testing.TB, dirs []string, getenv func(string) string) {
	if getenv == nil {
		getenv = benchEnv(tb)
	}
	rec := Decide(Options{Rounds: dirs, Getenv: getenv})
	if rec.State != Passed {
		tb.Fatalf("benchmark series blocked: %q", rec.Reasons[:min(3, len(rec.Reasons))])
	}
	if len(rec.Growth) != len(dirs) || rec.AutoDeferred != 25*len(dirs) {
		tb.Fatalf("growth %d, auto_deferred %d", len(rec.Growth), rec.AutoDeferred)
	}
}

func BenchmarkGate(b *testing.B) {
	for _, n := range []int{100, 1000} {
		b.Run(fmt.Sprintf("rounds=%d", n), func(b *testing.B) {
			dirs := benchSeries(b, n)
			env := benchEnv(b)
			b.ResetTimer()
			c0 := cpuTime()
			for i := 0; i < b.N; i++ {
				gateEnv(b, dirs, env)
			}
			b.ReportMetric((cpuTime()-c0).Seconds()/float64(b.N), "cpu-s/op")
		})
	}
}

// cpuTime is the CPU time of this process and its waited-for children (the
// git processes): on a shared machine the wall time also measures the
// neighbours, the CPU time only the gate.
func cpuTime() time.Duration {
	var self, kids syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids)
	return time.Duration(self.Utime.Nano() + self.Stime.Nano() + kids.Utime.Nano() + kids.Stime.Nano())
}

// BenchmarkGateRatio gates 100 and 1,000 rounds in each iteration and
// reports both times and their ratio (10 means linear).
func BenchmarkGateRatio(b *testing.B) {
	small, large := benchSeries(b, 100), benchSeries(b, 1000)
	env := benchEnv(b)
	b.ResetTimer()
	var ts, tl, cs, cl time.Duration
	for i := 0; i < b.N; i++ {
		t0, c0 := time.Now(), cpuTime()
		gateEnv(b, small, env)
		t1, c1 := time.Now(), cpuTime()
		gateEnv(b, large, env)
		ts += t1.Sub(t0)
		tl += time.Since(t1)
		cs += c1 - c0
		cl += cpuTime() - c1
	}
	b.ReportMetric(ts.Seconds()/float64(b.N), "s/100rounds")
	b.ReportMetric(tl.Seconds()/float64(b.N), "s/1000rounds")
	b.ReportMetric(float64(tl)/float64(ts), "ratio_1000/100")
	b.ReportMetric(cl.Seconds()/float64(b.N), "cpu-s/1000rounds")
	b.ReportMetric(float64(cl)/float64(cs), "cpu-ratio_1000/100")
}

// TestGateScale keeps the benchmark's series honest in `make test`: a small
// generated series passes and its counts add up.
func TestGateScale(t *testing.T) {
	gateOnce(t, benchSeries(t, 20))
}
