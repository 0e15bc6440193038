package spar_test

// G33 for recording: spar-record waits for the series lock with the
// waiting line and reads the records after taking it; `spar run` holds the
// lock from the cap decision to the end of recording, across its stages.

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jaekit/spar/lib/atomic"
	"github.com/jaekit/spar/lib/lock"
	"github.com/jaekit/spar/lib/round"
)

func TestG33_RecordWaitsForTheLock(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "series", "code-1")
	recordOnce(t, crashEnvelope(t, dir, false))
	env := crashEnvelope(t, dir, true) // the re-recording with native's review
	series := filepath.Dir(dir)
	held, err := lock.Series(series, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(binDir, "spar-record"))
	cmd.Stdin = bytes.NewReader(env)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(stderr.String(), "waiting") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	select {
	case err := <-done:
		t.Fatalf("spar-record finished while the lock was held: %v\n%s", err, stderr.String())
	default:
	}
	want := "spar: waiting for another write of " + series + " to finish\n"
	if stderr.String() != want {
		t.Fatalf("stderr %q, want %q", stderr.String(), want)
	}
	// What the holder writes before releasing is what spar-record reads:
	// a finding triaged under the lock keeps its line and gets no automatic
	// deferral after it.
	line := `{"finding":"native-F1","disposition":"rejected","evidence":"e","at":"x"}`
	if err := atomic.AppendLine(filepath.Join(dir, round.LedgerFile), []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	held.Release()
	if err := <-done; err != nil {
		t.Fatalf("spar-record: %v\n%s", err, stderr.String())
	}
	l, err := round.ReadLedger(dir)
	if err != nil || len(l) != 3 || l[0].Finding != "claude-F1" || l[1].Finding != "claude-F3" || l[2].Disposition != "rejected" {
		t.Fatalf("ledger %+v %v", l, err)
	}
}

func TestG33_RunHoldsTheLockUntilRecorded(t *testing.T) {
	work := t.TempDir()
	repo := filepath.Join(work, "repo")
	gitRun := gitIn(t, repo)
	os.MkdirAll(repo, 0o755)
	gitRun("init", "-q")
	os.WriteFile(filepath.Join(repo, ".gitignore"), []byte("reviews/\n"), 0o644)
	os.WriteFile(filepath.Join(repo, "a.txt"), []byte("a\n"), 0o644)
	gitRun("add", "-A")
	gitRun("commit", "-q", "-m", "base")
	base := gitRun("rev-parse", "HEAD")
	os.WriteFile(filepath.Join(repo, "a.txt"), []byte("b\n"), 0o644)
	gitRun("commit", "-q", "-am", "head")
	head := gitRun("rev-parse", "HEAD")
	os.WriteFile(filepath.Join(work, "spar.toml"), []byte("[[reviewers]]\npreset = \"native\"\n"), 0o644)
	series := filepath.Join(repo, "reviews", "s")
	environ := append(os.Environ(), "SPAR_CONFIG="+filepath.Join(work, "spar.toml"),
		"PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"))

	run := exec.Command(filepath.Join(binDir, "spar"), "run", "--stage", "code", "--base", base, "--head", head, "--out", filepath.Join(series, "code-1"))
	run.Dir = repo
	run.Env = append(environ, "SPAR_RECORD_PAUSE=200ms")
	stderr, _ := run.StderrPipe()
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	for sc.Scan() && !strings.HasPrefix(sc.Text(), "spar-record: pause before ") {
	}
	// spar-record is recording: spar-exec, which took the lock, has ended.
	// Another write of the series must wait until the recording is done.
	ext := exec.Command(filepath.Join(binDir, "spar"), "extend", series, "--stage", "code", "--by", "1", "--cause", "churn")
	ext.Env = environ
	var extErr bytes.Buffer
	ext.Stderr = &extErr
	if err := ext.Run(); err != nil {
		t.Fatalf("spar extend: %v\n%s", err, extErr.String())
	}
	if !strings.Contains(extErr.String(), "spar: waiting for another write of ") {
		t.Fatalf("spar extend did not wait for spar run: %q", extErr.String())
	}
	// By the time it got the lock, the round was recorded.
	if _, _, err := round.Load(filepath.Join(series, "code-1")); err != nil {
		t.Fatalf("spar extend ran before the round was recorded: %v", err)
	}
	for sc.Scan() {
	}
	if err := run.Wait(); err != nil {
		t.Fatalf("spar run: %v", err)
	}
}

