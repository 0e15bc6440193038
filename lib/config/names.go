package config

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// ReservedNames are the files and folders spar writes in a round folder
// (G20): a reviewer cannot take one of them, or one with ".tmp" appended,
// ignoring case, since the reviewer's own folder would collide with it.
var ReservedNames = []string{"round.json", "packet.md", "schema.json", "findings.json", "ledger.jsonl", "summary.md", "waivers.jsonl", "workspace"}

// CheckName checks a reviewer name by G20's syntax and reserved names. The
// error says what is wrong; the caller says where the name came from.
func CheckName(name string) error {
	if !nameRE.MatchString(name) {
		return fmt.Errorf("reviewer name %q is outside ^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$", name)
	}
	for _, r := range ReservedNames {
		if strings.EqualFold(name, r) || strings.EqualFold(name, r+".tmp") {
			return fmt.Errorf("reviewer name %q is reserved: spar writes %s in a round folder", name, r)
		}
	}
	return nil
}

// CheckValue checks a model or effort value by G25's value format: not
// empty, valid UTF-8 (the record holds it as received), not starting with
// "-" (it would read as a CLI option), no whitespace or control character.
func CheckValue(v string) error {
	switch {
	case v == "":
		return fmt.Errorf("the value is empty")
	case !utf8.ValidString(v):
		return fmt.Errorf("the value is not valid UTF-8")
	case strings.HasPrefix(v, "-"):
		return fmt.Errorf("the value starts with -")
	}
	for _, r := range v {
		if unicode.IsSpace(r) {
			return fmt.Errorf("the value holds a whitespace character %q", r)
		}
		if unicode.IsControl(r) {
			return fmt.Errorf("the value holds a control character %q", r)
		}
	}
	return nil
}
