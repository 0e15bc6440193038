//go:build linux && arm64

package sandbox

import "golang.org/x/sys/unix"

// auditArch is the seccomp architecture of the launcher's syscalls.
const auditArch = unix.AUDIT_ARCH_AARCH64
