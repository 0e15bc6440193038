package filekind

import (
	"io/fs"
	"testing"
)

func TestOf(t *testing.T) {
	for m, want := range map[fs.FileMode]string{
		fs.ModeDir | 0o755:                "a folder",
		fs.ModeNamedPipe | 0o644:          "a FIFO",
		fs.ModeDevice | fs.ModeCharDevice: "a character device",
		fs.ModeDevice:                     "a block device",
		fs.ModeSocket:                     "a socket",
		fs.ModeSymlink | 0o777:            "a symbolic link",
		0o644:                             "a regular file",
		fs.ModeIrregular:                  "mode " + fs.ModeIrregular.String(),
	} {
		if got := Of(m); got != want {
			t.Errorf("Of(%v) = %q, want %q", m, got, want)
		}
	}
}
