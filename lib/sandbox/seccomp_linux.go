//go:build linux

package sandbox

import (
	"errors"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The socket filter (docs/sandbox.md, "UNIX sockets"): Landlock does not
// govern connect(2), so a reviewer could reach every pathname UNIX socket
// it can name (ssh-agent, docker.sock, the session bus). A seccomp filter
// on the launcher's thread, inherited by the reviewer and everything it
// starts, refuses socket(2) for AF_UNIX with EACCES, whatever address the
// socket would then reach, and socketpair(2) of AF_UNIX datagram sockets,
// which can send to an address (sendto) or be connected again; stream and
// seqpacket pairs, which cannot, stay.
// io_uring_setup(2) is refused too: an io_uring could open and connect a
// socket without the socket(2) call the filter sees. A program of another
// syscall ABI than the launcher's (32-bit x86 on x86-64, x32) is killed:
// its socketcall(2) hides the address family from the filter.

// socketFilter is the BPF program; auditArch and the syscall numbers are
// the build's (seccomp_<arch>.go).
func socketFilter() []unix.SockFilter {
	const (
		ld   = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq  = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		jge  = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
		ret  = unix.BPF_RET | unix.BPF_K
		nr   = 0 // offsetof(struct seccomp_data, nr)
		arch = 4 // offsetof(struct seccomp_data, arch)
		and  = unix.BPF_ALU | unix.BPF_AND | unix.BPF_K
		arg0 = 16 // the low 32 bits of args[0] (little-endian)
		arg1 = 24 // of args[1]
		// typeMask keeps a socket type without SOCK_NONBLOCK and
		// SOCK_CLOEXEC (the kernel's SOCK_TYPE_MASK).
		typeMask = 0xf
	)
	// Jump offsets count from the next instruction: allow is 15, deny 16,
	// kill 17.
	return []unix.SockFilter{
		/* 0 */ {Code: ld, K: arch},
		/* 1 */ {Code: jeq, K: auditArch, Jt: 0, Jf: 15},
		/* 2 */ {Code: ld, K: nr},
		/* 3 */ {Code: jge, K: 0x40000000, Jt: 13, Jf: 0}, // x32
		/* 4 */ {Code: jeq, K: unix.SYS_IO_URING_SETUP, Jt: 11, Jf: 0},
		/* 5 */ {Code: jeq, K: unix.SYS_SOCKET, Jt: 2, Jf: 0},
		/* 6 */ {Code: jeq, K: unix.SYS_SOCKETPAIR, Jt: 3, Jf: 0},
		/* 7 */ {Code: ret, K: unix.SECCOMP_RET_ALLOW},
		// socket(2): no AF_UNIX.
		/* 8 */ {Code: ld, K: arg0},
		/* 9 */ {Code: jeq, K: unix.AF_UNIX, Jt: 6, Jf: 5},
		// socketpair(2): no AF_UNIX of type SOCK_DGRAM (flags aside).
		/* 10 */ {Code: ld, K: arg0},
		/* 11 */ {Code: jeq, K: unix.AF_UNIX, Jt: 0, Jf: 3},
		/* 12 */ {Code: ld, K: arg1},
		/* 13 */ {Code: and, K: typeMask},
		/* 14 */ {Code: jeq, K: unix.SOCK_DGRAM, Jt: 1, Jf: 0},
		/* 15 */ {Code: ret, K: unix.SECCOMP_RET_ALLOW},
		/* 16 */ {Code: ret, K: unix.SECCOMP_RET_ERRNO | uint32(unix.EACCES)},
		/* 17 */ {Code: ret, K: unix.SECCOMP_RET_KILL_PROCESS},
	}
}

// applySocketFilter installs the socket filter on the calling thread (the
// reviewer is forked from it) and says what it did, for the record: "no
// unix sockets", or "unix sockets open (<why>)".
func applySocketFilter() string {
	if auditArch == 0 {
		return "unix sockets open (no socket filter for this architecture)"
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return "unix sockets open (no_new_privs: " + err.Error() + ")"
	}
	prog := socketFilter()
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	if err := unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&fprog)), 0, 0); err != nil {
		return "unix sockets open (the kernel refused the seccomp filter: " + err.Error() + ")"
	}
	return "no unix sockets"
}

// dropCapabilities empties the calling thread's capability sets (the
// bounding set first, while CAP_SETPCAP still allows it, then the ambient,
// permitted, effective and inheritable sets), so that the reviewer forked
// from it and every program it executes, a root user's included, has none.
// A reviewer with CAP_SYS_ADMIN read /proc/<pid>/environ of processes
// outside its Landlock domain (Linux 6.18): the ptrace scoping holds only
// without it. A user without capabilities has nothing to drop (EPERM on
// the bounding set is then harmless: execve grants it nothing).
func dropCapabilities() error {
	for c := 0; c < 64; c++ {
		err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0)
		if errors.Is(err, unix.EINVAL) {
			break // past the kernel's last capability
		}
		if err != nil {
			break
		}
	}
	unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	return unix.Capset(&hdr, &data[0])
}
