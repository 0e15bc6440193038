package spar_test

// Crash safety of recording (issue 6, item 4; DESIGN.md §4 "Publication"):
// spar-record is killed with SIGKILL before each of its writes, on a first
// recording and on a re-recording of a finished round. Afterwards every
// ledger line parses, no line is doubled, and a reader sees either the
// finished round or a round that stopped before recording, never a
// mixture; recording again finishes the round.

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/pipe"
	"github.com/jaekit/spar/lib/round"
)

// crashEnvelope returns the envelope spar-classify would hand spar-record.
// For the first recording (native pending) it also writes the round folder
// as spar-exec leaves it; withNative is the re-recording with native's
// review.
func crashEnvelope(t *testing.T, dir string, withNative bool) []byte {
	t.Helper()
	series := filepath.Dir(dir)
	packet := "the packet\n"
	cp := envelope.Cap{Stage: "code", Counted: true, Number: 1, Limit: 3}
	if !withNative {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, round.PacketFile), []byte(packet), 0o644)
		os.WriteFile(filepath.Join(dir, round.SchemaFile), []byte("{}\n"), 0o644)
		first := round.Record{Schema: round.Schema, Name: filepath.Base(dir), Series: series, Stage: "code",
			StartedAt: "2026-01-02T03:04:05Z", PacketSHA256: round.SHA256([]byte(packet)), Cap: cp}
		if err := round.WriteJSON(filepath.Join(dir, round.RoundFile), first); err != nil {
			t.Fatal(err)
		}
	}
	result := `{"reviewed_head":"aaaaaaa"}`
	reviewers := []envelope.Reviewer{{Name: "claude", Preset: "claude", Isolation: "verified", Required: true, TimeoutSeconds: 60}}
	runs := []envelope.ReviewerRun{{Reviewer: "claude", Preset: "claude", Status: "completed", Result: &result}}
	results := []envelope.Result{{Reviewer: "claude", Status: "completed", Result: []byte(`{"angles_checked":[],"angles_unchecked":[],"limits":""}`)}}
	var findings []envelope.Finding
	for i, c := range []string{"hardening", "defect", "hardening", "note"} {
		findings = append(findings, envelope.Finding{ID: "claude-F" + string(rune('1'+i)), Reviewer: "claude", Class: c, Location: "a.go:1"})
	}
	if withNative {
		native := `{"reviewed_head":"bbbbbbb"}`
		reviewers = append(reviewers, envelope.Reviewer{Name: "native", Preset: "native", Isolation: "host", Required: true})
		runs = append(runs, envelope.ReviewerRun{Reviewer: "native", Preset: "native", Status: "completed", Result: &native})
		results = append(results, envelope.Result{Reviewer: "native", Status: "completed", Result: []byte(`{"angles_checked":[],"angles_unchecked":[],"limits":""}`)})
		findings = append(findings, envelope.Finding{ID: "native-F1", Reviewer: "native", Class: "hardening", Location: "b.go:2"})
	} else {
		reviewers = append(reviewers, envelope.Reviewer{Name: "native", Preset: "native", Isolation: "host", Required: true})
		runs = append(runs, envelope.ReviewerRun{Reviewer: "native", Preset: "native", Status: "pending"})
		results = append(results, envelope.Result{Reviewer: "native", Status: "pending"})
	}
	env := pipe.New()
	for _, kv := range []struct {
		k string
		v any
	}{
		{"config", envelope.Config{Reviewers: reviewers}},
		{"run", envelope.Run{Repo: "/nonexistent", Stage: "code", Base: "b", Head: "aaaaaaa"}},
		{"packet", envelope.Packet{Markdown: packet, SHA256: round.SHA256([]byte(packet)), Schema: "{}\n"}},
		{"round", envelope.Round{Dir: dir, Series: series, Name: filepath.Base(dir), StartedAt: "2026-01-02T03:04:05Z", Cap: cp}},
		{"runs", runs}, {"results", results}, {"findings", findings},
	} {
		if err := env.Set(kv.k, kv.v); err != nil {
			t.Fatal(err)
		}
	}
	var b bytes.Buffer
	if err := env.Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// recordUntil runs spar-record on env and kills it with SIGKILL while it
