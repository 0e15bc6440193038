package script

// The end-to-end tests of G33 (concurrent runs): after taking the lock,
// spar triage, spar waive and spar extend read the records again (what the
// holder wrote while they waited decides), and spar gate does not lock;
// spar-record waits for the series lock (below); fifty concurrent writes
// land once each (the write helpers are in writes_test.go).

import (
	"bufio"
	"bytes"
	"encoding/json"
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

// startWaiting starts `spar ARGS...` while the series lock is held and
// returns once it says it waits.
func startWaiting(t *testing.T, series string, args ...string) (wait func() (int, string)) {
	t.Helper()
	cmd := exec.Command(filepath.Join(binDir, "spar"), args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	want := "spar: waiting for another write of " + series + " to finish\n"
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(stderr.String(), want) {
		select {
		case err := <-done:
			t.Fatalf("spar %s ended while the lock was held: %v\n%s", args[0], err, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("spar %s: no waiting line: %q", args[0], stderr.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	return func() (int, string) {
		err := <-done
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return code, stderr.String()
	}
}

// TestG33_WritersReadTheRecordsAgainAfterTheLock: the holder of the lock
// makes the record each writer reads unreadable while it waits; the writer
// must see that (refused, 65, G32) and write nothing, so it read after
// taking the lock, not before.
func TestG33_WritersReadTheRecordsAgainAfterTheLock(t *testing.T) {
	for _, c := range []struct {
		name string
		args func(series, dir string) []string
		file func(series, dir string) string
		want string
	}{
		{"triage", func(s, d string) []string {
			return []string{"triage", d, "claude-F1", "--as", "rejected", "--evidence", "e"}
		}, func(s, d string) string { return filepath.Join(d, round.LedgerFile) }, "ledger.jsonl: line 2"},
		{"waive", func(s, d string) []string {
			return []string{"waive", d, "--reviewer", "claude", "--user-quote", "q"}
		}, func(s, d string) string { return filepath.Join(d, round.WaiversFile) }, "waivers.jsonl: line 1"},
		{"extend", func(s, d string) []string {
			return []string{"extend", s, "--stage", "code", "--by", "1", "--cause", "churn"}
		}, func(s, d string) string { return filepath.Join(s, "extensions.jsonl") }, "extensions.jsonl: line 1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			series, dir := writeSeries(t)
			held, err := lock.Series(series, os.Stderr)
			if err != nil {
				t.Fatal(err)
			}
			wait := startWaiting(t, series, c.args(series, dir)...)
			f := c.file(series, dir)
			old, _ := os.ReadFile(f)
			bad := append(append([]byte{}, old...), "not json\n"...)
			if err := os.WriteFile(f, bad, 0o644); err != nil {
				t.Fatal(err)
			}
			held.Release()
			code, stderr := wait()
			if code != 65 || !strings.Contains(stderr, c.want) {
				t.Fatalf("exit %d, stderr %q; want 65 naming %q", code, stderr, c.want)
			}
			if got, _ := os.ReadFile(f); !bytes.Equal(got, bad) {
				t.Fatalf("%s changed after the refusal:\n%s", f, got)
			}
		})
	}
}

// TestG33_GateDoesNotLock: spar gate reads a series whose lock another write
// holds, without waiting and without a waiting line.
func TestG33_GateDoesNotLock(t *testing.T) {
	series, dir := writeSeries(t)
	held, err := lock.Series(series, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	cmd := exec.Command(filepath.Join(binDir, "spar"), "gate", dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() != 1) {
			t.Fatalf("spar gate: %v\n%s", err, stderr.String())
		}
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("spar gate waited for the series lock: %s", stderr.String())
	}
	if strings.Contains(stderr.String(), "waiting") {
		t.Fatalf("spar gate printed a waiting line: %q", stderr.String())
	}
}

// G33 for recording: spar-record waits for the series lock with the
// waiting line and reads the records after taking it; `spar run` holds the
// lock from the cap decision to the end of recording, across its stages.
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

// TestG33_FiftyConcurrentWritesLandOnceEach: G33, docs/review-round.md §8.5.
func TestG33_FiftyConcurrentWritesLandOnceEach(t *testing.T) {
	series, dir := writeSeries(t)
	const n = 50
	type result struct {
		kind, marker   string
		stdout, stderr string
		err            error
	}
	results := make([]result, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := 0; i < n; i++ {
		kind, args := writeCmd(series, dir, i)
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			<-start
			cmd := exec.Command(filepath.Join(binDir, "spar"), args...)
			// A pause at every step widens the windows the lock must close.
			cmd.Env = append(os.Environ(), "SPAR_WRITE_PAUSE=2ms")
			var so, se bytes.Buffer
			cmd.Stdout, cmd.Stderr = &so, &se
			err := cmd.Run()
			results[i] = result{kind, fmt.Sprintf("m%03d", i), so.String(), se.String(), err}
		}(i)
	}
	close(start)
	wg.Wait()

	waited := 0
	got := map[string]map[string]int{}
	for k, p := range files(series, dir) {
		got[k] = markers(t, k, p)
	}
	lines := map[string]map[string]string{}
	for k, p := range files(series, dir) {
		lines[k] = map[string]string{}
		b, _ := os.ReadFile(p)
		for _, l := range strings.Split(string(b), "\n") {
			for i := 0; i < n; i++ {
				if m := fmt.Sprintf(`"m%03d"`, i); strings.Contains(l, m) {
					lines[k][m[1:len(m)-1]] = l
				}
			}
		}
	}
	for _, r := range results {
		if r.err != nil {
			t.Errorf("%s: %v\n%s", r.marker, r.err, r.stderr)
			continue
		}
		if got[r.kind][r.marker] != 1 {
			t.Errorf("%s: in %s %d times, want once", r.marker, r.kind, got[r.kind][r.marker])
		}
		// The command prints exactly the line it appended.
		var printed, appended any
		if err := json.Unmarshal([]byte(r.stdout), &printed); err != nil {
			t.Errorf("%s: stdout %q: %v", r.marker, r.stdout, err)
			continue
		}
		if err := json.Unmarshal([]byte(lines[r.kind][r.marker]), &appended); err != nil {
			t.Errorf("%s: %v", r.marker, err)
			continue
		}
		pb, _ := json.Marshal(printed)
		ab, _ := json.Marshal(appended)
		if !bytes.Equal(pb, ab) {
			t.Errorf("%s: printed %s, appended %s", r.marker, pb, ab)
		}
		if strings.Contains(r.stderr, "spar: waiting for another write of "+series+" to finish\n") {
			waited++
		} else if r.stderr != "" {
			t.Errorf("%s: stderr %q", r.marker, r.stderr)
		}
	}
	total := 0
	for _, m := range got {
		for _, c := range m {
			total += c
		}
	}
	if total != n {
		t.Errorf("%d lines with a marker, want %d", total, n)
	}
	if waited == 0 {
		t.Errorf("no write waited for the lock: the test did not exercise G33")
	}
	t.Logf("%d writes, %d waited for the lock", n, waited)
}
