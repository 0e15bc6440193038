// Package exitcode holds the exit codes of every spar command (docs/usage.md §6).
package exitcode

import "fmt"

const (
	OK       = 0  // done; for spar gate, passed
	Blocked  = 1  // spar gate only: blocked
	Usage    = 64 // usage error (docs/usage.md §6)
	Config   = 65 // configuration error or refusal; nothing written
	Internal = 70 // a bug; the message names the stage
	IO       = 74 // I/O error writing records
)

// Error is an error that carries the exit code a command ends with. Msg
// names no binary: the stage that prints it puts its own name and a colon
// before it (stage/cli), unless Located.
type Error struct {
	Code int
	Msg  string
	// Located: Msg begins with the place at fault, "<file>:<line>: …",
	// the one stderr line G17 fixes for a configuration
	// error; it is printed as it is.
	Located bool
	// Usage is the usage text a usage error prints after Msg, on lines of
	// its own; under the driver the driver's own help replaces it
	// (stage/cli).
	Usage string
}

func (e *Error) Error() string { return e.Msg }

// New returns an *Error with the given code and message.
func New(code int, msg string) *Error { return &Error{Code: code, Msg: msg} }

// NewLocated returns an *Error whose message begins with the place at
// fault (Located).
func NewLocated(code int, msg string) *Error { return &Error{Code: code, Msg: msg, Located: true} }

// WithUsage is a usage error (64): msg, then the command's usage text.
func WithUsage(msg, usage string) *Error { return &Error{Code: Usage, Msg: msg, Usage: usage} }

// Usagef is a usage error (64) with the formatted message.
func Usagef(format string, a ...any) *Error { return New(Usage, fmt.Sprintf(format, a...)) }