// pauses before its k-th write (k counts from 1). It returns false when the
// recording finished before reaching pause k.
func recordKilledAt(t *testing.T, env []byte, k int) bool {
	t.Helper()
	cmd := exec.Command(filepath.Join(binDir, "spar-record"))
	cmd.Stdin = bytes.NewReader(env)
	cmd.Env = append(os.Environ(), "SPAR_RECORD_PAUSE=25ms")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	n := 0
	for sc.Scan() {
		if !strings.HasPrefix(sc.Text(), "spar-record: pause before ") {
			t.Errorf("stderr: %s", sc.Text())
			continue
		}
		n++
		last := sc.Text() == "spar-record: pause before exit"
		if n == k || last {
			cmd.Process.Signal(syscall.SIGKILL)
			cmd.Wait()
			return n == k && !last
		}
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	return false
}

func recordOnce(t *testing.T, env []byte) {
	t.Helper()
	cmd := exec.Command(filepath.Join(binDir, "spar-record"))
	cmd.Stdin = bytes.NewReader(env)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("spar-record: %v\n%s", err, out)
	}
}

// checkConsistent is what every reader must see after a crash.
func crashReaderSees(t *testing.T, dir string, k int) (finished bool) {
	t.Helper()
	rec, f, err := round.Load(dir)
	switch {
	case err == nil:
		finished = true
		if rec.Counts.Defect+rec.Counts.Hardening+rec.Counts.Note != len(f.Findings) {
			t.Errorf("k=%d: round.json counts %+v do not match %d findings", k, rec.Counts, len(f.Findings))
		}
	case errors.Is(err, round.ErrUnfinished):
	default:
		t.Errorf("k=%d: a reader sees neither a finished round nor one that stopped before recording: %v", k, err)
	}
	ledger, err := round.ReadLedger(dir)
	if err != nil {
		t.Errorf("k=%d: ledger: %v", k, err)
	}
	seen := map[string]bool{}
	for _, e := range ledger {
		if seen[e.Finding] {
			t.Errorf("k=%d: ledger line for %s doubled", k, e.Finding)
		}
		seen[e.Finding] = true
	}
	if b, err := os.ReadFile(filepath.Join(dir, round.LedgerFile)); err == nil && len(b) > 0 && b[len(b)-1] != '\n' {
		t.Errorf("k=%d: ledger ends in a partial line", k)
	}
	return finished
}

func TestCrashRecording(t *testing.T) {
	if testing.Short() {
		t.Skip("kills processes")
	}
	start := time.Now()
	for _, rerecord := range []bool{false, true} {
		for k := 1; ; k++ {
			dir := filepath.Join(t.TempDir(), "series", "code-1")
			env := crashEnvelope(t, dir, false)
			if rerecord {
				recordOnce(t, env)
				env = crashEnvelope(t, dir, true)
			}
			reached := recordKilledAt(t, env, k)
			crashReaderSees(t, dir, k)
			// Recording again finishes the round, and its ledger has one
			// automatic deferral per readable hardening finding.
			recordOnce(t, env)
			if !crashReaderSees(t, dir, k) {
				t.Errorf("k=%d: recording again did not finish the round", k)
			}
			ledger, _ := round.ReadLedger(dir)
			want := 2
			if rerecord {
				want = 3
			}
			if len(ledger) != want {
				t.Errorf("k=%d rerecord=%v: %d ledger lines, want %d", k, rerecord, len(ledger), want)
			}
			if !reached {
				if k < 6 {
					t.Fatalf("only %d pause points", k-1)
				}
				break
			}
		}
	}
	t.Logf("crash test took %v", time.Since(start))
}

