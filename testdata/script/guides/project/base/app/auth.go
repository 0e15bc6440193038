package app

import (
	"crypto/subtle"
	"errors"
)

// ErrBadToken is returned for a token that does not match.
var ErrBadToken = errors.New("bad token")

// Link is an issued login link.
type Link struct {
	Token string
	Used  bool
}

// Verify signs in with a link once (AC-1) and refuses a wrong token (AC-3).
func Verify(l *Link, token string) error {
	if l.Used {
		return errors.New("link already used")
	}
	if subtle.ConstantTimeCompare([]byte(l.Token), []byte(token)) != 1 {
		return ErrBadToken
	}
	l.Used = true
	return nil
}
