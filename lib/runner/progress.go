package runner

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/jaekit/spar/lib/escape"
	"github.com/jaekit/spar/lib/preset"
)

// HeartbeatEnv names the environment variable that sets the heartbeat
// interval (a Go duration, "100ms"): only the tests set it, so that a
// heartbeat shows without waiting 30 s (docs/review-round.md "Progress").
const HeartbeatEnv = "SPAR_HEARTBEAT"

// Heartbeat is the interval of the periodic line when HeartbeatEnv does not
// set one.
const Heartbeat = 30 * time.Second

// Progress writes the progress lines of a round to stderr
// (docs/review-round.md "Progress"): one line when a reviewer changes state
// (started, pending, running again with the fallback model, ended) and,
// every Every while it runs, a heartbeat. On a terminal the heartbeat is
// "spar: codex running 4m10s"; otherwise (an agent capturing stderr) it
// also says how many tool calls the reviewer's stream began and the last
// one: "spar: claude running 2m30s, 14 tool calls, last: Read
// head/app/main.go". Quiet prints none of these lines; errors are not
// progress and never go through it.
type Progress struct {
	mu       sync.Mutex
	w        io.Writer
	terminal bool
	quiet    bool
	Every    time.Duration
}

// NewProgress writes to w, nothing when quiet (spar run --quiet); the
// heartbeat with counts only when w is not a terminal. The heartbeat
// interval is HeartbeatEnv's duration when it holds a positive one, else
// Heartbeat.
func NewProgress(w io.Writer, quiet bool) *Progress {
	term := false
	if f, ok := w.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			term = true
		}
	}
	every := Heartbeat
	if d, err := time.ParseDuration(os.Getenv(HeartbeatEnv)); err == nil && d > 0 {
		every = d
	}
	return &Progress{w: w, terminal: term, quiet: quiet, Every: every}
}

// Line prints "spar: " and the formatted text.
func (p *Progress) Line(format string, args ...any) {
	// After StopAll the reviewers end because spar stopped them: their
	// "failed" is no news.
	if p == nil || p.w == nil || p.quiet || stopping.Load() {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "spar: %s\n", escapeControls(fmt.Sprintf(format, args...)))
}

// Warn prints "spar: warning: " and the formatted text, even when quiet: a
// warning is not progress.
func (p *Progress) Warn(format string, args ...any) {
	if p == nil || p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "spar: warning: %s\n", escapeControls(fmt.Sprintf(format, args...)))
}

// escapeControls shows control characters as Go escapes (\x1b, \n): a
// reviewer's reason (its last stderr line) reaches the user's terminal, and
// a terminal escape in it must not act there, nor a newline split the line.
func escapeControls(s string) string { return escape.Controls(s) }

// Activity counts the tool calls a reviewer's stream began, over all its
// attempts, for the heartbeat. Its methods are safe for concurrent use
// (the stdout reader adds, the heartbeat reads). A nil *Activity is a
// reviewer whose stream spar does not read while it runs (command): the
// heartbeat then names no count.
type Activity struct {
	mu        sync.Mutex
	calls     int
	last      string
	workspace string // removed from the last call's text: head/app/main.go
}

// NewActivity counts the calls of a reviewer running in workspace.
func NewActivity(workspace string) *Activity { return &Activity{workspace: workspace} }

func (a *Activity) add(sig preset.Signal) {
	if a == nil || sig.Calls <= 0 {
		return
	}
	last := sig.Last
	if a.workspace != "" {
		last = strings.ReplaceAll(last, strings.TrimSuffix(a.workspace, "/")+"/", "")
	}
	a.mu.Lock()
	a.calls += sig.Calls
	a.last = last
	a.mu.Unlock()
}

// note is ", 14 tool calls, last: Read head/app/main.go" (", 0 tool calls"
// before the first), "" for a nil Activity.
func (a *Activity) note() string {
	if a == nil {
		return ""
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	s := fmt.Sprintf(", %d tool call", a.calls)
	if a.calls != 1 {
		s += "s"
	}
	if a.last != "" {
		s += ", last: " + a.last
	}
	return s
}

// counting hands every line to its Monitor and counts the tool calls the
// signals name into act.
type counting struct {
	preset.Monitor
	act *Activity
}

func (c counting) Line(line []byte) preset.Signal {
	sig := c.Monitor.Line(line)
	c.act.add(sig)
	return sig
}

// Ticker prints the heartbeat of reviewer name every p.Every while the
// returned stop function has not been called: "NAME running 4m10s" on a
// terminal, with act's count and last call appended otherwise.
func (p *Progress) Ticker(name string, start time.Time, act *Activity) (stop func()) {
	if p == nil || p.quiet || p.Every <= 0 {
		return func() {}
	}
	done := make(chan struct{})
	t := time.NewTicker(p.Every)
	go func() {
		for {
			select {
			case <-done:
				t.Stop()
				return
			case <-t.C:
				note := ""
				if !p.terminal {
					note = act.note()
				}
				p.Line("%s running %s%s", name, Elapsed(time.Since(start)), note)
			}
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { close(done) }) }
}

// Elapsed formats a duration as 4m10s or 12s.
func Elapsed(d time.Duration) string {
	s := int(d.Round(time.Second) / time.Second)
	if s < 60 {
		return fmt.Sprintf("%ds", s)
	}
	if s < 3600 {
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	}
	return fmt.Sprintf("%dh%02dm%02ds", s/3600, (s/60)%60, s%60)
}
