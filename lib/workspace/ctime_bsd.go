//go:build darwin || freebsd || netbsd

package workspace

import (
	"syscall"
	"time"
)

// ctime is when the inode last changed (a link added or removed, chmod).
func ctime(st *syscall.Stat_t) time.Time { return time.Unix(st.Ctimespec.Sec, st.Ctimespec.Nsec) }
