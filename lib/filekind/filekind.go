// Package filekind names what a path is when it is not the regular file a
// reader wanted, for the one line that refuses it: every reader of spar
// (configuration, records, a reviewer's result or transcript) says it the
// same way.
package filekind

import "io/fs"

// Of names the kind of a file mode that is not a regular file: "a folder",
// "a FIFO", "a character device", "a block device", "a socket", "a
// symbolic link"; any other mode by its type letters.
func Of(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsRegular():
		return "a regular file"
	}
	return "mode " + m.String()
}
