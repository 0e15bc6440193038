// Package atomic publishes files the way every spar record is written
// (docs/review-round.md §1, F4 of docs/review-gate.md §8: incomplete publication never satisfies a
// gate): NAME.tmp, fsync, rename, fsync of the folder. A reader sees the old
// file or the new one, never a half-written one.
package atomic

import (
	"io"
	"os"
	"path/filepath"
	"syscall"
)

// WriteFile writes data to path atomically with the given permissions,
// through NAME.tmp. Callers hold the series lock (G33), so no other spar
// writes the same NAME.tmp at the same time.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	return WriteFunc(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteFunc is WriteFile for a file written as it is produced: write
// writes its bytes into NAME.tmp (a record too large to build in memory,
// docs/pipeline.md "Memory"); an error from write leaves no NAME.tmp and
// no change at path.
func WriteFunc(path string, perm os.FileMode, write func(io.Writer) error) error {
	tmp := path + ".tmp"
	// A stale NAME.tmp (a crash, or a symbolic link planted beside the
	// record) is removed, never opened: opening it would write through a
	// link to a file outside the records.
	if err := os.Remove(tmp); err != nil && !os.IsNotExist(err) {
		return err
	}
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, perm)
	if err != nil {
		return err
	}
	return publish(f, tmp, path, write)
}

// WriteFileUnlocked is WriteFile for a writer that holds no lock (spar gate
// --out and --sarif never lock, G33): its temporary file has a name of its
// own (NAME.<random>.tmp, created exclusively, never through a link), so two
// gates writing the same file at once each publish a whole file and the last
// rename wins, instead of one renaming the other's half-written NAME.tmp.
func WriteFileUnlocked(path string, data []byte, perm os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	if err := f.Chmod(perm); err != nil {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	return publish(f, f.Name(), path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// publish writes to the open temporary file f what write writes, syncs and
// closes it, and renames it to path.
func publish(f *os.File, tmp, path string, write func(io.Writer) error) error {
	if err := write(f); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return SyncDir(filepath.Dir(path))
}

// AppendLine appends one line (data plus "\n") to path with a single write
// and fsyncs it. Callers hold the series lock (G33), so lines never
// interleave; a crash leaves at most one partial last line, which readers
// treat as not written. A symbolic link at path is never written through
// (docs/trust.md, records are spar's alone).
func AppendLine(path string, data []byte, perm os.FileMode) error {
	buf := make([]byte, 0, len(data)+1)
	buf = append(append(buf, data...), '\n')
	return Append(path, buf, perm)
}

// Append appends data (whole lines) to path with a single write and fsyncs
// the file and its folder; path is created when missing, never opened
// through a symbolic link.
func Append(path string, data []byte, perm os.FileMode) error {
	return appendFlags(path, data, perm, os.O_CREATE)
}

// CreateExcl creates path with O_EXCL (never opening a file that already
// exists, nor a symbolic link) and writes data to it with a single write,
// then fsyncs the file and its folder. It is how a round's ledger.jsonl is
// made at the first recording (docs/review-round.md §1, "Crashes roll forward"): a ledger someone else
// created before spar is an error (os.ErrExist), never appended to.
func CreateExcl(path string, data []byte, perm os.FileMode) error {
	return appendFlags(path, data, perm, os.O_CREATE|os.O_EXCL)
}

func appendFlags(path string, data []byte, perm os.FileMode, flags int) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|flags, perm)
	if err != nil {
		return err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		if err == nil {
			err = &os.PathError{Op: "append", Path: path, Err: syscall.EINVAL}
		}
		return err
	}
	buf := data
	if _, err := f.Write(buf); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return SyncDir(filepath.Dir(path))
}

// Rename renames oldpath to newpath (replacing newpath, a symbolic link
// there included, never writing through it) and fsyncs newpath's folder.
func Rename(oldpath, newpath string) error {
	if err := os.Rename(oldpath, newpath); err != nil {
		return err
	}
	return SyncDir(filepath.Dir(newpath))
}

// SyncDir fsyncs a folder so that a rename or a new entry in it is durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
