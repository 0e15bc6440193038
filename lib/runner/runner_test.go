package runner

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/preset"
	"github.com/jaekit/spar/lib/proctree"
	"github.com/jaekit/spar/lib/refusal"
)

func envelopeReviewer(preset, binary string, model *string, timeout int) envelope.Reviewer {
	return envelope.Reviewer{Name: preset, Preset: preset, Binary: &binary, Model: model, TimeoutSeconds: timeout}
}

func TestG14_Resolve(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "tool")
	os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755)
	plain := filepath.Join(dir, "plain")
	os.WriteFile(plain, []byte("x"), 0o644)
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	only := t.TempDir()
	os.WriteFile(filepath.Join(only, "plain"), []byte("x"), 0o644)
	os.Mkdir(filepath.Join(only, "tool"), 0o755) // a folder named like the tool

	cases := []struct {
		name, path, status, reason string
	}{
		{exe, "", "", ""},
		{filepath.Join(dir, "missing"), "", "unavailable", `executable "` + filepath.Join(dir, "missing") + `" does not exist`},
		{sub, "", "failed", `executable "` + sub + `" is not a regular file`},
		{plain, "", "failed", `executable "` + plain + `" has no execute permission`},
		{"tool", only + ":" + dir, "", ""},
		{"plain", only + ":" + dir, "unavailable", `no executable "plain" on PATH`},
		{"tool", only, "unavailable", `no executable "tool" on PATH`},
		{"nothing", "", "unavailable", `no executable "nothing" on PATH`},
	}
	for _, c := range cases {
		got, status, reason := Resolve(c.name, c.path)
		if status != c.status || reason != c.reason || (status == "" && got != exe) {
			t.Errorf("Resolve(%q, %q) = %q, %q, %q", c.name, c.path, got, status, reason)
		}
	}
	// A relative path with / is relative to the current folder.
	wd, _ := os.Getwd()
	defer os.Chdir(wd)
	os.Chdir(dir)
	if got, status, _ := Resolve("./tool", ""); status != "" || got != exe {
		t.Errorf("./tool: %q %q", got, status)
	}
}

// marker is a sleep duration no other run uses (proctree.Mark): the
// grandchild "sleep <marker>" is found by its command line among this
// test's own processes (in a PID namespace its $! is the namespace's).
func marker() string { return proctree.Mark() }

// running lists this test's live processes "sleep <m>".
func running(m string) []int { return proctree.Mine("sleep", m) }