// G33 and docs/review-round.md §8.6: concurrent `spar run`s on one series take the cap
// decision one at a time, each after the previous one recorded: with a code
// cap of 2, four runs give exactly two counted rounds (numbers 1 and 2) and
// two refusals.
func TestG33_ConcurrentRunsRespectTheCap(t *testing.T) {
	work := t.TempDir()
	repo := filepath.Join(work, "repo")
	gitRun := gitIn(t, repo)
	os.MkdirAll(filepath.Join(repo, ".jaekit"), 0o755)
	gitRun("init", "-q")
	os.WriteFile(filepath.Join(repo, ".gitignore"), []byte("reviews/\n"), 0o644)
	os.WriteFile(filepath.Join(repo, ".jaekit", "spar.toml"), []byte("[caps]\ncode = 2\n"), 0o644)
	os.WriteFile(filepath.Join(repo, "a.txt"), []byte("a\n"), 0o644)
	gitRun("add", "-A")
	gitRun("commit", "-q", "-m", "base")
	base := gitRun("rev-parse", "HEAD")
	var heads []string
	for i := 0; i < 4; i++ {
		os.WriteFile(filepath.Join(repo, "a.txt"), []byte(strings.Repeat("b", i+1)+"\n"), 0o644)
		gitRun("commit", "-q", "-am", "head")
		heads = append(heads, gitRun("rev-parse", "HEAD"))
	}
	os.WriteFile(filepath.Join(work, "spar.toml"), []byte("[[reviewers]]\npreset = \"native\"\n"), 0o644)
	series := filepath.Join(repo, "reviews", "s")
	environ := append(os.Environ(), "SPAR_CONFIG="+filepath.Join(work, "spar.toml"), "SPAR_RECORD_PAUSE=30ms",
		"PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"))

	type result struct {
		code   int
		stderr string
	}
	results := make([]result, len(heads))
	var wg sync.WaitGroup
	for i, h := range heads {
		wg.Add(1)
		go func(i int, h string) {
			defer wg.Done()
			cmd := exec.Command(filepath.Join(binDir, "spar"), "run", "--stage", "code", "--base", base, "--head", h,
				"--out", filepath.Join(series, fmt.Sprintf("code-%d", i)))
			cmd.Dir = repo
			cmd.Env = environ
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			results[i] = result{cmd.ProcessState.ExitCode(), stderr.String()}
			if err != nil && cmd.ProcessState == nil {
				t.Error(err)
			}
		}(i, h)
	}
	wg.Wait()
	ok, refused := 0, 0
	for i, r := range results {
		switch r.code {
		case 0:
			ok++
		case 65:
			refused++
			if !strings.Contains(r.stderr, "refused: stage \"code\": this would be counted round 3 and the limit is 2") {
				t.Errorf("run %d: %s", i, r.stderr)
			}
		default:
			t.Errorf("run %d: exit %d: %s", i, r.code, r.stderr)
		}
	}
	if ok != 2 || refused != 2 {
		t.Fatalf("%d recorded, %d refused; want 2 and 2: %+v", ok, refused, results)
	}
	numbers := map[int]bool{}
	dirs, _ := round.ListRounds(series)
	for _, d := range dirs {
		rec, _, err := round.Load(d)
		if err != nil {
			t.Fatalf("%s: %v", d, err)
		}
		numbers[rec.Cap.Number] = true
	}
	if len(dirs) != 2 || !numbers[1] || !numbers[2] {
		t.Fatalf("rounds %v, numbers %v", dirs, numbers)
	}
}
