package sign

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"
)

// Signers are the keys trusted to sign rounds: an OpenSSH allowed_signers
// file (ssh-keygen(1), "ALLOWED SIGNERS"), one key a line:
//
//	principals [options] keytype base64-key [comment]
//
// principals is a comma-separated list (the first names the signer);
// options are cert-authority, namespaces="…", valid-after=…, valid-before=…
// (comma-separated, as authorized_keys writes them). A key trusts for the
// namespace spar when it has no namespaces option or lists spar. A
// cert-authority line is not taken (spar checks plain keys, not
// certificates). A key outside its valid-after/valid-before window, read
// at the time of the check, is not trusted either.
type Signers struct {
	entries []signer
	now     time.Time
}

type signer struct {
	principal  string
	key        ssh.PublicKey
	namespaces []string // nil: any
	after      time.Time
	before     time.Time
}

// ParseSigners reads an allowed_signers file. A line that does not read,
// or a file over 1 MiB, is an error naming the line: trusted keys are
// never taken in part.
func ParseSigners(b []byte) (*Signers, error) {
	if len(b) > maxSigners {
		return nil, fmt.Errorf("allowed_signers holds %d bytes, more than 1 MiB", len(b))
	}
	s := &Signers{now: time.Now()}
	for i, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		e, skip, err := parseSigner(line)
		if err != nil {
			return nil, fmt.Errorf("allowed_signers:%d: %v", i+1, err)
		}
		if !skip {
			s.entries = append(s.entries, e)
		}
	}
	return s, nil
}

func parseSigner(line string) (e signer, skip bool, err error) {
	principals, rest := splitField(line)
	if principals == "" || rest == "" {
		return e, false, fmt.Errorf("want principals, then a key")
	}
	key, _, options, _, err := ssh.ParseAuthorizedKey([]byte(rest))
	if err != nil {
		return e, false, fmt.Errorf("the key does not read (%v)", err)
	}
	e.key = key
	e.principal = strings.Split(strings.Trim(principals, `"`), ",")[0]
	for _, o := range options {
		name, value, _ := strings.Cut(o, "=")
		value = strings.Trim(value, `"`)
		switch strings.ToLower(name) {
		case "cert-authority":
			skip = true
		case "namespaces":
			e.namespaces = strings.Split(value, ",")
		case "valid-after":
			if e.after, err = signerTime(value); err != nil {
				return e, false, err
			}
		case "valid-before":
			if e.before, err = signerTime(value); err != nil {
				return e, false, err
			}
		default:
			return e, false, fmt.Errorf("the option %q is not one of allowed_signers'", name)
		}
	}
	return e, skip, nil
}

// splitField splits the first field of an allowed_signers line off: up to
// the first space outside double quotes.
func splitField(line string) (string, string) {
	quoted := false
	for i, c := range line {
		switch {
		case c == '"':
			quoted = !quoted
		case (c == ' ' || c == '\t') && !quoted:
			return line[:i], strings.TrimSpace(line[i+1:])
		}
	}
	return line, ""
}

// signerTime reads a time of valid-after/valid-before: YYYYMMDD or
// YYYYMMDDHHMM[SS], with a trailing Z for UTC (local time otherwise, as
// ssh-keygen reads it).
func signerTime(v string) (time.Time, error) {
	loc := time.Local
	if strings.HasSuffix(v, "Z") || strings.HasSuffix(v, "z") {
		v, loc = v[:len(v)-1], time.UTC
	}
	for _, layout := range []string{"20060102", "200601021504", "20060102150405"} {
		if len(v) == len(layout) {
			if t, err := time.ParseInLocation(layout, v, loc); err == nil {
				return t, nil
			}
		}
	}
	return time.Time{}, fmt.Errorf("the time %q is not YYYYMMDD[HHMM[SS]][Z]", v)
}

// find is the principal of the first line that holds key and trusts it
// for namespace now.
func (s *Signers) find(key ssh.PublicKey, namespace string) (string, bool) {
	if s == nil {
		return "", false
	}
	want := key.Marshal()
	for _, e := range s.entries {
		if !bytes.Equal(e.key.Marshal(), want) {
			continue
		}
		if e.namespaces != nil && !contains(e.namespaces, namespace) {
			continue
		}
		if !e.after.IsZero() && s.now.Before(e.after) || !e.before.IsZero() && !s.now.Before(e.before) {
			continue
		}
		return e.principal, true
	}
	return "", false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Only is the signers that trust one key: a job's own (review in CI reuses
// only the reviews it signed itself).
func Only(key ssh.PublicKey, principal string) *Signers {
	return &Signers{entries: []signer{{principal: principal, key: key}}, now: time.Now()}
}

// Len is how many keys the signers trust.
func (s *Signers) Len() int {
	if s == nil {
		return 0
	}
	return len(s.entries)
}

// TrustedKey is one key the signers trust for a namespace now, with the
// principal its line names first.
type TrustedKey struct {
	Principal string
	Key       ssh.PublicKey
}

// Trusted are the keys the signers trust for namespace now, in the file's
// order (an attestation's signature is checked against them, lib/attest).
func (s *Signers) Trusted(namespace string) []TrustedKey {
	if s == nil {
		return nil
	}
	var out []TrustedKey
	for _, e := range s.entries {
		if p, ok := s.find(e.key, namespace); ok && p == e.principal {
			out = append(out, TrustedKey{Principal: e.principal, Key: e.key})
		}
	}
	return out
}
