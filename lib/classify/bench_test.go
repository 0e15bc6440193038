package classify

// The classification benchmark (docs/pipeline.md §7, cost): 10,000 findings against a
// generated repository of 50,000 files (target: under 2 seconds on two
// cores, cost linear in the number of findings). Run it with `make bench`
// or:
//
//	go test -run '^$' -bench Classify -benchmem ./lib/classify
//
// The repository is built once per benchmark run (never by `go test`
// without -bench): blobs and trees go straight into the object store with
// one `git update-index --index-info` per commit.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/gitx"
)

const benchFiles = 50000

func benchGit(b *testing.B, dir, stdin string, args ...string) string {
	b.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=b", "GIT_AUTHOR_EMAIL=b@example.invalid",
		"GIT_COMMITTER_NAME=b", "GIT_COMMITTER_EMAIL=b@example.invalid")
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		b.Fatalf("git %v: %v\n%s", args, err, errb.String())
	}
	return strings.TrimSpace(out.String())
}

var (
	benchOnce sync.Once
	benchRun  *envelope.Run
	benchDir  string
)

// TestMain removes the benchmark repository, built at most once per run.
func TestMain(m *testing.M) {
	code := m.Run()
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
	os.Exit(code)
}

// benchRepo builds a repository whose head has 50,000 files (a tenth of
// them under checks/) and whose base differs by 1,000 files, plus a rule
// document and a subject document in the working tree. Every benchmark
// shares it.
func benchRepo(b *testing.B) *envelope.Run {
	b.Helper()
	benchOnce.Do(func() { benchRun = makeBenchRepo(b) })
	if benchRun == nil {
		b.Fatal("the benchmark repository could not be built")
	}
	r := *benchRun
	return &r
}

func makeBenchRepo(b *testing.B) *envelope.Run {
	dir, err := os.MkdirTemp("", "spar-classify-bench-")
	if err != nil {
		b.Fatal(err)
	}
	benchDir = dir
	benchGit(b, dir, "", "init", "-q")
	// 64 distinct contents of 10 to 73 lines, shared by every file.
	var blobIDs []string
	for i := 0; i < 64; i++ {
		var s strings.Builder
		for l := 0; l < 10+i; l++ {
			fmt.Fprintf(&s, "content %d line %d\n", i, l)
		}
		blobIDs = append(blobIDs, benchGit(b, dir, s.String(), "hash-object", "-w", "--stdin"))
	}
	commitTree := func(from, to int, parent string) string {
		var idx strings.Builder
		for i := from; i < to; i++ {
			fmt.Fprintf(&idx, "100644 %s\t%s\n", blobIDs[i%len(blobIDs)], benchPath(i))
		}
		benchGit(b, dir, "", "read-tree", "--empty")
		benchGit(b, dir, idx.String(), "update-index", "--add", "--index-info")
		tree := benchGit(b, dir, "", "write-tree")
		args := []string{"commit-tree", tree, "-m", "c"}
		if parent != "" {
			args = append(args, "-p", parent)
		}
		return benchGit(b, dir, "", args...)
	}
	base := commitTree(0, benchFiles, "")
	head := commitTree(1000, benchFiles+1000, base)

	run := &envelope.Run{Repo: dir, Base: base, Head: head, CheckPaths: []string{"checks/**", "**/*_test.go"},
		CriteriaIDs: []string{"AC-1", "AC-2", "AC-3"}}
	for _, d := range []struct{ role, name, text string }{
		{"rule", "AGENTS.md", "# Agents\nrule two\nrule three\n"},
		{"subject", "docs/PLAN.md", strings.Repeat("plan\n", 40)},
	} {
		p := filepath.Join(dir, d.name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(d.text), 0o644); err != nil {
			b.Fatal(err)
		}
		real, _ := filepath.EvalSymlinks(p)
		run.Documents = append(run.Documents, envelope.Document{Role: d.role, Name: d.name, Path: real,
			FileName: filepath.Base(p), LineCount: gitx.CountLines([]byte(d.text)), Lines: gitx.Lines([]byte(d.text))})
	}
	return run
}

