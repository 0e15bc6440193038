package script

// Crash safety of recording (docs/review-round.md §1, "Crashes roll
// forward"; docs/trust.md "Records"): spar-record is killed with SIGKILL before each
// of its writes, on a first recording and on a re-recording of a finished
// round. Afterwards every ledger line parses, no line is doubled, and a
// reader sees the finished round, a round that stopped before recording or
// a recording in progress, never a mixture; the next write to the series
// finishes a recording that had started.

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

// crashReaderSees is what every reader must see after a crash: the
// finished round, a round that stopped before recording, or a recording in
// progress (round.ErrRecording), never a mixture; every ledger line parses,
// none is doubled.
func crashReaderSees(t *testing.T, dir string, k int) (finished bool) {
	t.Helper()
	rec, f, err := round.Load(dir)
	switch {
	case err == nil:
		finished = true
		if rec.Counts.Defect+rec.Counts.Hardening+rec.Counts.Note != len(f.Findings) {
			t.Errorf("k=%d: round.json counts %+v do not match %d findings", k, rec.Counts, len(f.Findings))
		}
	case errors.Is(err, round.ErrUnfinished), errors.Is(err, round.ErrRecording):
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

// triageNote is the next command after a crash: a write to the series
// (spar triage of claude-F4, a note) that takes the series lock. It returns
// the exit code.
func triageNote(t *testing.T, dir string) (int, string) {
	t.Helper()
	cmd := exec.Command(filepath.Join(binDir, "spar-record"), "triage", dir, "claude-F4", "--as", "rejected", "--evidence", "not a finding")
	out, err := cmd.CombinedOutput()
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatal(err)
		}
		return ee.ExitCode(), string(out)
	}
	return 0, string(out)
}

