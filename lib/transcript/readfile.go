package transcript

import (
	"fmt"
	"github.com/jaekit/spar/lib/filekind"
	"io"
	"os"
)

// Caps of the files spar record reads whole. A result file is a reviewer's
// output, capped like a command reviewer's stdout (lib/runner.OutputCap); a
// transcript also holds every tool result of the session.
const (
	ResultCap     = 64 << 20
	TranscriptCap = 1 << 30
)

// ReadFile reads the file the host names for spar record (--result,
// --transcript): a regular file, or a pipe (--result <(cmd), /dev/stdin),
// up to limit bytes. A device or socket is refused rather than read: /dev/zero
// never ends, and spar would read until memory ran out.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	switch m := fi.Mode(); {
	case m.IsDir():
		return nil, fmt.Errorf("read %s: is a directory", path)
	case !m.IsRegular() && m&os.ModeNamedPipe == 0:
		return nil, fmt.Errorf("not a regular file or a pipe (%s)", filekind.Of(m))
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("larger than %d bytes", limit)
	}
	return b, nil
}
