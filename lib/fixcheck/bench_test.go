package fixcheck

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// The benchmark repository: 20,000 files of 1 KiB in 200 folders; the head
// has bug.txt, the fix removes it and adds checks/no_bug_test.sh.
const benchFiles = 20000

var (
	benchOnce              sync.Once
	benchRepo              string
	benchHead, benchFix    string
	benchErr               error
	benchCache, benchTmpRm string
)

func benchSetup() {
	dir, err := os.MkdirTemp("", "spar-fixcheck-bench-")
	if err != nil {
		benchErr = err
		return
	}
	benchTmpRm = dir
	benchRepo = filepath.Join(dir, "repo")
	benchCache = filepath.Join(dir, "cache")
	git := func(args ...string) (string, error) {
		cmd := exec.Command("git", args...)
		cmd.Dir = benchRepo
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=b", "GIT_AUTHOR_EMAIL=b@b", "GIT_COMMITTER_NAME=b", "GIT_COMMITTER_EMAIL=b@b")
		out, err := cmd.CombinedOutput()
		if err != nil {
			return "", fmt.Errorf("git %v: %v: %s", args, err, out)
		}
		return strings.TrimSpace(string(out)), nil
	}
	body := []byte(strings.Repeat("x", 1023) + "\n")
	for i := 0; i < benchFiles; i++ {
		d := filepath.Join(benchRepo, fmt.Sprintf("pkg%03d", i%200))
		os.MkdirAll(d, 0o755)
		body[0] = byte('a' + i%26)
		copy(body[1:], fmt.Sprintf("%06d", i))
		if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("f%05d.txt", i)), body, 0o644); err != nil {
			benchErr = err
			return
		}
	}
	os.MkdirAll(filepath.Join(benchRepo, ".jaekit"), 0o755)
	os.WriteFile(filepath.Join(benchRepo, ".jaekit", "spar.toml"), []byte("check_paths = [\"checks/**\"]\n"), 0o644)
	os.WriteFile(filepath.Join(benchRepo, "bug.txt"), []byte("bug\n"), 0o644)
	steps := [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-qm", "head"}}
	for _, s := range steps {
		if _, benchErr = git(s...); benchErr != nil {
			return
		}
	}
	if benchHead, benchErr = git("rev-parse", "HEAD"); benchErr != nil {
		return
	}
	os.Remove(filepath.Join(benchRepo, "bug.txt"))
	os.MkdirAll(filepath.Join(benchRepo, "checks"), 0o755)
	os.WriteFile(filepath.Join(benchRepo, "checks", "no_bug_test.sh"), []byte("test ! -f bug.txt\n"), 0o644)
	for _, s := range [][]string{{"add", "-A"}, {"commit", "-qm", "fix"}} {
		if _, benchErr = git(s...); benchErr != nil {
			return
		}
	}
	benchFix, benchErr = git("rev-parse", "HEAD")
}

// BenchmarkVerifiedTriage20k is what a verified fix claim costs beyond
// its check's own runs, for a 20,000-file repository (docs/review-round.md
// "Verified fix claims"): the trees of both commits from the blob store,
// the check files, the sandbox's start, the runs' scratch folders, the
// digests. The store is warm, as it is after the round's own workspace.
// s/overhead is the wall time of fixcheck.Run less the durations of the
// check's runs as recorded.
func BenchmarkVerifiedTriage20k(b *testing.B) {
	benchOnce.Do(benchSetup)
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	b.Setenv("XDG_CACHE_HOME", benchCache)
	req := Request{Repo: benchRepo, Head: benchHead, Fix: benchFix, Command: "sh checks/no_bug_test.sh", Environ: os.Environ()}
	// Warm the blob store as the round's workspace does.
	if res, err := Run(context.Background(), req); err != nil || res.Refusal != "" {
		b.Fatalf("%v %s", err, res.Refusal)
	}
	b.ResetTimer()
	var over time.Duration
	for i := 0; i < b.N; i++ {
		start := time.Now()
		res, err := Run(context.Background(), req)
		total := time.Since(start)
		if err != nil || res.Refusal != "" {
			b.Fatalf("%v %s", err, res.Refusal)
		}
		var runs time.Duration
		for _, r := range runsOf(&res.Check) {
			runs += time.Duration(r.DurationMS) * time.Millisecond
		}
		over += total - runs
	}
	b.ReportMetric(over.Seconds()/float64(b.N), "s/overhead")
}
