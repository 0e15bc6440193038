package script

// docs/review-round.md §8.5 for the write commands: 50 concurrent spar triage,
// spar waive and spar extend on one series all land once each and never
// interleave (G33); SIGKILL at any point of those writes leaves every
// ledger, waiver and extension line readable, none lost or doubled.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/pipe"
	"github.com/jaekit/spar/lib/round"
)

// writeSeries makes a series (outside any repository) with one published
// code round: findings claude-F1 (defect) … claude-F4 (note), required
// reviewers claude and my-agy.
func writeSeries(t *testing.T) (series, dir string) {
	t.Helper()
	series = filepath.Join(t.TempDir(), "reviews", "s")
	dir = filepath.Join(series, "code-1")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	fs := round.Findings{Schema: round.Schema, Round: "code-1", Findings: []envelope.Finding{
		{ID: "claude-F1", Reviewer: "claude", Class: "defect"},
		{ID: "claude-F2", Reviewer: "claude", Class: "requirement-question"},
		{ID: "claude-F3", Reviewer: "claude", Class: "hardening"},
		{ID: "claude-F4", Reviewer: "claude", Class: "note"},
	}}
	fb, err := pipe.MarshalIndent(fs)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, round.FindingsFile), fb, 0o644); err != nil {
		t.Fatal(err)
	}
	at, sum := "2026-01-02T00:00:00Z", round.SHA256(fb)
	rec := round.Record{Schema: round.Schema, Name: "code-1", Series: series, Stage: "code",
		StartedAt: at, FinishedAt: &at, FindingsSHA256: &sum}
	rec.Config.ConfiguredRequired = []envelope.RequiredReviewer{{Name: "claude", Preset: "claude"}, {Name: "my-agy", Preset: "agy"}}
	if err := round.WriteJSON(filepath.Join(dir, round.RoundFile), rec); err != nil {
		t.Fatal(err)
	}
	auto := `{"finding":"claude-F3","disposition":"deferred","auto":true,"at":"2026-01-02T00:00:00Z"}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, round.LedgerFile), []byte(auto), 0o644); err != nil {
		t.Fatal(err)
	}
	return series, dir
}

// writeCmd is the i-th write of a mixed batch: a triage, a waiver or an
// extension, each carrying the unique marker m<i> in its text.
func writeCmd(series, dir string, i int) (kind string, args []string) {
	m := fmt.Sprintf("m%03d", i)
	switch i % 3 {
	case 0:
		return "ledger", []string{"triage", dir, fmt.Sprintf("claude-F%d", 1+i%4), "--as", "rejected", "--evidence", m}
	case 1:
		return "waivers", []string{"waive", dir, "--reviewer", []string{"claude", "my-agy"}[i%2], "--user-quote", m}
	}
	return "extensions", []string{"extend", series, "--stage", "code", "--by", "1", "--cause", "other", "--reason", m}
}

// markers reads a JSON Lines file strictly: it ends with a newline (no
// partial line), every line is one JSON object of the record type, and the
// result maps each marker to how many lines carry it.
func markers(t *testing.T, kind, path string) map[string]int {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return map[string]int{}
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > 0 && b[len(b)-1] != '\n' {
		t.Fatalf("%s ends with a partial line: %q", path, b)
	}
	switch kind {
	case "ledger":
		_, err = round.ReadLedger(filepath.Dir(path))
	case "waivers":
		_, _, err = round.ReadWaivers(filepath.Dir(path))
	case "extensions":
		_, err = round.ReadExtensions(filepath.Dir(path))
	}
	if err != nil {
		t.Fatalf("%s does not read back: %v", path, err)
	}
	out := map[string]int{}
	for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		if l == "" {
			continue
		}
		var v map[string]any
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatalf("%s: line %q: %v", path, l, err)
		}
		for _, k := range []string{"evidence", "user_quote", "reason"} {
			if s, ok := v[k].(string); ok && strings.HasPrefix(s, "m") {
				if len(markerRE.FindAllString(l, -1)) != 1 {
					t.Fatalf("%s: interleaved line %q", path, l)
				}
				out[s]++
			}
		}
	}
	return out
}

var markerRE = regexp.MustCompile(`"m\d{3}"`)

func files(series, dir string) map[string]string {
	return map[string]string{
		"ledger":     filepath.Join(dir, round.LedgerFile),
		"waivers":    filepath.Join(dir, round.WaiversFile),
		"extensions": filepath.Join(series, round.ExtensionFile),
	}
}

// TestCrash_WritesKilledAtAnyPoint: docs/review-round.md §8.5 for triage, waive and
// extend. Writes are SIGKILLed at random points (before the lock, while
// waiting, holding it before or after the append). Afterwards every line
// reads back, no line is doubled, every write that reported success is
// there, and the lock is free for the next write.
func TestCrash_WritesKilledAtAnyPoint(t *testing.T) {
	series, dir := writeSeries(t)
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	const rounds, per = 4, 24
	succeeded := map[string]string{} // marker -> kind
	launched := map[string]bool{}
	killed := 0
	var failed []string
	for r := 0; r < rounds; r++ {
		var wg sync.WaitGroup
		var mu sync.Mutex
		for j := 0; j < per; j++ {
			i := r*per + j
			kind, args := writeCmd(series, dir, i)
			marker := fmt.Sprintf("m%03d", i)
			launched[marker] = true
			cmd := exec.Command(filepath.Join(binDir, "spar-record"), args...)
			cmd.Env = append(os.Environ(), "SPAR_WRITE_PAUSE=3ms")
			var so bytes.Buffer
			cmd.Stdout = &so
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Half the writes are killed after a random delay; the others
			// run to the end, so some always report success.
			delay := time.Duration(rng.Intn(120)) * time.Millisecond
			if rng.Intn(2) == 0 {
				delay = time.Hour
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				done := make(chan error, 1)
				go func() { done <- cmd.Wait() }()
				select {
				case err := <-done:
					mu.Lock()
					if err == nil {
						succeeded[marker] = kind
					} else {
						failed = append(failed, fmt.Sprintf("%s: %v", marker, err))
					}
					mu.Unlock()
				case <-time.After(delay):
					cmd.Process.Signal(syscall.SIGKILL)
					err := <-done
					mu.Lock()
					if err == nil {
						succeeded[marker] = kind
					} else {
						killed++
					}
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
	}
	if len(failed) > 0 {
		t.Errorf("writes that were not killed failed: %v", failed)
	}
	got := map[string]map[string]int{}
	for k, p := range files(series, dir) {
		got[k] = markers(t, k, p)
		for m, c := range got[k] {
			if c != 1 {
				t.Errorf("%s: %s %d times", k, m, c)
			}
			if !launched[m] {
				t.Errorf("%s: %s was never written", k, m)
			}
		}
	}
	for m, kind := range succeeded {
		if got[kind][m] != 1 {
			t.Errorf("%s reported success but is not in %s", m, kind)
		}
	}
	if killed == 0 || len(succeeded) == 0 {
		t.Errorf("%d killed, %d succeeded: the test did not exercise both", killed, len(succeeded))
	}
	// The lock died with its holder: the next writes go through at once.
	for i, args := range [][]string{
		{"triage", dir, "claude-F4", "--as", "rejected", "--evidence", "after"},
		{"waive", dir, "--reviewer", "claude", "--user-quote", "after"},
		{"extend", series, "--stage", "plan", "--by", "1"},
	} {
		cmd := exec.Command(filepath.Join(binDir, "spar-record"), args...)
		cmd.WaitDelay = time.Second
		out, err := cmd.CombinedOutput()
		if err != nil || bytes.Contains(out, []byte("waiting")) {
			t.Errorf("write %d after the crashes: %v\n%s", i, err, out)
		}
	}
	present := 0
	for _, m := range got {
		present += len(m)
	}
	// present - succeeded lines were appended by writes killed before they
	// could print them: a crash after the append keeps the whole line.
	t.Logf("%d writes, %d killed, %d succeeded, %d lines present", rounds*per, killed, len(succeeded), present)
}

// TestCrash_WritesKilledAtEachStep kills one write at each of its steps in
// turn: while it waits for the lock, holding the lock before the append, and
// after the append before it prints. The file holds the line exactly when
// the append happened, whole, and the next write never waits.
func TestCrash_WritesKilledAtEachStep(t *testing.T) {
	series, dir := writeSeries(t)
	ledger := filepath.Join(dir, round.LedgerFile)
	start := func(marker string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
		cmd := exec.Command(filepath.Join(binDir, "spar-record"), "triage", dir, "claude-F4", "--as", "rejected", "--evidence", marker)
		cmd.Env = append(os.Environ(), "SPAR_WRITE_PAUSE=1s")
		var so, se bytes.Buffer
		cmd.Stdout, cmd.Stderr = &so, &se
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd, &so, &se
	}
	kill := func(cmd *exec.Cmd) {
		cmd.Process.Signal(syscall.SIGKILL)
		if err := cmd.Wait(); err == nil {
			t.Fatal("the write finished before it was killed")
		}
	}
	waitFor := func(what string, cond func() bool) {
		deadline := time.Now().Add(20 * time.Second)
		for !cond() {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s", what)
			}
			time.Sleep(2 * time.Millisecond)
		}
	}
	count := func(m string) int { return markers(t, "ledger", ledger)[m] }
	holdsLock := func() bool {
		f, err := os.OpenFile(filepath.Join(series, round.LockFile), os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
			return true
		}
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		return false
	}

	// 1. waiting for the lock another write holds
	f, err := os.OpenFile(filepath.Join(series, round.LockFile), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	cmd, _, se := start("m901")
	waitFor("the waiting line", func() bool {
		return strings.Contains(se.String(), "spar: waiting for another write of "+series+" to finish")
	})
	kill(cmd)
	f.Close() // releases the lock
	if count("m901") != 0 {
		t.Fatal("a write killed while waiting appended its line")
	}

	// 2. holding the lock, before the append
	cmd, _, _ = start("m902")
	waitFor("the lock taken", holdsLock)
	time.Sleep(100 * time.Millisecond)
	kill(cmd)
	if count("m902") != 0 {
		t.Fatal("a write killed before its append appended its line")
	}

	// 3. after the append, before printing
	cmd, so, _ := start("m903")
	waitFor("the line", func() bool { return count("m903") == 1 })
	kill(cmd)
	if so.Len() != 0 || count("m903") != 1 {
		t.Fatalf("stdout %q, line %d times", so.String(), count("m903"))
	}

	// the lock died with its holder
	if holdsLock() {
		t.Fatal("the lock is still held after its holder was killed")
	}
	out, err := exec.Command(filepath.Join(binDir, "spar-record"), "triage", dir, "claude-F4", "--as", "rejected", "--evidence", "m904").CombinedOutput()
	if err != nil || bytes.Contains(out, []byte("waiting")) || count("m904") != 1 {
		t.Fatalf("%v %s", err, out)
	}
	if l, err := round.ReadLedger(dir); err != nil || len(l) != 3 {
		t.Fatalf("%d lines, %v", len(l), err)
	}
}