func benchPath(i int) string {
	if i%10 == 0 {
		return fmt.Sprintf("checks/c%03d/t%05d.py", i%500, i)
	}
	return fmt.Sprintf("pkg%03d/sub%02d/file%05d.go", i%300, i%17, i)
}

// benchResults spreads n findings over four reviewers and every kind of
// location and link: head, base-only, check paths, round documents, first
// word, unreadable; rule, contract (head files with lines), criterion, none.
func benchResults(n int) []envelope.Result {
	names := []string{"claude", "codex", "agy", "native"}
	per := make([][]map[string]string, len(names))
	for i := 0; i < n; i++ {
		f := i * 7919 % benchFiles // spread over the files
		var loc string
		switch i % 8 {
		case 0:
			loc = fmt.Sprintf("head/%s:%d", benchPath(f+1000), 1+i%9)
		case 1:
			loc = fmt.Sprintf("%s:%d-%d", benchPath(f%1000), 1+i%5, 6+i%5) // only in base
		case 2:
			loc = fmt.Sprintf("./%s:3–4, and %s:5", benchPath(f+1000), benchPath(f+1001))
		case 3:
			loc = fmt.Sprintf("head/%s (the loop)", benchPath(f+1000))
		case 4:
			loc = fmt.Sprintf("PLAN.md:%d", 1+i%40)
		case 5:
			loc = fmt.Sprintf("head/%s:10:5", benchPath(f+1000)) // unreadable
		case 6:
			loc = fmt.Sprintf("head/missing/%d.go:3", i) // unreadable
		default:
			loc = fmt.Sprintf("base/%s:2", benchPath(f%1000))
		}
		kind, link := "none", ""
		switch i % 4 {
		case 0:
			kind, link = "rule", fmt.Sprintf("AGENTS.md:%d", 1+i%4)
		case 1:
			kind, link = "contract", fmt.Sprintf("head/%s:%d-%d", benchPath(f+1000), 1+i%3, 5+i%3)
		case 2:
			kind, link = "criterion", fmt.Sprintf("AC-%d,AC-%d", 1+i%4, 1+i%3)
		}
		impacts := []string{"none", "false_pass", "meaning_inverted", "contract_violation"}
		classes := []string{"defect", "requirement-question", "hardening", "note"}
		per[i%len(names)] = append(per[i%len(names)], map[string]string{
			"id": fmt.Sprint(i), "proposed_class": classes[i%3], "angle": "design", "location": loc,
			"claim": "c", "failure_scenario": "s", "evidence": "e", "link_kind": kind, "link": link,
			"introduced_by_change": "yes", "regression": []string{"yes", "no"}[i%2],
			"check_impact": impacts[i%4], "confidence": "high",
		})
	}
	var out []envelope.Result
	for i, name := range names {
		raw, _ := json.Marshal(map[string]any{"findings": per[i]})
		out = append(out, envelope.Result{Reviewer: name, Status: "completed", Result: raw})
	}
	return out
}

// BenchmarkClassify is the whole stage's work per round: two git ls-tree
// of 50,000 entries, one git cat-file for the cited head files, decoding
// the results and classifying n findings.
func BenchmarkClassify(b *testing.B) {
	run := benchRepo(b)
	for _, n := range []int{1000, 10000} {
		results := benchResults(n)
		b.Run(fmt.Sprintf("findings=%d", n), func(b *testing.B) {
			for b.Loop() {
				fs, err := Classify(run, results)
				if err != nil || len(fs) != n {
					b.Fatalf("%d findings, %v", len(fs), err)
				}
			}
		})
	}
}

