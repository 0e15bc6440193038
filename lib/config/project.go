package config

import (
	"github.com/jaekit/spar/lib/filekind"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/glob"
)

// ProjectFile is the project configuration's path inside the repository.
const ProjectFile = ".jaekit/spar.toml"

// ForbiddenProjectKeys may not appear at any depth of the project
// configuration (docs/pipeline.md "Project configuration"): a cloned repository must not run commands on the
// user's computer or change the costs on the user's account.
var ForbiddenProjectKeys = []string{"reviewers", "preset", "command", "argv", "binary", "model", "fallback_model", "effort", "allowed_models", "allowed_efforts"}

var projectKeys = []string{"angles", "rules", "check_paths", "exclude", "caps", "check_command", "check_timeout_seconds", "verify_fixes"}
var capKeys = []string{"plan", "plan_delta", "code"}

// project is the applied project configuration.
type project struct {
	Angles     []string
	Caps       envelope.Caps
	CheckPaths []string
	Exclude    []string
	Rules      []string
}

func defaultProject() *project {
	return &project{
		Angles:     append([]string(nil), Angles...),
		Caps:       envelope.Caps{Plan: DefaultCapPlan, PlanDelta: DefaultCapPlanDelta, Code: DefaultCapCode},
		CheckPaths: []string{},
		Rules:      []string{},
	}
}

// parseProject checks .jaekit/spar.toml (G17, G22–G24). root is the
// repository's working tree root, for the rules (G23).
func parseProject(file, root string, b []byte) (*project, error) {
	d, err := parseTOML(file, b)
	if err != nil {
		return nil, err
	}
	// Forbidden keys first, at any depth, in document order: they are the
	// reason the project file is restricted at all.
	for _, k := range d.keys {
		last := k.path[len(k.path)-1]
		if contains(ForbiddenProjectKeys, last) && !isIndexIn(d, k.path) {
			return nil, cfgErr(file, k.pos.line, "forbidden key %q: the project configuration cannot choose reviewers, commands or models", strings.Join(displayPath(k.path), "."))
		}
	}
	for _, k := range d.keys {
		switch {
		case !contains(projectKeys, k.path[0]):
			return nil, cfgErr(file, k.pos.line, "unknown key %q (a project configuration has angles, rules, check_paths, exclude, check_command, check_timeout_seconds, verify_fixes and [caps])", k.path[0])
		case k.path[0] == "caps" && len(k.path) >= 2 && !contains(capKeys, k.path[1]):
			return nil, cfgErr(file, k.pos.line, "unknown key %q in [caps] (keys: plan, plan_delta, code)", k.path[1])
		}
	}
	p := defaultProject()
	if v, ok := d.data["caps"]; ok {
		tbl, ok := v.(map[string]any)
		if !ok {
			return nil, cfgErr(file, d.line("caps"), "caps: want a table, got %s", typeName(v))
		}
		for _, key := range capKeys {
			cv, ok := tbl[key]
			if !ok {
				continue
			}
			// G22: integers of 0 or more.
			n, ok := cv.(int64)
			if !ok || n < 0 {
				return nil, cfgErr(file, d.line("caps", key), "caps.%s: want an integer of 0 or more, got %s", key, typeName(cv))
			}
			switch key {
			case "plan":
				p.Caps.Plan = int(n)
			case "plan_delta":
				p.Caps.PlanDelta = int(n)
			case "code":
				p.Caps.Code = int(n)
			}
		}
	}
	if v, ok := d.data["angles"]; ok {
		if p.Angles, err = anglesValue(d, v); err != nil {
			return nil, err
		}
	}
	if v, ok := d.data["rules"]; ok {
		items, err := stringList(d, "rules", v)
		if err != nil {
			return nil, err
		}
		p.Rules = make([]string, 0, len(items))
		for _, it := range items {
			rel, err := checkRule(root, it)
			if err != nil {
				return nil, cfgErr(file, d.line("rules"), "rules: item %q: %v", it, err)
			}
			p.Rules = append(p.Rules, rel)
		}
	}
	if v, ok := d.data["check_paths"]; ok {
		items, err := stringList(d, "check_paths", v)
		if err != nil {
			return nil, err
		}
		for _, it := range items {
			if _, err := glob.Compile(it); err != nil {
				return nil, cfgErr(file, d.line("check_paths"), "check_paths: item %q: %v", it, err)
			}
		}
		p.CheckPaths = items
	}
	if _, err := fixChecks(d); err != nil {
		return nil, err
	}
	// exclude: globs of the check path grammar (G24's) whose files the
	// packet leaves out of its file list (generated or vendored files),
	// never out of the workspace.
	if v, ok := d.data["exclude"]; ok {
		items, err := stringList(d, "exclude", v)
		if err != nil {
			return nil, err
		}
		for _, it := range items {
			if _, err := glob.Compile(it); err != nil {
				return nil, cfgErr(file, d.line("exclude"), "exclude: item %q: %v", it, err)
			}
		}
		p.Exclude = items
	}
	return p, nil
}

