//go:build linux

package proctree

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// orphan starts "sleep MARK" through a shell that exits at once, so that
// the sleep's parent is gone: it goes to init, or to this process once it
// is a subreaper. It returns the sleep's process ID and kills it at the
// test's end.
func orphan(t *testing.T, mark string) int {
	t.Helper()
	pidFile := filepath.Join(t.TempDir(), "pid")
	sh := exec.Command("/bin/sh", "-c", `setsid sleep "$1" </dev/null >/dev/null 2>&1 & echo $! > "$2"`, "sh", mark, pidFile)
	if out, err := sh.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	b, err := os.ReadFile(pidFile)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid == 0 {
		t.Fatalf("no pid: %q %v", b, err)
	}
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	// sh has run setsid, which has not necessarily run sleep yet.
	for i := 0; i < 200; i++ {
		if b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline"); string(b) == "sleep\x00"+mark+"\x00" {
			return pid
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("sleep %s (%d) never ran", mark, pid)
	return 0
}

// Mine finds a child by its command line, and not a process with the same
// command line outside this process's tree (another test run's): here an
// orphan handed to init, until this process is the subreaper, after which
// the next orphan comes to it and is found.
func TestMine(t *testing.T) {
	mark := Mark()
	if other := Mark(); other == mark || !strings.HasPrefix(mark, strconv.Itoa(os.Getpid())) {
		t.Fatalf("Mark: %s then %s", mark, other)
	}
	child := exec.Command("sleep", mark)
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { child.Process.Kill(); child.Wait() }()
	var elsewhere int
	if os.Getpid() != 1 {
		elsewhere = orphan(t, mark)
	}
	if got := Mine("sleep", mark); !slices.Equal(got, []int{child.Process.Pid}) {
		t.Errorf("Mine = %v, want only the child %d (not %d, outside the tree)", got, child.Process.Pid, elsewhere)
	}
	if !slices.Contains(Descendants(os.Getpid()), child.Process.Pid) {
		t.Errorf("Descendants lacks the child %d", child.Process.Pid)
	}
	if err := Subreap(); err != nil {
		t.Fatal(err)
	}
	left := orphan(t, mark)
	if got := Mine("sleep", mark); !slices.Contains(got, left) || slices.Contains(got, elsewhere) {
		t.Errorf("Mine = %v after Subreap, want the orphan %d and not %d", got, left, elsewhere)
	}
	// A zombie runs nothing: the orphan killed and not reaped is gone.
	syscall.Kill(left, syscall.SIGKILL)
	for i := 0; i < 200 && slices.Contains(Mine("sleep", mark), left); i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if slices.Contains(Mine("sleep", mark), left) {
		t.Errorf("the killed orphan %d still counts", left)
	}
}