// TestCrashRecording: crashes roll forward (docs/review-round.md §1,
// docs/trust.md "Records"). spar-record is killed with SIGKILL at
// each of its write points, on a first recording and on a re-recording of
// a finished round. A reader never sees a mixture; then the next command
// (spar triage, with no envelope) publishes the round whenever the
// recording had started (round.json names it), with nothing lost or
// doubled; a recording killed before it started changed no record, and
// recording the envelope again publishes it.
func TestCrashRecording(t *testing.T) {
	if testing.Short() {
		t.Skip("kills processes")
	}
	start := time.Now()
	rolled := 0
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
			rec, err := round.ReadRecord(dir)
			if err != nil {
				t.Fatalf("k=%d: %v", k, err)
			}
			started := rec.Recording != nil
			if started {
				rolled++
			}
			published := rec.FinishedAt != nil && rec.Recording == nil
			_, stagedErr := os.Lstat(filepath.Join(dir, round.RecordingDir))
			// The next command finishes the recording, then triages.
			code, out := triageNote(t, dir)
			if started && !strings.Contains(out, "finished its interrupted recording") {
				t.Errorf("k=%d rerecord=%v: the next command does not say it finished the recording:\n%s", k, rerecord, out)
			}
			switch {
			case started || published:
				if code != 0 {
					t.Fatalf("k=%d rerecord=%v: triage after the crash: exit %d\n%s", k, rerecord, code, out)
				}
				_, f, err := round.Load(dir)
				if err != nil {
					t.Fatalf("k=%d rerecord=%v: the next command did not publish the round: %v", k, rerecord, err)
				}
				// Nothing lost: a started re-recording is published with
				// native's finding.
				hasNative := false
				for _, x := range f.Findings {
					hasNative = hasNative || x.ID == "native-F1"
				}
				if rerecord && started && !hasNative {
					t.Errorf("k=%d: the interrupted re-recording was finished without native's finding", k)
				}
			case !rerecord:
				// Killed before the first recording started: the round is
				// still spar-exec's, and triage refuses it.
				if code != 65 {
					t.Fatalf("k=%d: triage of a round never recorded: exit %d, want 65\n%s", k, code, out)
				}
			default:
				if code != 0 {
					t.Fatalf("k=%d rerecord: triage of the earlier recording: exit %d\n%s", k, code, out)
				}
			}
			if _, err := os.Lstat(filepath.Join(dir, round.RecordingDir)); err == nil {
				t.Errorf("k=%d rerecord=%v: .recording/ is still there after the next write (it was there after the crash: %v)", k, rerecord, stagedErr == nil)
			}
			// Recording the envelope again (the user reruns the command)
			// is idempotent: the round ends with every finding and one
			// automatic deferral per readable hardening finding.
			recordOnce(t, env)
			if code != 0 {
				if code, out := triageNote(t, dir); code != 0 {
					t.Fatalf("k=%d: triage after recording again: exit %d\n%s", k, code, out)
				}
			}
			if !crashReaderSees(t, dir, k) {
				t.Errorf("k=%d: recording again did not finish the round", k)
			}
			_, f, _ := round.Load(dir)
			wantFindings := 4
			if rerecord {
				wantFindings = 5
			}
			if f == nil || len(f.Findings) != wantFindings {
				t.Errorf("k=%d rerecord=%v: findings %+v, want %d", k, rerecord, f, wantFindings)
			}
			ledger, _ := round.ReadLedger(dir)
			auto, triaged := 0, 0
			for _, e := range ledger {
				if e.Auto {
					auto++
				} else if e.Finding == "claude-F4" {
					triaged++
				}
			}
			wantAuto := 2
			if rerecord {
				wantAuto = 3
			}
			if auto != wantAuto || triaged != 1 || len(ledger) != wantAuto+1 {
				t.Errorf("k=%d rerecord=%v: ledger %+v: %d automatic deferrals (want %d), %d triage lines (want 1)", k, rerecord, ledger, auto, wantAuto, triaged)
			}
			if !reached {
				if k < 10 {
					t.Fatalf("only %d pause points", k-1)
				}
				t.Logf("rerecord=%v: %d write points", rerecord, k-1)
				break
			}
		}
	}
	if rolled < 8 {
		t.Errorf("only %d kills fell inside a started recording", rolled)
	}
	t.Logf("crash test took %v; %d kills inside a started recording were rolled forward", time.Since(start), rolled)
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
	base, head := greetRepo(t, repo)
	os.WriteFile(filepath.Join(work, "head7"), []byte(head[:7]), 0o644)
	os.WriteFile(filepath.Join(work, "spar.toml"), []byte("[[reviewers]]\npreset = \"claude\"\n\n[[reviewers]]\npreset = \"native\"\n"), 0o644)
	fake, _ := filepath.Abs(filepath.Join(repoRoot, "testdata", "fake"))

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

	rolled := 0
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
		// Crashes roll forward: a recording that had started is finished by the next
		// spar run of the series, before its cap decision.
		if rec, err := round.ReadRecord(dir); err == nil && rec.Recording != nil {
			rolled++
			cmd := exec.Command(filepath.Join(binDir, "spar"), "run", "--stage", "code", "--base", base, "--head", head,
				"--out", filepath.Join(series, "code-2"))
			cmd.Dir = repo
			cmd.Env = append(os.Environ(), "SPAR_CONFIG="+filepath.Join(work, "spar.toml"),
				"FAKE_HEAD_FILE="+filepath.Join(work, "head7"), "PATH="+fake+string(os.PathListSeparator)+binDir+string(os.PathListSeparator)+os.Getenv("PATH"))
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("k=%d: the next spar run: %v\n%s", k, err, out)
			}
			if !strings.Contains(string(out), "finished its interrupted recording") {
				t.Errorf("k=%d: the next spar run does not say it finished code-1's recording:\n%s", k, out)
			}
			if _, _, err := round.Load(dir); err != nil {
				t.Errorf("k=%d: the next spar run did not publish code-1: %v", k, err)
			}
			r2, err := round.ReadRecord(filepath.Join(series, "code-2"))
			if err != nil || r2.Cap.RerunOf == nil || *r2.Cap.RerunOf != "code-1" {
				t.Errorf("k=%d: code-2 is not a rerun of the published code-1: %+v %v", k, r2, err)
			}
		}
		if k > 0 && !reached {
			if rolled < 4 {
				t.Errorf("only %d kills fell inside a started recording", rolled)
			}
			if k < 4 {
				t.Fatalf("only %d pause points in spar run", k-1)
			}
			break
		}
	}
	t.Logf("spar run crash test took %v", time.Since(start))
}
