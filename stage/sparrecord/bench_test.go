package sparrecord

// spar push and spar fetch as their users run them, over a series of 100
// rounds of 50 findings (lib/gate/fixture.Series), each set beside git
// doing the same transfer of the same objects: `git push` of the published
// ref to a new bare remote, `git fetch` of it into a new clone. The ratios
// are what spar adds to git (make bench; docs/usage.md §7). The fetched
// series is then gated as CI gates it (spar gate of the folder, in the
// clone: lib/gate.Decide, what spar-gate runs), and fetch + gate is set
// beside git fetch too.
//
// git fetch and git push of objects that already exist do less than spar
// does (spar push makes the objects; spar fetch writes 700 files), so each
// is also set beside git doing the whole of it, in the same run: git's own
// publish of the folder (a scratch index: git add, write-tree,
// commit-tree, then git push, into an object store that lacks them, as
// spar's first publish), and git fetch followed by git archive | tar -x of
// the ref into a new folder.
//
// Both sides are processes, as CI runs them: the spar-record and spar-gate
// binaries built for the benchmark beside git's, each timed by wall clock
// and by CPU seconds (the benchmark's children, git's own included).

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/jaekit/spar/lib/gate/fixture"
)

// benchBin builds spar-record and spar-gate into a folder of the
// benchmark's and returns it.
func benchBin(b *testing.B) string {
	b.Helper()
	dir := b.TempDir()
	cmd := exec.Command("go", "build", "-o", dir+string(os.PathSeparator), "github.com/jaekit/spar/spar-record", "github.com/jaekit/spar/spar-gate")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return dir
}

// benchRun runs a spar binary in dir with env added; gate reports the
// exit code (spar-gate: 1 is blocked), the others fail the benchmark.
func benchRun(b *testing.B, dir, bin string, env []string, args ...string) (int, string) {
	b.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		b.Fatalf("%s %v: %v", bin, args, err)
	}
	return code, out.String()
}

