package spar_test

// Audit of G33 (concurrent runs) beyond the lock tests in record_lock_test.go
// and writes_test.go: after taking the lock, spar triage, spar waive and
// spar extend read the records again (what the holder wrote while they
// waited decides), and spar gate does not lock.

import (
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
