// Package proctree reads the process tree from /proc (Linux): the
// descendants of a process, which the sandbox's launcher ends when its
// reviewer ends (docs/sandbox.md), and the processes a test started itself
// (Mine), which the tests that check a reviewer's tree ended look for and
// kill, so that two test runs side by side never touch each other's
// processes. Where there is no /proc every list is empty.
package proctree

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
)

// stat is what /proc/PID/stat says of one process: its state and parent.
type stat struct {
	state byte
	ppid  int
}

// readStat reads /proc/PID/stat; ok is false when the process is gone.
func readStat(pid int) (stat, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return stat{}, false
	}
	// The command name may hold spaces and parentheses: the fields after
	// its last ")" are state, ppid, ...
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return stat{}, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 || len(f[0]) != 1 {
		return stat{}, false
	}
	ppid, err := strconv.Atoi(f[1])
	if err != nil {
		return stat{}, false
	}
	return stat{state: f[0][0], ppid: ppid}, true
}

// all lists every process /proc shows with its stat.
func all() map[int]stat {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	out := map[int]stat{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, ok := readStat(pid); ok {
			out[pid] = st
		}
	}
	return out
}

// Descendants lists the processes below root (children, their children,
// ...), read from /proc/*/stat, zombies included.
func Descendants(root int) []int {
	kids := map[int][]int{}
	for pid, st := range all() {
		kids[st.ppid] = append(kids[st.ppid], pid)
	}
	var out []int
	queue := []int{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range kids[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

// Mine lists the live processes below this one (a zombie runs nothing)
// whose command line is exactly args. A test that made itself the
// subreaper of its tree (Subreap) finds here what its children left
// behind too (a setsid grandchild whose parent ended), and never a
// process of another run, whatever its command line.
func Mine(args ...string) []int {
	want := strings.Join(args, "\x00") + "\x00"
	var out []int
	for _, pid := range Descendants(os.Getpid()) {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		if err != nil || string(b) != want {
			continue
		}
		if st, ok := readStat(pid); !ok || st.state == 'Z' {
			continue
		}
		out = append(out, pid)
	}
	return out
}

var seq atomic.Int64

// Mark is a number no other process's command line holds by chance: this
// process's ID and a count, for a test's "sleep MARK" (a sleep of some
// years, which the test ends itself).
func Mark() string {
	return fmt.Sprintf("%d%04d", os.Getpid(), seq.Add(1)%10000)
}
