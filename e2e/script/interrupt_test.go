package script

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// interruptRepo is a repository with a one-commit change and a user
// configuration of one claude reviewer (the fake, which hangs), for
// interruptRun.
type interruptRepo struct {
	work, repo, base, head string
}

func newInterruptRepo(tb testing.TB) interruptRepo {
	tb.Helper()
	work := tb.TempDir()
	repo := filepath.Join(work, "repo")
	base, head := greetRepo(tb, repo)
	os.WriteFile(filepath.Join(work, "spar.toml"), []byte("[[reviewers]]\npreset = \"claude\"\n"), 0o644)
	return interruptRepo{work: work, repo: repo, base: base, head: head}
}

// interrupted is what an interrupted spar run left.
type interrupted struct {
	stop     time.Duration // from the signal to spar's exit
	code     int           // spar's exit code
	stderr   string
	reviewer int    // the process ID of the reviewer's grandchild
	series   string // the series folder of the round
	round    string // the round folder
	cache    string // its XDG_CACHE_HOME (the workspaces' place)
}

// interruptRun starts spar run in a process group of its own with a
// reviewer that hangs, waits until the reviewer runs, sends sig to the
// group (group) or to the spar driver alone, and waits for spar to end.
// Only this run's own processes are signalled: its group, its pid.
func interruptRun(tb testing.TB, r interruptRepo, name string, group bool, sig syscall.Signal, extra ...string) interrupted {
	tb.Helper()
	res := interrupted{series: filepath.Join(r.repo, "reviews", name), cache: filepath.Join(r.work, "cache-"+name)}
	// code-1, or code-2 after a round of the series.
	res.round = filepath.Join(res.series, "code-1")
	if _, err := os.Stat(res.round); err == nil {
		res.round = filepath.Join(res.series, "code-2")
	}
	pidfile := filepath.Join(r.work, "pid-"+name)
	fake, _ := filepath.Abs(filepath.Join(repoRoot, "testdata", "fake"))
	cmd := exec.Command(filepath.Join(binDir, "spar"), append([]string{"run", "--stage", "code", "--base", r.base, "--head", r.head,
		"--out", res.round}, extra...)...)
	cmd.Dir = r.repo
	cmd.Env = append(os.Environ(), "SPAR_CONFIG="+filepath.Join(r.work, "spar.toml"), "XDG_CACHE_HOME="+res.cache,
		"FAKE_SCENARIO=hang", "FAKE_PIDFILE="+pidfile, "ANTHROPIC_API_KEY=sk-fake-for-the-fake-claude",
		"PATH="+fake+string(os.PathListSeparator)+binDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var stderr bytes.Buffer
	pr, pw, err := os.Pipe()
	if err != nil {
		tb.Fatal(err)
	}
	cmd.Stderr = pw
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	pw.Close()
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			stderr.WriteString(sc.Text() + "\n")
		}
	}()
	pgid := cmd.Process.Pid
	// Whatever happens, nothing of this run outlives the test.
	defer syscall.Kill(-pgid, syscall.SIGKILL)
	deadline := time.Now().Add(60 * time.Second)
	for {
		if b, err := os.ReadFile(pidfile); err == nil && len(bytes.TrimSpace(b)) > 0 {
			res.reviewer, _ = strconv.Atoi(string(bytes.TrimSpace(b)))
			break
		}
		if time.Now().After(deadline) {
			syscall.Kill(-pgid, syscall.SIGKILL)
			cmd.Wait()
			<-copied
			tb.Fatalf("%s: the reviewer did not start in 60 s:\n%s", name, stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	target := -pgid
	if !group {
		target = cmd.Process.Pid
	}
	start := time.Now()
	if err := syscall.Kill(target, sig); err != nil {
		tb.Fatal(err)
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	select {
	case err = <-waited:
	case <-time.After(60 * time.Second):
		syscall.Kill(-pgid, syscall.SIGKILL)
		<-waited
		<-copied
		tb.Fatalf("%s: spar run did not end in 60 s after %v:\n%s", name, sig, stderr.String())
	}
	res.stop = time.Since(start)
	<-copied
	res.stderr = stderr.String()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		res.code = ee.ExitCode()
	}
	return res
}

// running reports whether process pid runs (a zombie runs nothing).
func running(pid int) bool {
	st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	return err == nil && !strings.Contains(string(st), ") Z ")
}

// TestInterruptSparRun: docs/review-round.md "Interrupted". spar run
// interrupted while its reviewer runs, by SIGINT or SIGTERM, sent to its
// process group (Ctrl-C in a terminal) or to the spar driver alone: the
// reviewer is stopped, the round folder and the series folder this run
// made are removed with the workspace, stderr says the round was not
// recorded, and spar exits 130 or 143. The stop time is logged (its
// figure is BenchmarkInterruptStop's).
func TestInterruptSparRun(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and signals spar run")
	}
	r := newInterruptRepo(t)
	for _, c := range []struct {
		name  string
		group bool
		sig   syscall.Signal
		code  int
	}{
		{"group-int", true, syscall.SIGINT, 130},
		{"driver-int", false, syscall.SIGINT, 130},
		{"group-term", true, syscall.SIGTERM, 143},
		{"driver-term", false, syscall.SIGTERM, 143},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := interruptRun(t, r, c.name, c.group, c.sig)
			t.Logf("%s: spar run ended %v after %v; stderr:\n%s", c.name, res.stop, c.sig, res.stderr)
			if res.code != c.code {
				t.Errorf("exit code %d, want %d; stderr:\n%s", res.code, c.code, res.stderr)
			}
			for i := 0; i < 40 && running(res.reviewer); i++ {
				time.Sleep(50 * time.Millisecond)
			}
			if running(res.reviewer) {
				t.Errorf("the reviewer's process %d outlived spar run", res.reviewer)
				syscall.Kill(res.reviewer, syscall.SIGKILL)
			}
			if !strings.Contains(res.stderr, "round not recorded: "+res.round+" and its workspace are removed") {
				t.Errorf("stderr does not say the round was not recorded:\n%s", res.stderr)
			}
			if _, err := os.Lstat(res.series); !errors.Is(err, os.ErrNotExist) {
				ents, _ := os.ReadDir(res.series)
				var names []string
				for _, e := range ents {
					names = append(names, e.Name())
				}
				t.Errorf("the series folder this run made is still there (%v): %v", err, names)
			}
			ws, _ := filepath.Glob(filepath.Join(res.cache, "*", "workspaces", "*"))
			if len(ws) > 0 {
				t.Errorf("workspaces left in the cache: %v", ws)
			}
		})
	}
}