// isIndexIn reports whether the last component of path is an array index
// rather than a key (an index is never a forbidden key).
func isIndexIn(d *tomlDoc, path []string) bool {
	if len(path) < 2 || !isIndex(path[len(path)-1]) {
		return false
	}
	_, isArray := lookup(d.data, path[:len(path)-1]).([]any)
	return isArray
}

func lookup(v any, path []string) any {
	for _, c := range path {
		switch x := v.(type) {
		case map[string]any:
			v = x[c]
		case []any:
			i, err := strconv.Atoi(c)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

// displayPath shows array indices as [n] joined to their key.
func displayPath(path []string) []string {
	var out []string
	for i, c := range path {
		if i > 0 && isIndex(c) {
			out[len(out)-1] += "[" + c + "]"
			continue
		}
		out = append(out, c)
	}
	return out
}

// stringList checks an array of strings; an error names the key's line and
// the item.
func stringList(d *tomlDoc, key string, v any) ([]string, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, cfgErr(d.file, d.line(key), "%s: want an array of strings, got %s", key, typeName(v))
	}
	out := make([]string, 0, len(list))
	for i, item := range list {
		s, ok := item.(string)
		if !ok {
			return nil, cfgErr(d.file, d.line(key), "%s: item %d: want a string, got %s", key, i+1, typeName(item))
		}
		out = append(out, s)
	}
	return out, nil
}

// anglesValue checks G22: a subset of the five angles, no duplicates, at
// least one; the result is in the fixed order.
func anglesValue(d *tomlDoc, v any) ([]string, error) {
	items, err := stringList(d, "angles", v)
	if err != nil {
		return nil, err
	}
	if len(items) == 0 {
		return nil, cfgErr(d.file, d.line("angles"), "angles: empty list (at least one of %s)", strings.Join(Angles, ", "))
	}
	seen := map[string]bool{}
	for _, a := range items {
		if !contains(Angles, a) {
			return nil, cfgErr(d.file, d.line("angles"), "angles: unknown angle %q (one of %s)", a, strings.Join(Angles, ", "))
		}
		if seen[a] {
			return nil, cfgErr(d.file, d.line("angles"), "angles: duplicate angle %q", a)
		}
		seen[a] = true
	}
	out := make([]string, 0, len(items))
	for _, a := range Angles {
		if seen[a] {
			out = append(out, a)
		}
	}
	return out, nil
}

// checkRule checks G23 for one rules item and returns its applied value: the
// repository-relative path, cleaned, with "/" separators.
func checkRule(root, item string) (string, error) {
	if item == "" {
		return "", errorf("empty path")
	}
	if filepath.IsAbs(item) || strings.HasPrefix(item, "/") {
		return "", errorf("absolute path (rules are repository-relative)")
	}
	rel := filepath.Clean(filepath.FromSlash(item))
	if rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", errorf("leaves the repository through ..")
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", errorf("repository root: %v", err)
	}
	full := filepath.Join(root, rel)
	real, err := filepath.EvalSymlinks(full)
	if err != nil {
		if os.IsNotExist(err) {
			return "", errorf("missing file")
		}
		return "", errorf("cannot resolve: %v", unwrapPath(err))
	}
	// A symbolic link's target must stay inside the repository.
	if r, err := filepath.Rel(realRoot, real); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) || filepath.IsAbs(r) {
		return "", errorf("leaves the repository through a symbolic link (to %s)", real)
	}
	// Git's own folder is no file of the repository: its config holds the
	// user's remotes and credentials, and a cloned repository must not send
	// it to the reviewers.
	if r, _ := filepath.Rel(realRoot, real); inGitDir(rel) || inGitDir(r) {
		return "", errorf("inside .git (git's own files are not repository files)")
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", errorf("cannot stat: %v", unwrapPath(err))
	}
	if !fi.Mode().IsRegular() {
		return "", errorf("not a regular file (%s)", filekind.Of(fi.Mode()))
	}
	f, err := os.Open(real)
	if err != nil {
		return "", errorf("unreadable: %v", unwrapPath(err))
	}
	defer f.Close()
	if _, err := f.Read(make([]byte, 1)); err != nil && err != io.EOF {
		return "", errorf("unreadable: %v", unwrapPath(err))
	}
	return filepath.ToSlash(rel), nil
}

// inGitDir reports whether a component of the relative path p is .git, in
// any case (a case-insensitive file system reads .GIT as .git).
func inGitDir(p string) bool {
	for _, c := range strings.Split(filepath.ToSlash(p), "/") {
		if strings.EqualFold(c, ".git") {
			return true
		}
	}
	return false
}
