package spar_test

// G33 for recording: spar-record waits for the series lock with the
// waiting line and reads the records after taking it; `spar run` holds the
// lock from the cap decision to the end of recording, across its stages.

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jaekit/spar/lib/lock"
	"github.com/jaekit/spar/lib/round"
)

func TestG33_RecordWaitsForTheLock(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "series", "code-1")
	env := crashEnvelope(t, dir, false)
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
	line := `{"finding":"claude-F1","disposition":"rejected","evidence":"e","at":"x"}`
	if err := os.WriteFile(filepath.Join(dir, round.LedgerFile), []byte(line+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	held.Release()
	if err := <-done; err != nil {
		t.Fatalf("spar-record: %v\n%s", err, stderr.String())
	}
	l, err := round.ReadLedger(dir)
	if err != nil || len(l) != 2 || l[0].Disposition != "rejected" || l[1].Finding != "claude-F3" {
		t.Fatalf("ledger %+v %v", l, err)
	}
}

func TestG33_RunHoldsTheLockUntilRecorded(t *testing.T) {
	work := t.TempDir()
	repo := filepath.Join(work, "repo")
	gitRun := func(args ...string) string {
		cmd := exec.Command("git", append([]string{"-C", repo}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.invalid", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.invalid")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
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