// BenchmarkInterruptStop reports the time from SIGINT to the process group
// of a spar run whose reviewer runs to the end of spar run, reviewer
// stopped, round and workspace removed (s/stop; target <= 2 s,
// scripts/benchtable).
func BenchmarkInterruptStop(b *testing.B) {
	r := newInterruptRepo(b)
	var total time.Duration
	for i := 0; i < b.N; i++ {
		res := interruptRun(b, r, "bench-"+strconv.Itoa(i), true, syscall.SIGINT)
		if res.code != 130 {
			b.Fatalf("exit code %d, want 130:\n%s", res.code, res.stderr)
		}
		total += res.stop
	}
	b.ReportMetric(total.Seconds()/float64(b.N), "s/stop")
}

// TestInterruptSparRunAfterARound: SIGINT to the group of a spar run whose
// series holds a recorded code-1 (code-2 reruns its reviewer) removes
// code-2 only; spar status and spar gate of the series then speak of
// code-1 alone (docs/review-round.md "Interrupted": status once said
// "empty" of a half-written round and suggested its --out again, while the
// gate suggested the next round).
func TestInterruptSparRunAfterARound(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and signals spar run")
	}
	r := newInterruptRepo(t)
	series := filepath.Join(r.repo, "reviews", "after")
	os.WriteFile(filepath.Join(r.work, "head7"), []byte(r.head[:7]), 0o644)
	fake, _ := filepath.Abs(filepath.Join(repoRoot, "testdata", "fake"))
	spar := func(args ...string) string {
		cmd := exec.Command(filepath.Join(binDir, "spar"), args...)
		cmd.Dir = r.repo
		cmd.Env = append(os.Environ(), "SPAR_CONFIG="+filepath.Join(r.work, "spar.toml"), "XDG_CACHE_HOME="+filepath.Join(r.work, "cache-first"),
			"FAKE_HEAD_FILE="+filepath.Join(r.work, "head7"), "ANTHROPIC_API_KEY=sk-fake-for-the-fake-claude",
			"PATH="+fake+string(os.PathListSeparator)+binDir+string(os.PathListSeparator)+os.Getenv("PATH"))
		out, _ := cmd.CombinedOutput()
		return string(out)
	}
	if out := spar("run", "--stage", "code", "--base", r.base, "--head", r.head, "--out", filepath.Join(series, "code-1")); !strings.Contains(out, "Verdict:") {
		t.Fatalf("the first round:\n%s", out)
	}
	res := interruptRun(t, r, "after", true, syscall.SIGINT, "--rerun", "claude")
	if res.code != 130 || res.round != filepath.Join(series, "code-2") {
		t.Fatalf("exit %d for %s, want 130 for code-2:\n%s", res.code, res.round, res.stderr)
	}
	if _, err := os.Lstat(res.round); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("code-2 is still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(series, "code-1", "round.json")); err != nil {
		t.Errorf("code-1 is gone: %v", err)
	}
	for _, cmd := range [][]string{{"status", series}, {"gate", series}} {
		if out := spar(cmd...); strings.Contains(out, "code-2") || !strings.Contains(out, "code-1") {
			t.Errorf("spar %s after the interrupted code-2:\n%s", cmd[0], out)
		}
	}
}