// TestCrashSparRun kills the whole `spar run` (driver, stages, reviewers)
// with SIGKILL at each point of its recording and once while the reviewers
// run. Afterwards a reader sees no round, a round that stopped before
// recording, or the finished round; the ledger reads back; the series lock
// is free.
func TestCrashSparRun(t *testing.T) {
	if testing.Short() {
		t.Skip("kills processes")
	}
	start := time.Now()
	work := t.TempDir()
	repo := filepath.Join(work, "repo")
	git := gitIn(t, repo)
	os.MkdirAll(filepath.Join(repo, "app"), 0o755)
	git("init", "-q")
	os.WriteFile(filepath.Join(repo, ".gitignore"), []byte("reviews/\n"), 0o644)
	os.WriteFile(filepath.Join(repo, "app", "main.go"), []byte("package app\n"), 0o644)
	git("add", "-A")
	git("commit", "-q", "-m", "base")
	base := git("rev-parse", "HEAD")
	os.WriteFile(filepath.Join(repo, "app", "main.go"), []byte("package app\n\nfunc greet(n string) string { return \"hello\" }\n"), 0o644)
	git("commit", "-q", "-am", "head")
	head := git("rev-parse", "HEAD")
	os.WriteFile(filepath.Join(work, "head7"), []byte(head[:7]), 0o644)
	os.WriteFile(filepath.Join(work, "spar.toml"), []byte("[[reviewers]]\npreset = \"claude\"\n\n[[reviewers]]\npreset = \"native\"\n"), 0o644)
	fake, _ := filepath.Abs(filepath.Join("testdata", "fake"))

	runKilled := func(series string, killAt int) bool {
		cmd := exec.Command(filepath.Join(binDir, "spar"), "run", "--stage", "code", "--base", base, "--head", head,
			"--out", filepath.Join(series, "code-1"))
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "SPAR_RECORD_PAUSE=25ms", "SPAR_CONFIG="+filepath.Join(work, "spar.toml"),
			"FAKE_HEAD_FILE="+filepath.Join(work, "head7"), "PATH="+fake+string(os.PathListSeparator)+binDir+string(os.PathListSeparator)+os.Getenv("PATH"))
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		kill := func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
		sc := bufio.NewScanner(stderr)
		n := 0
		for sc.Scan() {
			line := sc.Text()
			if killAt == 0 && strings.HasPrefix(line, "spar-exec: ") {
				kill() // while the reviewers run
				break
			}
			if !strings.HasPrefix(line, "spar-record: pause before ") {
				continue
			}
			n++
			if n == killAt || line == "spar-record: pause before exit" {
				kill()
				break
			}
		}
		cmd.Wait()
		return n == killAt
	}

	for k := 0; ; k++ {
		series := filepath.Join(repo, "reviews", fmt.Sprintf("s%d", k))
		reached := runKilled(series, k)
		dir := filepath.Join(series, "code-1")
		if _, err := os.Stat(filepath.Join(dir, round.RoundFile)); err == nil {
			crashReaderSees(t, dir, k)
		}
		// The lock is free once the killed processes are gone (the kernel
		// closes their files as each one dies, not when the driver is
		// reaped): nothing else, no reviewer, keeps holding it.
		if f, err := os.OpenFile(filepath.Join(series, round.LockFile), os.O_RDWR, 0); err == nil {
			deadline := time.Now().Add(5 * time.Second)
			for {
				err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
				if err == nil {
					break
				}
				if time.Now().After(deadline) {
					t.Errorf("k=%d: the series lock is still held 5s after the kill: %v", k, err)
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
			f.Close()
		}
		if k > 0 && !reached {
			if k < 4 {
				t.Fatalf("only %d pause points in spar run", k-1)
			}
			break
		}
	}
	t.Logf("spar run crash test took %v", time.Since(start))
}
