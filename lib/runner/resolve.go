package runner

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

// Resolve finds the executable of a reviewer (G14). A value containing / is
// that path: missing is unavailable; existing but not a regular file or
// without execute permission is failed. A name without / is an executable
// regular file on PATH; when there is none (even if only files without
// execute permission exist) it is unavailable. status is "" when found.
func Resolve(name, pathEnv string) (exe, status, reason string) {
	if strings.Contains(name, "/") {
		abs, err := filepath.Abs(name)
		if err != nil {
			return "", "failed", fmt.Sprintf("executable %q: %v", name, err)
		}
		fi, err := os.Stat(abs)
		switch {
		case os.IsNotExist(err):
			return "", "unavailable", fmt.Sprintf("executable %q does not exist", name)
		case err != nil:
			return "", "failed", fmt.Sprintf("executable %q: %v", name, err)
		case !fi.Mode().IsRegular():
			return "", "failed", fmt.Sprintf("executable %q is not a regular file", name)
		case fi.Mode().Perm()&0o111 == 0:
			return "", "failed", fmt.Sprintf("executable %q has no execute permission", name)
		}
		return abs, "", ""
	}
	for _, dir := range filepath.SplitList(pathEnv) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, name)
		fi, err := os.Stat(p)
		if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
			continue
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			continue
		}
		return abs, "", ""
	}
	return "", "unavailable", fmt.Sprintf("no executable %q on PATH", name)
}

// fileSHA256 is the hex sha256 of the file at path, "" when it cannot be
// read (the attempt then fails on starting it and says why).
func fileSHA256(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
}

// sums caches fileSHA256 by file identity (path, device, inode, size,
// modification time): the fallback attempt of a reviewer runs the same
// executable, and hashing a large one (the claude CLI is about 370 MB: one
// to several seconds) must not delay the fallback after a quota refusal
// (docs/review-round.md "Refusal phrases").
var sums sync.Map

type fileID struct {
	path     string
	dev, ino uint64
	size     int64
	mtime    int64
}

// identity is the file's identity, false when it cannot be read.
func identity(path string) (fileID, bool) {
	fi, err := os.Stat(path)
	if err != nil {
		return fileID{}, false
	}
	id := fileID{path: path, size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		id.dev, id.ino = uint64(st.Dev), uint64(st.Ino)
	}
	return id, true
}

func cachedSHA256(path string) string {
	id, ok := identity(path)
	if !ok {
		return fileSHA256(path)
	}
	if s, ok := sums.Load(id); ok {
		return s.(string)
	}
	s := fileSHA256(path)
	if s != "" {
		sums.Store(id, s)
	}
	return s
}

// versions keeps the version line of an executable whose version check
// passed, by file identity and arguments: the fallback attempt of the same
// executable starts without checking again (docs/review-round.md "Refusal phrases": a quota refusal's
// fallback starts at once; the claude CLI's check costs a start of its
// 370 MB binary).
var versions sync.Map

type versionKey struct {
	id   fileID
	args string
}