func benchGit(b *testing.B, dir string, args ...string) {
	b.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// benchSh runs a POSIX sh script in dir with env added.
func benchSh(b *testing.B, dir, script string, env ...string) {
	b.Helper()
	cmd := exec.Command("sh", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("%s: %v\n%s", script, err, out)
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
	bin := benchBin(b)
	record, gateBin := filepath.Join(bin, "spar-record"), filepath.Join(bin, "spar-gate")
	env := []string{"SPAR_CONFIG=" + cfg, "SPAR_COMMAND="}
	// Wall time, and the CPU time of the process and its children (git and
	// what git runs, the remote's side included: fixture.CPUTime), which a
	// shared machine's load disturbs less.
	var push, gitPush, fetch, gate_, gitFetch, gitOwnPush, gitOwnFetch time.Duration
	var cPush, cGitPush, cFetch, cGate, cGitFetch, cGitOwnPush, cGitOwnFetch time.Duration
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

		t0, c0 := start()
		if code, out := benchRun(b, repo, record, env, "push", series); code != 0 {
			b.Fatalf("spar push: %d %s", code, out)
		}
		since(t0, c0, &push, &cPush)
		t0, c0 = start()
		benchGit(b, repo, "push", "-q", remote2, "refs/spar/series/s:refs/spar/series/s")
		since(t0, c0, &gitPush, &cGitPush)
		// git's own publish and push of the same folder, from an object
		// store that holds none of it, to a third remote.
		own, remote3 := filepath.Join(iter, "own.git"), filepath.Join(iter, "remote3.git")
		benchGit(b, iter, "init", "-q", "--bare", own)
		benchGit(b, iter, "init", "-q", "--bare", remote3)
		t0, c0 = start()
		benchSh(b, series, `git add -A . && t=$(git write-tree) && c=$(git commit-tree -m publish "$t") && git update-ref refs/spar/series/s "$c" && git push -q "$REMOTE" refs/spar/series/s:refs/spar/series/s`,
			"GIT_DIR="+own, "GIT_WORK_TREE="+series, "GIT_INDEX_FILE="+filepath.Join(iter, "own.index"), "REMOTE="+remote3,
			"GIT_AUTHOR_NAME=b", "GIT_AUTHOR_EMAIL=b@b", "GIT_COMMITTER_NAME=b", "GIT_COMMITTER_EMAIL=b@b")
		since(t0, c0, &gitOwnPush, &cGitOwnPush)

		// --no-local: a clone of a path on this machine would hard-link the
		// remote's objects, the series' among them, and each fetch below
		// would then move a ref and transfer nothing. A CI clone has
		// only the branch's objects; the fetch brings the series'.
		clone, clone2 := filepath.Join(iter, "ci"), filepath.Join(iter, "ci2")
		benchGit(b, iter, "clone", "-q", "--no-local", "-b", "main", remote, clone)
		benchGit(b, iter, "clone", "-q", "--no-local", "-b", "main", remote2, clone2)
		os.WriteFile(filepath.Join(clone, ".git", "info", "exclude"), []byte("reviews/\n"), 0o644)
		t0, c0 = start()
		if code, out := benchRun(b, clone, record, env, "fetch", "s", "--out", filepath.Join(clone, "reviews", "s"), "--repo", clone); code != 0 {
			b.Fatalf("spar fetch: %d %s", code, out)
		}
		since(t0, c0, &fetch, &cFetch)
		t0, c0 = start()
		code, out := benchRun(b, clone, gateBin, env, "gate", filepath.Join(clone, "reviews", "s"), "--repo", clone)
		since(t0, c0, &gate_, &cGate)
		if code != 0 {
			b.Fatalf("spar gate of the fetched series: %d %.600s", code, out)
		}
		t0, c0 = start()
		benchGit(b, clone2, "fetch", "-q", "origin", "refs/spar/series/s:refs/spar/series/s")
		since(t0, c0, &gitFetch, &cGitFetch)
		// git's own fetch of the folder: fetch, then archive | tar -x.
		clone3 := filepath.Join(iter, "ci3")
		benchGit(b, iter, "clone", "-q", "--no-local", "-b", "main", remote2, clone3)
		t0, c0 = start()
		benchSh(b, clone3, `git fetch -q origin refs/spar/series/s:refs/spar/series/s && mkdir -p reviews/s && git archive refs/spar/series/s | tar -xf - -C reviews/s`)
		since(t0, c0, &gitOwnFetch, &cGitOwnFetch)
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
	b.ReportMetric(gitOwnPush.Seconds()*1000/n, "ms/git-own-push")
	b.ReportMetric(push.Seconds()/gitOwnPush.Seconds(), "push-own-ratio")
	b.ReportMetric(float64(cPush)/float64(cGitOwnPush), "push-own-cpu-ratio")
	b.ReportMetric(gitOwnFetch.Seconds()*1000/n, "ms/git-own-fetch")
	b.ReportMetric(fetch.Seconds()/gitOwnFetch.Seconds(), "fetch-own-ratio")
	b.ReportMetric(float64(cFetch)/float64(cGitOwnFetch), "fetch-own-cpu-ratio")
	b.ReportMetric(float64(cPush)/float64(cGitPush), "push-cpu-ratio")
	b.ReportMetric(float64(cFetch)/float64(cGitFetch), "fetch-cpu-ratio")
	b.ReportMetric(float64(cFetch+cGate)/float64(cGitFetch), "fetch-gate-cpu-ratio")
	// What CI does against git bringing the same files into a folder.
	b.ReportMetric((fetch+gate_).Seconds()/gitOwnFetch.Seconds(), "fetch-gate-own-ratio")
	b.ReportMetric(float64(cFetch+cGate)/float64(cGitOwnFetch), "fetch-gate-own-cpu-ratio")
}
