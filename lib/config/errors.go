package config

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/jaekit/spar/lib/exitcode"
)

// cfgErr is a configuration error (docs/pipeline.md "TOML files"): exit 65, one stderr line
// "<file>:<line>: <content>" naming the key or value at fault.
func cfgErr(file string, line int, format string, args ...any) error {
	return exitcode.NewLocated(exitcode.Config, fmt.Sprintf("%s:%d: %s", file, line, fmt.Sprintf(format, args...)))
}

// cfgErrCol is cfgErr with the column, for TOML syntax errors.
func cfgErrCol(file string, line, col int, format string, args ...any) error {
	if col <= 0 {
		return cfgErr(file, line, format, args...)
	}
	return exitcode.NewLocated(exitcode.Config, fmt.Sprintf("%s:%d:%d: %s", file, line, col, fmt.Sprintf(format, args...)))
}

// pathErr is a configuration error about a source path itself (docs/pipeline.md
// "User source": a source path that is not a regular file names the path): no line exists.
func pathErr(file string, format string, args ...any) error {
	return exitcode.NewLocated(exitcode.Config, fmt.Sprintf("%s: %s", file, fmt.Sprintf(format, args...)))
}

// refuse is a refusal of a command-line value (G25): exit 65, nothing on
// stdout, the message shows the name and value with %q (the stage names
// itself before it).
func refuse(format string, args ...any) error {
	return exitcode.New(exitcode.Config, fmt.Sprintf(format, args...))
}

// usage is a usage error (exit 64).
func usage(format string, args ...any) error {
	return exitcode.New(exitcode.Usage, fmt.Sprintf(format, args...))
}

func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }

// unwrapPath drops the path an *fs.PathError repeats: the message names it.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
