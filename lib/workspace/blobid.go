package workspace

import (
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"strconv"
	"sync"
	"syscall"
)

// hashBufs holds the read buffers of blobIs (one per writer goroutine).
var hashBufs = sync.Pool{New: func() any { b := make([]byte, 128<<10); return &b }}

// blobIs reports whether the file at p is the git blob oid of size bytes:
// "blob <size>\x00" and the content, hashed with SHA-1 (a 40-digit id) or
// SHA-256 (a 64-digit id, a repository of that object format). The file is
// opened without following a symbolic link and read up to size+1 bytes, so a
// file that grew since it was checked is not the blob either. Plain system
// calls, like writeFile: an *os.File would register every file with the
// poller, a cost paid per file.
func blobIs(p, oid string, size int64) bool {
	var h hash.Hash
	switch len(oid) {
	case 40:
		h = sha1.New()
	case 64:
		h = sha256.New()
	default:
		return false
	}
	fd, err := syscall.Open(p, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer syscall.Close(fd)
	bp := hashBufs.Get().(*[]byte)
	defer hashBufs.Put(bp)
	buf := *bp
	h.Write([]byte("blob " + strconv.FormatInt(size, 10) + "\x00"))
	var n int64
	for n <= size {
		m, err := syscall.Read(fd, buf)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return false
		}
		if m == 0 {
			break
		}
		h.Write(buf[:m])
		n += int64(m)
	}
	return n == size && hex.EncodeToString(h.Sum(nil)) == oid
}
