package sparrecord

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jaekit/spar/lib/lock"
)

// syncBuffer is an io.Writer a test reads while another goroutine writes.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestTrust_PushWaitsForTheSeriesLock: a round is never published while
// its series is being written. spar push waits for the series lock; what
// the writer holding it adds before releasing it is in the publish, and
// nothing is published before.
func TestTrust_PushWaitsForTheSeriesLock(t *testing.T) {
	repo := t.TempDir()
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	run("init", "-q")
	os.WriteFile(filepath.Join(repo, ".gitignore"), []byte("reviews/\n"), 0o644)
	series := filepath.Join(repo, "reviews", "s")
	os.MkdirAll(filepath.Join(series, "code-1"), 0o755)
	os.WriteFile(filepath.Join(series, "code-1", "round.json"), []byte("{}"), 0o644)

	// The writer: a recording under way holds the lock.
	l, err := lock.Series(series, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr syncBuffer
	done := make(chan int)
	go func() { done <- Main([]string{"push", series}, nil, &stdout, &stderr) }()
	for !strings.Contains(stderr.String(), "waiting for another write") {
		select {
		case code := <-done:
			l.Release()
			t.Fatalf("spar push ended (%d) while the series lock was held: %s%s", code, stdout.String(), stderr.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	if got := run("for-each-ref", "refs/spar/series/"); got != "" {
		t.Fatalf("published while the series lock was held: %s", got)
	}
	os.WriteFile(filepath.Join(series, "code-1", "findings.json"), []byte("[]"), 0o644)
	l.Release()
	if code := <-done; code != 0 {
		t.Fatalf("spar push: %d %s", code, stderr.String())
	}
	if got := run("ls-tree", "-r", "--name-only", "refs/spar/series/s"); got != "code-1/findings.json\ncode-1/round.json" {
		t.Errorf("the publish holds:\n%s\nwant the writer's file too", got)
	}
}