// BenchmarkClassifyIndexed is the per-finding cost alone (the index built
// once): it must grow linearly with the number of findings.
func BenchmarkClassifyIndexed(b *testing.B) {
	run := benchRepo(b)
	ix, err := NewIndex(run)
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{1000, 10000} {
		items, err := decode(benchResults(n))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("findings=%d", n), func(b *testing.B) {
			for b.Loop() {
				if fs, err := ix.classify(items); err != nil || len(fs) != n {
					b.Fatalf("%d findings, %v", len(fs), err)
				}
			}
		})
	}
}

// BenchmarkClassifyRatio times 1,000 and 10,000 findings in the same
// iteration and reports the ratio of the two (near 10 when the cost per
// finding is constant; lower while the fixed cost of reading the trees
// still counts), end to end and with the index built once.
func BenchmarkClassifyRatio(b *testing.B) {
	run := benchRepo(b)
	r1, r10 := benchResults(1000), benchResults(10000)
	ix, err := NewIndex(run)
	if err != nil {
		b.Fatal(err)
	}
	i1, _ := decode(r1)
	i10, _ := decode(r10)
	var t1, t10, x1, x10, c1, c10 time.Duration
	iters := 0
	// timed runs f and adds its wall time to wall and the processor time of
	// this process and its children (git) to cpu: on a loaded machine the
	// wall time also counts waiting for a core, the processor time does not.
	timed := func(wall, cpu *time.Duration, f func() error) {
		c := cpuTime()
		s := time.Now()
		if err := f(); err != nil {
			b.Fatal(err)
		}
		*wall += time.Since(s)
		if cpu != nil {
			*cpu += cpuTime() - c
		}
	}
	for b.Loop() {
		timed(&t1, &c1, func() error { _, err := Classify(run, r1); return err })
		timed(&t10, &c10, func() error { _, err := Classify(run, r10); return err })
		timed(&x1, nil, func() error { _, err := ix.classify(i1); return err })
		timed(&x10, nil, func() error { _, err := ix.classify(i10); return err })
		iters++
	}
	n := float64(iters)
	b.ReportMetric(float64(t10.Milliseconds())/n, "ms/10k")
	b.ReportMetric(float64(t1.Milliseconds())/n, "ms/1k")
	b.ReportMetric(float64(c10.Milliseconds())/n, "cpu-ms/10k")
	b.ReportMetric(float64(c1.Milliseconds())/n, "cpu-ms/1k")
	b.ReportMetric(float64(t10)/float64(t1), "ratio-10k/1k")
	b.ReportMetric(float64(x10)/float64(x1), "indexed-ratio-10k/1k")
}

// cpuTime is the user and system time of this process and its waited-for
// children so far.
func cpuTime() time.Duration {
	var self, kids syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids)
	tv := func(t syscall.Timeval) time.Duration { return time.Duration(t.Nano()) }
	return tv(self.Utime) + tv(self.Stime) + tv(kids.Utime) + tv(kids.Stime)
}

// BenchmarkIndex is the fixed cost per round: reading the head and base
// trees (two git ls-tree of 50,000 entries) and the round documents.
func BenchmarkIndex(b *testing.B) {
	run := benchRepo(b)
	for b.Loop() {
		if _, err := NewIndex(run); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStage is everything spar-classify does for one round: read and
// validate the envelope, classify, write the envelope back.
func BenchmarkStage(b *testing.B) {
	run := benchRepo(b)
	for _, n := range []int{1000, 10000} {
		env, err := json.Marshal(map[string]any{"schema": "spar-pipe/v1", "run": run, "results": benchResults(n)})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("findings=%d", n), func(b *testing.B) {
			c, iters := cpuTime(), 0
			for b.Loop() {
				if err := Stage(bytes.NewReader(env), io.Discard); err != nil {
					b.Fatal(err)
				}
				iters++
			}
			b.ReportMetric(float64((cpuTime()-c).Milliseconds())/float64(iters), "cpu-ms/op")
		})
	}
}
