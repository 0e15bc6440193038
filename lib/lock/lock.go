// Package lock is the series lock of G33: one write at a time per series.
//
// spar run, spar record, spar triage, spar extend and spar waive hold an
// exclusive flock on <series>/.lock. When another write holds it, the
// waiting line is printed once and the caller blocks until it is free, then
// re-reads the records. The driver can open the lock file itself and pass
// the descriptor in SPAR_LOCK_FD: a flock belongs to the open file
// description, so a lock taken by one stage through that descriptor stays
// held after the stage exits, until the driver closes it. That is how
// `spar run` holds the lock from the cap decision (spar-exec) to recording
// (spar-record) across processes.
//
// Taking the lock also finishes the recordings of the series that a crash
// interrupted (round.FinishSeries, docs/review-round.md §1, "Crashes roll forward"), so every writer reads
// published records, never a recording cut short.
package lock

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/jaekit/spar/lib/round"
)

// Env names the environment variable holding an inherited lock descriptor.
const Env = "SPAR_LOCK_FD"

// Lock is a held series lock.
type Lock struct {
	f         *os.File
	inherited bool
}

// Series takes the lock of the series folder, printing
// "spar: waiting for another write of <series> to finish" to w once when it
// has to wait. The series folder must exist.
func Series(series string, w io.Writer) (*Lock, error) {
	var f *os.File
	inherited := false
	if s := os.Getenv(Env); s != "" {
		fd, err := strconv.Atoi(s)
		if err != nil || fd < 0 {
			return nil, fmt.Errorf("%s=%q is not a file descriptor", Env, s)
		}
		f = os.NewFile(uintptr(fd), filepath.Join(series, ".lock"))
		if f == nil {
			return nil, fmt.Errorf("%s=%q is not open", Env, s)
		}
		// The descriptor stays open in the driver; in this process it must
		// not leak into the programs a stage starts (reviewers): a reviewer
		// left running would hold the series lock.
		syscall.CloseOnExec(fd)
		inherited = true
	} else {
		var err error
		f, err = os.OpenFile(filepath.Join(series, ".lock"), os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, err
		}
	}
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		fmt.Fprintf(w, "spar: waiting for another write of %s to finish\n", series)
		err = flockRetry(f)
	}
	if err != nil {
		if !inherited {
			f.Close()
		}
		return nil, fmt.Errorf("lock %s: %w", series, err)
	}
	// Crashes roll forward (docs/review-round.md §1): the next writer of the series
	// finishes every recording a crash interrupted before it reads the
	// records (lib/round, recording.go).
	if err := round.FinishSeries(series, w); err != nil {
		if !inherited {
			f.Close()
		}
		return nil, fmt.Errorf("finish the interrupted recordings of %s: %w", series, err)
	}
	return &Lock{f: f, inherited: inherited}, nil
}

func flockRetry(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

// Release frees a lock this process opened. An inherited lock stays held:
// the driver that opened the descriptor releases it when it closes it.
func (l *Lock) Release() error {
	if l == nil || l.inherited {
		return nil
	}
	err := syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	return err
}
