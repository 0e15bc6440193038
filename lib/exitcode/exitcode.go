// Package exitcode holds the exit codes of every spar command (docs/usage.md §6).
package exitcode

const (
	OK       = 0  // done; for spar gate, passed
	Blocked  = 1  // spar gate only: blocked
	Usage    = 64 // usage error (docs/usage.md §6)
	Config   = 65 // configuration error or refusal; nothing written
	Internal = 70 // a bug; the message names the stage
	IO       = 74 // I/O error writing records
)

// Error is an error that carries the exit code a command ends with.
type Error struct {
	Code int
	Msg  string
}

func (e *Error) Error() string { return e.Msg }

// New returns an *Error with the given code and message.
func New(code int, msg string) *Error { return &Error{Code: code, Msg: msg} }
