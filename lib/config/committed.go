package config

import (
	"path"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/jaekit/spar/lib/glob"
)

// ProjectCheckPaths reads the check_paths of a project configuration's bytes
// as a commit holds them (docs/trust.md "Inputs the agent can edit"): the
// check paths the project committed, against which spar tells a class that
// holds only through --check-path or an uncommitted edit. It checks only
// the TOML and check_paths (G17, G24): the rest of a committed file is
// checked when spar-config reads it from a working tree. file names the
// file in errors. No check_paths key is [].
func ProjectCheckPaths(file string, b []byte) ([]string, error) {
	return committedGlobs(file, b, "check_paths")
}

// ProjectRules reads the rules of a project configuration's bytes as a
// commit holds them: each item as the repository path spar-config applies
// (cleaned, with /), without looking at a working tree. No rules key is [].
// The gate holds a round's applied rules to it.
func ProjectRules(file string, b []byte) ([]string, error) {
	_, items, err := committedList(file, b, "rules")
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(items))
	for _, it := range items {
		out = append(out, path.Clean(it))
	}
	return out, nil
}

// committedList reads the list of strings key of a project configuration's
// bytes as a commit holds them ([] when the key is absent).
func committedList(file string, b []byte, key string) (*tomlDoc, []string, error) {
	d, err := parseTOML(file, b)
	if err != nil {
		return nil, nil, err
	}
	v, ok := d.data[key]
	if !ok {
		return d, []string{}, nil
	}
	items, err := stringList(d, key, v)
	return d, items, err
}

// ProjectAngles reads the angles of a project configuration's bytes as a
// commit holds them, as spar-config applies them (G22: the fixed order; no
// angles key is all five). The gate holds a round's applied angles to it.
func ProjectAngles(file string, b []byte) ([]string, error) {
	d, err := parseTOML(file, b)
	if err != nil {
		return nil, err
	}
	v, ok := d.data["angles"]
	if !ok {
		return append([]string(nil), Angles...), nil
	}
	return anglesValue(d, v)
}

// ProjectExclude reads the exclude globs of a project configuration's
// bytes as a commit holds them (no exclude key is none). The gate holds a
// round's applied exclude globs to it.
func ProjectExclude(file string, b []byte) ([]string, error) {
	return committedGlobs(file, b, "exclude")
}

// committedGlobs reads the list of globs key (G24's grammar) of a project
// configuration's bytes as a commit holds them ([] when absent).
func committedGlobs(file string, b []byte, key string) ([]string, error) {
	d, items, err := committedList(file, b, key)
	if err != nil {
		return nil, err
	}
	for _, it := range items {
		if _, err := glob.Compile(it); err != nil {
			return nil, cfgErr(file, d.line(key), "%s: item %q: %v", key, it, err)
		}
	}
	return items, nil
}

// Verified fix claims (spar's own keys, docs/contract.md "Extensions of
// spar's own"; docs/review-round.md "Verified fix claims"): what spar
// triage --check runs and how the gate holds fixed lines to it. They are
// read from a commit (the fix commit for the check, the gated head for the
// gate), never from the working tree, and are no part of the applied
// configuration's digest.
const (
	DefaultCheckTimeout = 300
	MaxCheckTimeout     = 3600
	// VerifyRequired and VerifyOptional are verify_fixes' values.
	VerifyRequired = "required"
	VerifyOptional = "optional"
)

// FixChecks are the project configuration's verified-fix keys.
type FixChecks struct {
	// Command is check_command: the project's own check, run at the
	// round's head and at the fix ("" when none).
	Command string
	// TimeoutSeconds is check_timeout_seconds (1 to MaxCheckTimeout,
	// default DefaultCheckTimeout).
	TimeoutSeconds int
	// Verify is verify_fixes: VerifyRequired or VerifyOptional (default).
	Verify string
}

// ProjectFixChecks reads the verified-fix keys of a project
// configuration's bytes as a commit holds them (nil bytes: the defaults).
func ProjectFixChecks(file string, b []byte) (FixChecks, error) {
	if b == nil {
		return FixChecks{TimeoutSeconds: DefaultCheckTimeout, Verify: VerifyOptional}, nil
	}
	d, err := parseTOML(file, b)
	if err != nil {
		return FixChecks{}, err
	}
	return fixChecks(d)
}

func fixChecks(d *tomlDoc) (FixChecks, error) {
	fc := FixChecks{TimeoutSeconds: DefaultCheckTimeout, Verify: VerifyOptional}
	if v, ok := d.data["check_command"]; ok {
		s, ok := v.(string)
		if !ok || strings.TrimSpace(s) == "" || !utf8.ValidString(s) || strings.ContainsRune(s, 0) {
			return fc, cfgErr(d.file, d.line("check_command"), "check_command: want a shell command line (a string that is not blank), got %s", typeName(v))
		}
		fc.Command = s
	}
	if v, ok := d.data["check_timeout_seconds"]; ok {
		n, ok := v.(int64)
		if !ok || n < 1 || n > MaxCheckTimeout {
			return fc, cfgErr(d.file, d.line("check_timeout_seconds"), "check_timeout_seconds: want an integer from 1 to %d, got %s", MaxCheckTimeout, valueText(v))
		}
		fc.TimeoutSeconds = int(n)
	}
	if v, ok := d.data["verify_fixes"]; ok {
		s, ok := v.(string)
		if !ok || (s != VerifyRequired && s != VerifyOptional) {
			return fc, cfgErr(d.file, d.line("verify_fixes"), "verify_fixes: want %q or %q, got %s", VerifyRequired, VerifyOptional, valueText(v))
		}
		fc.Verify = s
	}
	return fc, nil
}

// valueText shows a configuration value in an error: a string or an
// integer as written, anything else by its type.
func valueText(v any) string {
	switch x := v.(type) {
	case string:
		return strconv.Quote(x)
	case int64:
		return strconv.FormatInt(x, 10)
	}
	return typeName(v)
}
