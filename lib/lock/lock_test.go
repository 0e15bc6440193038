package lock

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"
)

// G33: a second writer prints the waiting line once and waits.
func TestG33_WaitsWithOneLine(t *testing.T) {
	s := t.TempDir()
	first, err := Series(s, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu  sync.Mutex
		out bytes.Buffer
	)
	w := writerFunc(func(p []byte) (int, error) { mu.Lock(); defer mu.Unlock(); return out.Write(p) })
	got := make(chan *Lock)
	go func() {
		l, err := Series(s, w)
		if err != nil {
			t.Error(err)
		}
		got <- l
	}()
	select {
	case <-got:
		t.Fatal("took a held lock")
	case <-time.After(200 * time.Millisecond):
	}
	first.Release()
	second := <-got
	defer second.Release()
	mu.Lock()
	defer mu.Unlock()
	if want := "spar: waiting for another write of " + s + " to finish\n"; out.String() != want {
		t.Fatalf("%q, want %q", out.String(), want)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// The lock taken through an inherited descriptor (SPAR_LOCK_FD) belongs to
// that open file: Release leaves it held for the driver that opened it, and
// the descriptor becomes close-on-exec.
func TestG33_InheritedDescriptorStaysHeld(t *testing.T) {
	s := t.TempDir()
	f, err := os.OpenFile(filepath.Join(s, ".lock"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// As a shell's `exec 9>>file` leaves it: inherited across exec.
	if _, _, e := syscall.Syscall(syscall.SYS_FCNTL, f.Fd(), syscall.F_SETFD, 0); e != 0 {
		t.Fatal(e)
	}
	t.Setenv(Env, strconv.Itoa(int(f.Fd())))
	l, err := Series(s, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if fl, _, _ := syscall.Syscall(syscall.SYS_FCNTL, f.Fd(), syscall.F_GETFD, 0); fl&syscall.FD_CLOEXEC == 0 {
		t.Fatal("the inherited descriptor would leak into the programs a stage starts")
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	other, _ := os.OpenFile(filepath.Join(s, ".lock"), os.O_RDWR, 0)
	defer other.Close()
	if err := syscall.Flock(int(other.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err == nil {
		t.Fatal("the inherited lock was released")
	}
	// Taken again through the same descriptor: no wait, no line.
	var out bytes.Buffer
	if _, err := Series(s, &out); err != nil || out.Len() != 0 {
		t.Fatalf("%v %q", err, out.String())
	}
	t.Setenv(Env, "x")
	if _, err := Series(s, &out); err == nil {
		t.Fatal("a bad SPAR_LOCK_FD accepted")
	}
}
