//go:build linux

package proctree

import "golang.org/x/sys/unix"

// Subreap makes this process the subreaper of its tree
// (PR_SET_CHILD_SUBREAPER): a process whose parent ends is handed to it
// rather than to init, so that Mine still finds it. A test calls it once,
// in TestMain; the orphans it takes in are left as zombies until it exits.
func Subreap() error {
	return unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
}
