package config

import (
	"path"

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
