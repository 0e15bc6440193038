package round

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"unsafe"

	"github.com/jaekit/spar/lib/filekind"
)

// MaxRecord is the most a record file of a round or series may hold
// (round.json, findings.json, ledger.jsonl, waivers.jsonl,
// extensions.jsonl, packet.md, schema.json, a reviewer's result.json): a
// reviewer's output is capped at 64 MiB, and the findings.json spar makes
// of it adds its own fields to every finding (60,000 findings of a 40 MB
// result make 70 MB), so the bound leaves room for that four times over.
const MaxRecord = 256 << 20

// ReadFile is how every reader of spar's records reads one (docs/trust.md,
// bounded readers): the final path element is opened without following a
// symbolic link and without blocking (a FIFO), it must be a regular file,
// and at most MaxRecord bytes are read. A link, a FIFO, a device or a huge
// file is an error, in well under a second, never a hang or a read until
// memory runs out. A missing file keeps os.ErrNotExist.
func ReadFile(path string) ([]byte, error) {
	f, size, err := openRecordSize(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// Read into a buffer of the size stat gave (one more byte shows a file
	// that grew since): the gate reads thousands of records.
	b := make([]byte, 0, size+1)
	for {
		n, err := f.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(b) > MaxRecord {
			break
		}
		if len(b) == cap(b) {
			b = slices.Grow(b, min(len(b), MaxRecord+1-len(b)))
		}
	}
	if len(b) > MaxRecord {
		return nil, fmt.Errorf("%s grew past the %d MiB a record may hold", filepath.Base(path), MaxRecord>>20)
	}
	return b, nil
}

// ReadText is ReadFile as a string, without a copy: the bytes ReadFile
// read are never written again, so the string may share them (a reviewer's
// raw result is checked as text, and the gate checks every round's).
func ReadText(path string) (string, error) {
	b, err := ReadFile(path)
	if err != nil || len(b) == 0 {
		return "", err
	}
	return unsafe.String(unsafe.SliceData(b), len(b)), nil
}

// FileSHA256 is the sha256 of the record at path, read a piece at a time
// with ReadFile's checks: how a recording's staged files are held to the
// sha256 round.json names without reading one whole (docs/pipeline.md
// "Memory").
func FileSHA256(path string) (string, error) {
	f, err := openRecord(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(f, MaxRecord+1))
	if err != nil {
		return "", err
	}
	if n > MaxRecord {
		return "", fmt.Errorf("%s grew past the %d MiB a record may hold", filepath.Base(path), MaxRecord>>20)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// openRecord opens path for ReadFile and FileSHA256: without following a
// final symbolic link, without blocking, a regular file of at most
// MaxRecord bytes.
func openRecord(path string) (*os.File, error) {
	f, _, err := openRecordSize(path)
	return f, err
}

// openRecordSize is openRecord that also gives the size stat found.
func openRecordSize(path string) (*os.File, int64, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, 0, fmt.Errorf("%s is a symbolic link, not a record spar wrote", filepath.Base(path))
		}
		return nil, 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, 0, fmt.Errorf("%s is not a regular file (%s)", filepath.Base(path), filekind.Of(fi.Mode()))
	}
	if fi.Size() > MaxRecord {
		f.Close()
		return nil, 0, fmt.Errorf("%s holds %d bytes, more than the %d MiB a record may hold", filepath.Base(path), fi.Size(), MaxRecord>>20)
	}
	return f, fi.Size(), nil
}
