package sparrecord

// spar push and spar fetch as their users run them, over a series of 100
// rounds of 50 findings (lib/gate/fixture.Series), each set beside git
// doing the same transfer of the same objects: `git push` of the published
// ref to a new bare remote, `git fetch` of it into a new clone. The ratios
// are what spar adds to git (make bench; docs/usage.md §7). The fetched
// series is then gated as CI gates it (spar gate of the folder, in the
// clone: lib/gate.Decide, what spar-gate runs), and fetch + gate is set
// beside git fetch too.

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/jaekit/spar/lib/gate"
	"github.com/jaekit/spar/lib/gate/fixture"
)

func benchGit(b *testing.B, dir string, args ...string) {
	b.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func BenchmarkPushFetch100(b *testing.B) {
	root := b.TempDir()
	dirs := fixture.Series(b, root, 100)
	repo := filepath.Join(root, "repo")
	// The series folder inside the repository it reviews, ignored, as
	// spar run makes it.
	if err := os.Rename(filepath.Join(root, "reviews"), filepath.Join(repo, "reviews")); err != nil {
		b.Fatal(err)
	}
	os.WriteFile(filepath.Join(repo, ".git", "info", "exclude"), []byte("reviews/\n"), 0o644)
	series := filepath.Join(repo, "reviews", filepath.Base(filepath.Dir(dirs[0])))
	b.Setenv("SPAR_COMMAND", "")
	// The gate's own configuration: the fixture's reviewer is required.
	cfg := filepath.Join(root, "spar.toml")
	if err := os.WriteFile(cfg, []byte("[[reviewers]]\nname = \"codex\"\npreset = \"codex\"\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	getenv := func(k string) string {
		if k == "SPAR_CONFIG" {
			return cfg
		}
		return ""
	}
	// Wall time, and the CPU time of the process and its children (git and
	// what git runs, the remote's side included: fixture.CPUTime), which a
	// shared machine's load disturbs less.
	var push, gitPush, fetch, gate_, gitFetch time.Duration
	var cPush, cGitPush, cFetch, cGate, cGitFetch time.Duration
	start := func() (time.Time, time.Duration) { return time.Now(), fixture.CPUTime() }
	since := func(t0 time.Time, c0 time.Duration, wall, cpu *time.Duration) {
		*wall += time.Since(t0)
		*cpu += fixture.CPUTime() - c0
	}
	for i := 0; i < b.N; i++ {
		iter := filepath.Join(root, "iter", string(rune('a'+i%26))+time.Now().Format("150405.000000000"))
		remote, remote2 := filepath.Join(iter, "remote.git"), filepath.Join(iter, "remote2.git")
		os.MkdirAll(iter, 0o755)
		benchGit(b, iter, "init", "-q", "--bare", remote)
		benchGit(b, iter, "init", "-q", "--bare", remote2)
		benchGit(b, repo, "update-ref", "-d", "refs/spar/series/s")
		exec.Command("git", "-C", repo, "remote", "remove", "origin").Run()
		benchGit(b, repo, "remote", "add", "origin", remote)
		// The branch the rounds reviewed is on both remotes first: what is
		// measured is the series, not the code.
		benchGit(b, repo, "push", "-q", remote, "main")
		benchGit(b, repo, "push", "-q", remote2, "main")

		var out, errs bytes.Buffer
		t0, c0 := start()
		if code := Main([]string{"push", series}, nil, &out, &errs); code != 0 {
			b.Fatalf("spar push: %d %s", code, errs.String())
		}
		since(t0, c0, &push, &cPush)
		t0, c0 = start()
		benchGit(b, repo, "push", "-q", remote2, "refs/spar/series/s:refs/spar/series/s")
		since(t0, c0, &gitPush, &cGitPush)

		clone, clone2 := filepath.Join(iter, "ci"), filepath.Join(iter, "ci2")
		benchGit(b, iter, "clone", "-q", "-b", "main", remote, clone)
		benchGit(b, iter, "clone", "-q", "-b", "main", remote2, clone2)
		os.WriteFile(filepath.Join(clone, ".git", "info", "exclude"), []byte("reviews/\n"), 0o644)
		out.Reset()
		errs.Reset()
		t0, c0 = start()
		if code := Main([]string{"fetch", "s", "--out", filepath.Join(clone, "reviews", "s"), "--repo", clone}, nil, &out, &errs); code != 0 {
			b.Fatalf("spar fetch: %d %s", code, errs.String())
		}
		since(t0, c0, &fetch, &cFetch)
		t0, c0 = start()
		rec := gate.Decide(gate.Options{Series: []string{filepath.Join(clone, "reviews", "s")}, Repo: clone, Getenv: getenv})
		since(t0, c0, &gate_, &cGate)
		if rec.State != gate.Passed {
			b.Fatalf("spar gate of the fetched series: %s %q", rec.State, rec.Reasons[:min(3, len(rec.Reasons))])
		}
		t0, c0 = start()
		benchGit(b, clone2, "fetch", "-q", "origin", "refs/spar/series/s:refs/spar/series/s")
		since(t0, c0, &gitFetch, &cGitFetch)
	}
	n := float64(b.N)
	b.ReportMetric(push.Seconds()*1000/n, "ms/spar-push")
	b.ReportMetric(gitPush.Seconds()*1000/n, "ms/git-push")
	b.ReportMetric(push.Seconds()/gitPush.Seconds(), "push-ratio")
	b.ReportMetric(fetch.Seconds()*1000/n, "ms/spar-fetch")
	b.ReportMetric(gitFetch.Seconds()*1000/n, "ms/git-fetch")
	b.ReportMetric(fetch.Seconds()/gitFetch.Seconds(), "fetch-ratio")
	b.ReportMetric(gate_.Seconds()*1000/n, "ms/spar-gate")
	b.ReportMetric((fetch+gate_).Seconds()/gitFetch.Seconds(), "fetch-gate-ratio")
	b.ReportMetric(float64(cPush)/float64(cGitPush), "push-cpu-ratio")
	b.ReportMetric(float64(cFetch)/float64(cGitFetch), "fetch-cpu-ratio")
	b.ReportMetric(float64(cFetch+cGate)/float64(cGitFetch), "fetch-gate-cpu-ratio")
}
