package app

import (
	"errors"
	"time"
)

// ErrBadToken is returned for a token that does not match.
var ErrBadToken = errors.New("bad token")

// ErrExpired is returned for a link used after its lifetime (AC-2).
var ErrExpired = errors.New("link expired")

// Lifetime is how long a login link stays valid (AC-2).
const Lifetime = 15 * time.Minute

// Link is an issued login link.
type Link struct {
	Token    string
	Used     bool
	IssuedAt time.Time
}

// Verify signs in with a link once (AC-1), refuses an expired link (AC-2)
// and refuses a wrong token (AC-3).
func Verify(l *Link, token string, now time.Time) error {
	if l.Used {
		return errors.New("link already used")
	}
	if now.Sub(l.IssuedAt) > Lifetime {
		return ErrExpired
	}
	if l.Token != token {
		return ErrBadToken
	}
	l.Used = true
	return nil
}
