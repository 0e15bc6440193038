package runner

import (
	"fmt"
	"github.com/jaekit/spar/lib/escape"
	"io"
	"os"
	"sync"
	"time"
)

// Progress writes the progress lines of a round to stderr: one when each
// reviewer starts and ends, and for long runs a periodic one
// ("spar: codex running 4m10s") only when stderr is a terminal.
type Progress struct {
	mu       sync.Mutex
	w        io.Writer
	terminal bool
	Every    time.Duration
}

// NewProgress writes to w; the periodic line only when w is a terminal.
func NewProgress(w io.Writer) *Progress {
	term := false
	if f, ok := w.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			term = true
		}
	}
	return &Progress{w: w, terminal: term, Every: 30 * time.Second}
}

// Line prints "spar: " and the formatted text.
func (p *Progress) Line(format string, args ...any) {
	if p == nil || p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "spar: %s\n", escapeControls(fmt.Sprintf(format, args...)))
}

// escapeControls shows control characters as Go escapes (\x1b, \n): a
// reviewer's reason (its last stderr line) reaches the user's terminal, and
// a terminal escape in it must not act there, nor a newline split the line.
func escapeControls(s string) string { return escape.Controls(s) }

// Ticker prints "spar: NAME running 4m10s" every p.Every while the returned
// stop function has not been called (terminal only).
func (p *Progress) Ticker(name string, start time.Time) (stop func()) {
	if p == nil || !p.terminal || p.Every <= 0 {
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
				p.Line("%s running %s", name, Elapsed(time.Since(start)))
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