// alive reports whether "sleep <m>" still runs a while after it was killed
// (a zombie runs nothing); a loaded machine delivers late. It kills what it
// finds, so that a failed test leaves nothing behind.
func alive(m string) bool {
	for i := 0; i < 40; i++ {
		if len(running(m)) == 0 {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, pid := range running(m) {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	return true
}

// whileRunning runs f, waits until "sleep <m>" runs, calls then (if any)
// and returns f's result.
func whileRunning(t *testing.T, m string, f func() procResult, then ...func()) procResult {
	t.Helper()
	done := make(chan procResult, 1)
	go func() { done <- f() }()
	seen := false
	for i := 0; i < 300 && !seen; i++ {
		seen = len(running(m)) > 0
		if !seen {
			time.Sleep(10 * time.Millisecond)
		}
	}
	if !seen {
		t.Errorf("the grandchild sleep %s never ran", m)
	}
	for _, g := range then {
		g()
	}
	select {
	case res := <-done:
		return res
	case <-time.After(20 * time.Second):
		t.Fatal("the reviewer still runs")
	}
	return procResult{}
}

// docs/review-round.md §4: on the limit the whole group gets SIGTERM, then SIGKILL
// after the grace period; no grandchild outlives the reviewer.
func TestProcessGroupKilledOnLimit(t *testing.T) {
	old := Grace
	Grace = 300 * time.Millisecond
	defer func() { Grace = old }()
	for _, script := range []string{
		`sleep MARK & sleep 100`,
		`trap '' TERM; sleep MARK & sleep 100`, // ignores SIGTERM
		`setsid sleep MARK & sleep 100`,        // leaves the group
		`trap '' TERM; setsid sh -c 'trap "" TERM; exec sleep MARK' & sleep 100`,
	} {
		m := marker()
		script = strings.ReplaceAll(script, "MARK", m)
		start := time.Now()
		res := whileRunning(t, m, func() procResult {
			return runProcess(preset.Invocation{Args: []string{"/bin/sh", "-c", script}}, testBox(t), t.TempDir(),
				time.Now().Add(2*time.Second), &sink{limit: 1 << 20}, &sink{limit: 1 << 20}, nil, nil)
		})
		if !res.timedOut || res.exitCode != nil || res.signal == "" {
			t.Errorf("%s: %+v", script, res)
		}
		// Not judged: a wall-clock figure depends on the machine's load;
		// timedOut with a signal says the limit, not sleep 100, ended it.
		t.Logf("%s: took %v", script, time.Since(start))
		if alive(m) {
			t.Errorf("%s: grandchild still runs", script)
		}
	}
}

// A grandchild left behind after the leader exits is killed too, setsid
// or not, and the pipes it holds do not keep the reviewer waiting.
func TestGrandchildAfterExit(t *testing.T) {
	for _, script := range []string{`sleep MARK & echo done`, `setsid sleep MARK & echo done`} {
		m := marker()
		script = strings.ReplaceAll(script, "MARK", m)
		start := time.Now()
		out := &sink{limit: 1 << 20}
		res := runProcess(preset.Invocation{Args: []string{"/bin/sh", "-c", script}}, testBox(t), t.TempDir(),
			time.Now().Add(10*time.Second), out, &sink{limit: 1 << 20}, nil, nil)
		if res.timedOut || res.exitCode == nil || *res.exitCode != 0 || out.mem.String() != "done\n" {
			t.Errorf("%+v %q", res, out.mem.String())
		}
		// Not judged by the clock: a grandchild holding the pipes would
		// have run into the 10 s limit (timedOut above).
		t.Logf("%s: took %v", script, time.Since(start))
		if alive(m) {
			t.Errorf("%s: grandchild still runs", script)
		}
	}
}

type stopAt struct{ word string }

func (s stopAt) Line(l []byte) preset.Signal {
	if bytes.Contains(l, []byte(s.word)) {
		return preset.Signal{Violation: "saw " + s.word}
	}
	if bytes.HasPrefix(l, []byte("retry: ")) {
		return preset.Signal{Retry: string(l[len("retry: "):])}
	}
	return preset.Signal{}
}
func (stopAt) Finish() preset.Outcome { return preset.Outcome{} }

// A retry event whose message holds a refusal phrase (docs/review-round.md "Refusal phrases") stops the
// attempt at once; one without a phrase does not (docs/review-round.md §4: a quota
// refusal must not cost the time limit).
func TestG13_RetryRefusalStopsAttempt(t *testing.T) {
	start := time.Now()
	res := runProcess(preset.Invocation{Args: []string{"/bin/sh", "-c", "echo 'retry: connection reset'; echo 'retry: API error 429 rate_limit_error, resets in 5m.'; sleep 100"}}, testBox(t), t.TempDir(),
		time.Now().Add(20*time.Second), &sink{limit: 1 << 20}, &sink{limit: 1 << 20}, stopAt{"never-seen"}, nil)
	// Stopped at once: the refusal, not the 20 s limit, ended it (the
	// time is logged, not judged: it depends on the machine's load).
	if res.refusal == nil || res.refusal.Kind != refusal.QuotaOrRateLimit || res.timedOut {
		t.Fatalf("%+v after %v", res, time.Since(start))
	}
	t.Logf("stopped after %v", time.Since(start))
	if res.refusal.Resets != "5m" {
		t.Errorf("resets %q", res.refusal.Resets)
	}
	res = runProcess(preset.Invocation{Args: []string{"/bin/sh", "-c", "echo 'retry: connection reset'; exit 0"}}, testBox(t), t.TempDir(),
		time.Now().Add(20*time.Second), &sink{limit: 1 << 20}, &sink{limit: 1 << 20}, stopAt{"never-seen"}, nil)
	if res.refusal != nil || res.exitCode == nil || *res.exitCode != 0 {
		t.Errorf("a retry without a refusal phrase stopped the attempt: %+v", res)
	}
}

func TestViolationAndCapStop(t *testing.T) {
	start := time.Now()
	res := runProcess(preset.Invocation{Args: []string{"/bin/sh", "-c", "echo a; echo bad; sleep 100"}}, testBox(t), t.TempDir(),
		time.Now().Add(20*time.Second), &sink{limit: 1 << 20}, &sink{limit: 1 << 20}, stopAt{"bad"}, nil)
	if res.violation != "saw bad" || res.timedOut {
		t.Errorf("%+v", res)
	}
	t.Logf("stopped after %v", time.Since(start))
	out := &sink{limit: 1000}
	res = runProcess(preset.Invocation{Args: []string{"/bin/sh", "-c", "yes | head -c 100000; sleep 100"}}, testBox(t), t.TempDir(),
		time.Now().Add(20*time.Second), out, &sink{limit: 1 << 20}, nil, nil)
	if res.overCap != "stdout" || out.n != 1000 || out.mem.Len() != 1000 {
		t.Errorf("%+v n=%d", res, out.n)
	}
	in := "the input\n"
	out = &sink{limit: 1 << 20}
	res = runProcess(preset.Invocation{Args: []string{"/bin/sh", "-c", "cat; pwd; exit 7"}, Stdin: &in}, testBox(t), "/",
		time.Now().Add(20*time.Second), out, &sink{limit: 1 << 20}, nil, nil)
	if res.exitCode == nil || *res.exitCode != 7 || out.mem.String() != "the input\n/\n" {
		t.Errorf("%+v %q", res, out.mem.String())
	}
	res = runProcess(preset.Invocation{Args: []string{"/bin/sh", "-c", "kill -9 $$"}}, testBox(t), "/",
		time.Now().Add(20*time.Second), &sink{limit: 10}, &sink{limit: 10}, nil, nil)
	if res.exitCode != nil || res.signal != syscall.SIGKILL.String() {
		t.Errorf("%+v", res)
	}
}

func TestProgress(t *testing.T) {
	var b bytes.Buffer
	p := &Progress{w: &b, terminal: true, Every: 40 * time.Millisecond}
	act := NewActivity("/ws")
	act.add(preset.Signal{Calls: 2, Last: "Read /ws/head/a.go"})
	stop := p.Ticker("codex", time.Now().Add(-250*time.Second), act)
	time.Sleep(130 * time.Millisecond)
	stop()
	p.mu.Lock()
	got := b.String()
	p.mu.Unlock()
	// A terminal: the heartbeat as before, without the count.
	if !strings.HasPrefix(got, "spar: codex running 4m10s\n") {
		t.Errorf("%q", got)
	}
	// Not a terminal (an agent's captured stderr): the count and the last
	// call, relative to the workspace.
	var c bytes.Buffer
	q := &Progress{w: &c, terminal: false, Every: 10 * time.Millisecond}
	stop = q.Ticker("codex", time.Now().Add(-150*time.Second), act)
	time.Sleep(50 * time.Millisecond)
	act.add(preset.Signal{Calls: 1, Last: "Grep token in /ws/head"})
	time.Sleep(50 * time.Millisecond)
	stop()
	q.mu.Lock()
	got = c.String()
	q.mu.Unlock()
	if !strings.HasPrefix(got, "spar: codex running 2m30s, 2 tool calls, last: Read head/a.go\n") ||
		!strings.Contains(got, "spar: codex running 2m30s, 3 tool calls, last: Grep token in head\n") {
		t.Errorf("%q", got)
	}
	// A reviewer whose stream is not read (command): no count; before the
	// first call: 0 tool calls.
	if n := (*Activity)(nil).note(); n != "" {
		t.Errorf("%q", n)
	}
	if n := NewActivity("").note(); n != ", 0 tool calls" {
		t.Errorf("%q", n)
	}
	// Quiet: nothing, neither the state lines nor the heartbeat.
	var d bytes.Buffer
	quiet := &Progress{w: &d, quiet: true, Every: 10 * time.Millisecond}
	quiet.Line("codex started")
	stop = quiet.Ticker("codex", time.Now(), act)
	time.Sleep(40 * time.Millisecond)
	stop()
	if d.Len() != 0 {
		t.Errorf("quiet: %q", d.String())
	}
	for d, want := range map[time.Duration]string{12 * time.Second: "12s", 250 * time.Second: "4m10s", 3723 * time.Second: "1h02m03s"} {
		if got := Elapsed(d); got != want {
			t.Errorf("Elapsed(%v) = %q", d, got)
		}
	}
}

// StopAll (spar-exec interrupted) stops every running group, and no
// process starts after it (a stopped version check starts no run).
func TestStopAll(t *testing.T) {
	t.Cleanup(func() { stopping.Store(false) })
	m := marker()
	res := whileRunning(t, m, func() procResult {
		return runProcess(preset.Invocation{Args: []string{"/bin/sh", "-c", "setsid sleep " + m + " & sleep 100"}}, testBox(t), t.TempDir(),
			time.Now().Add(60*time.Second), &sink{limit: 1 << 20}, &sink{limit: 1 << 20}, nil, nil)
	}, StopAll)
	if res.timedOut || res.signal == "" {
		t.Errorf("%+v", res)
	}
	if alive(m) {
		t.Errorf("grandchild still runs")
	}
	after := runProcess(preset.Invocation{Args: []string{"/bin/true"}}, testBox(t), t.TempDir(),
		time.Now().Add(60*time.Second), &sink{limit: 1 << 20}, &sink{limit: 1 << 20}, nil, nil)
	if after.started || !errors.Is(after.startErr, errStopping) {
		t.Errorf("a process started after StopAll: %+v", after)
	}
}

// G19: the attempt's limit covers the version check, which itself takes at
// most VersionLimit.
func TestG19_VersionCheckInsideTheLimit(t *testing.T) {
	old := VersionLimit
	VersionLimit = 500 * time.Millisecond
	defer func() { VersionLimit = old }()
	dir := t.TempDir()
	slow := filepath.Join(dir, "slow")
	os.WriteFile(slow, []byte("#!/bin/sh\nsleep 30\n"), 0o755)
	m := "m"
	mk := func(timeout int) Reviewer {
		rd := filepath.Join(t.TempDir(), "r")
		os.Mkdir(rd, 0o755)
		return Reviewer{
			Config:    envelopeReviewer("claude", slow, &m, timeout),
			Dir:       rd,
			Workspace: dir,
		}
	}
	// The version check runs past its own 30 s (here 0.5 s) inside the limit.
	run := Run(mk(5), nil)
	if run.Status != Failed || run.Reason != "version check slow --version did not finish within 500ms" {
		t.Errorf("%s: %s", run.Status, run.Reason)
	}
	// The attempt's limit runs out first.
	VersionLimit = 30 * time.Second
	start := time.Now()
	run = Run(mk(1), nil)
	if run.Status != TimedOut || run.Reason != "no result within the time limit of 1 s (the version check did not finish)" {
		t.Errorf("%s: %s", run.Status, run.Reason)
	}
	t.Logf("took %v", time.Since(start))
	if len(run.Attempts) != 1 || run.Attempts[0].ExitCode != nil {
		t.Errorf("%+v", run.Attempts)
	}
}

// A failed attempt of a CLI that never says it is not logged in (codex)
// is an authentication refusal when it had no credentials and reached no
// model (docs/review-round.md "A CLI without credentials"); claude says it
// itself, and a run that reached a model or had a credential stays failed.
func TestNoCredentials(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	for _, v := range []string{"CODEX_HOME", "CODEX_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN", "CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX", "CLAUDE_CONFIG_DIR"} {
		t.Setenv(v, "")
	}
	model, zero, one := "gpt-5", int64(0), int64(1)
	want := "authentication: codex has no credentials (CODEX_API_KEY, OPENAI_API_KEY or " + filepath.Join(home, ".codex", "auth.json") + "): run `codex login`"
	cases := []struct {
		name, preset string
		oc           preset.Outcome
		env          [2]string
		file         bool
		want         string
	}{
		{name: "nothing", preset: "codex", want: want},
		{name: "an error item is no model", preset: "codex", oc: preset.Outcome{Errors: []string{"Connection failed"}}, want: want},
		{name: "a key", preset: "codex", env: [2]string{"OPENAI_API_KEY", "sk-x"}},
		{name: "codex's key", preset: "codex", env: [2]string{"CODEX_API_KEY", "sk-x"}},
		{name: "auth.json", preset: "codex", file: true},
		{name: "a tool ran", preset: "codex", oc: preset.Outcome{Tools: []string{"reasoning"}}},
		{name: "usage of nothing", preset: "codex", oc: preset.Outcome{Usage: &envelope.Usage{InputTokens: &zero}}, want: want},
		{name: "usage", preset: "codex", oc: preset.Outcome{Usage: &envelope.Usage{InputTokens: &one}}},
		{name: "a model", preset: "codex", oc: preset.Outcome{ObservedModel: &model}},
		{name: "claude says it itself", preset: "claude"},
		{name: "command", preset: "command"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.env[0] != "" {
				t.Setenv(c.env[0], c.env[1])
			}
			auth := filepath.Join(home, ".codex", "auth.json")
			os.Remove(auth)
			if c.file {
				os.MkdirAll(filepath.Dir(auth), 0o755)
				if err := os.WriteFile(auth, []byte("{}"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if got := noCredentials(c.preset, c.oc); got != c.want {
				t.Errorf("noCredentials = %q, want %q", got, c.want)
			}
		})
	}
}
