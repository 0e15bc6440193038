//go:build linux && !amd64 && !arm64

package sandbox

// auditArch 0: no socket filter for this architecture (the record says
// "unix sockets open").
const auditArch = 0
