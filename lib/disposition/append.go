package disposition

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/jaekit/spar/lib/atomic"
	"github.com/jaekit/spar/lib/exitcode"
	"github.com/jaekit/spar/lib/lock"
	"github.com/jaekit/spar/lib/pipe"
)

// PauseEnv names a test-only environment variable: a Go duration that the
// write commands sleep at each step of a write (after taking the lock,
// after reading the records, after appending the line), so that a crash test
// can kill them between their steps. Unset or unparsable: no pause.
const PauseEnv = "SPAR_WRITE_PAUSE"

func pause() {
	if d, err := time.ParseDuration(os.Getenv(PauseEnv)); err == nil && d > 0 {
		time.Sleep(d)
	}
}

// Now is the clock of the `at` field; tests may replace it.
var Now = func() time.Time { return time.Now().UTC() }

func stamp() string { return Now().UTC().Format(time.RFC3339Nano) }

// withLock runs fn holding the series lock (G33). The lock prints the
// waiting line to stderr once when another write holds it; fn reads the
// records after the lock is taken, never before.
func withLock(series string, stderr io.Writer, fn func() error) error {
	l, err := lock.Series(series, stderr)
	if err != nil {
		return exitcode.New(exitcode.IO, err.Error())
	}
	defer l.Release()
	pause()
	return fn()
}

// appendRecord appends v as one JSON line to path. The caller holds the
// series lock. A last line without its newline is a write a crash cut short;
// readers already skip it (lib/round), so it is cut off before appending:
// otherwise the new line would be glued to it and both would be lost.
func appendRecord(path string, v any) error {
	b, err := pipe.Marshal(v)
	if err != nil {
		return err
	}
	if err := cutPartialTail(path); err != nil {
		return exitcode.New(exitcode.IO, fmt.Sprintf("%s: %v", path, err))
	}
	if err := atomic.AppendLine(path, b, 0o644); err != nil {
		return exitcode.New(exitcode.IO, fmt.Sprintf("%s: %v", path, err))
	}
	pause()
	return nil
}

// cutPartialTail truncates path after its last newline when its last byte is
// not one. A missing or empty file is left alone.
func cutPartialTail(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		return err
	}
	if len(b) == 0 || b[len(b)-1] == '\n' {
		return nil
	}
	keep := bytes.LastIndexByte(b, '\n') + 1
	if err := f.Truncate(int64(keep)); err != nil {
		return err
	}
	return f.Sync()
}

// Output is what a write command prints: the line it appended, as an
// indented JSON document.
func Output(w io.Writer, v any) error {
	b, err := pipe.MarshalIndent(v)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}
