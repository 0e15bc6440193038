package config

import "github.com/jaekit/spar/lib/glob"

// ProjectCheckPaths reads the check_paths of a project configuration's bytes
// as a commit holds them (docs/trust.md "Inputs the agent can edit"): the
// check paths the project committed, against which spar tells a class that
// holds only through --check-path or an uncommitted edit. It checks only
// the TOML and check_paths (G17, G24): the rest of a committed file is
// checked when spar-config reads it from a working tree. file names the
// file in errors. No check_paths key is [].
func ProjectCheckPaths(file string, b []byte) ([]string, error) {
	d, err := parseTOML(file, b)
	if err != nil {
		return nil, err
	}
	v, ok := d.data["check_paths"]
	if !ok {
		return []string{}, nil
	}
	items, err := stringList(d, "check_paths", v)
	if err != nil {
		return nil, err
	}
	for _, it := range items {
		if _, err := glob.Compile(it); err != nil {
			return nil, cfgErr(file, d.line("check_paths"), "check_paths: item %q: %v", it, err)
		}
	}
	return items, nil
}
