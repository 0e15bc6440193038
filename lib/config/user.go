package config

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/jaekit/spar/lib/sandbox"
	"github.com/jaekit/spar/lib/spend"
)

// userFile is a user configuration file (G17, G19–G21) after its checks.
type userFile struct {
	Timeout      int      // top-level timeout_seconds; 0 when not written
	Budget       *float64 // top-level budget_usd; nil when not written
	HasReviewers bool     // the reviewers key is present
	Entries      []entry
}

// entry is one [[reviewers]] table. A nil pointer is a key not written.
type entry struct {
	Name           string
	Preset         Preset
	Binary         *string
	Model          *string
	FallbackModel  *string
	Effort         *string
	Argv           []string
	AllowedModels  []string
	AllowedEfforts []string
	Timeout        int      // 0 when not written
	Env            []string // nil when not written
	Budget         *float64 // budget_usd; nil when not written
	// Required is `required` (spar's own key, docs/contract.md): nil when
	// not written, then the preset's default (a command reviewer is not
	// required).
	Required *bool
}

// required is whether the entry's reviewer is required: `required` when
// written, else its preset's default.
func (e entry) required() bool {
	if e.Required != nil {
		return *e.Required
	}
	return e.Preset.Required
}

var reviewerKeys = []string{"name", "preset", "argv", "binary", "model", "fallback_model", "effort", "allowed_models", "allowed_efforts", "timeout_seconds", "env", "budget_usd", "required"}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// parseUser reads a user configuration file. Every error is a
// configuration error naming the line of the key at fault (docs/pipeline.md "TOML files").
func parseUser(file string, b []byte) (*userFile, error) {
	d, err := parseTOML(file, b)
	if err != nil {
		return nil, err
	}
	// G17: unknown keys, in document order.
	for _, k := range d.keys {
		switch {
		case !contains([]string{"timeout_seconds", "budget_usd", "reviewers"}, k.path[0]):
			return nil, cfgErr(file, k.pos.line, "unknown key %q (a user configuration has timeout_seconds, budget_usd and [[reviewers]])", k.path[0])
		case k.path[0] == "reviewers" && len(k.path) >= 3 && isIndex(k.path[1]) && !contains(reviewerKeys, k.path[2]):
			return nil, cfgErr(file, k.pos.line, "unknown key %q in [[reviewers]] (keys: %s)", k.path[2], strings.Join(reviewerKeys, ", "))
		}
	}
	u := &userFile{}
	if v, ok := d.data["timeout_seconds"]; ok {
		if u.Timeout, err = timeoutValue(file, d.line("timeout_seconds"), "timeout_seconds", v); err != nil {
			return nil, err
		}
	}
	if v, ok := d.data["budget_usd"]; ok {
		if u.Budget, err = budgetValue(file, d.line("budget_usd"), v); err != nil {
			return nil, err
		}
	}
	rv, ok := d.data["reviewers"]
	if !ok {
		return u, nil
	}
	u.HasReviewers = true
	list, ok := rv.([]any)
	if !ok {
		return nil, cfgErr(file, d.line("reviewers"), "reviewers: want an array of tables ([[reviewers]]), got %s", typeName(rv))
	}
	seen := map[string]string{} // lower-case name → name as written
	for i, item := range list {
		idx := strconv.Itoa(i)
		tbl, ok := item.(map[string]any)
		if !ok {
			return nil, cfgErr(file, d.line("reviewers", idx), "reviewers: item %d: want a table, got %s", i+1, typeName(item))
		}
		e, nameLine, err := parseEntry(d, idx, tbl)
		if err != nil {
			return nil, err
		}
		// G20: no duplicates within one file, ignoring case.
		if prev, dup := seen[strings.ToLower(e.Name)]; dup {
			return nil, cfgErr(file, nameLine, "name: duplicate reviewer name %q (same as %q ignoring case)", e.Name, prev)
		}
		seen[strings.ToLower(e.Name)] = e.Name
		u.Entries = append(u.Entries, e)
	}
	return u, nil
}

func isIndex(s string) bool {
	_, err := strconv.Atoi(s)
	return err == nil
}

func parseEntry(d *tomlDoc, idx string, tbl map[string]any) (entry, int, error) {
	file := d.file
	header := d.line("reviewers", idx)
	line := func(key string) int { return d.line("reviewers", idx, key) }
	var e entry
	// G21: preset is required; its absence is reported at the entry's header.
	pv, ok := tbl["preset"]
	if !ok {
		return e, 0, cfgErr(file, header, "[[reviewers]] without preset (one of claude, codex, agy, native, command)")
	}
	ps, ok := pv.(string)
	if !ok {
		return e, 0, cfgErr(file, line("preset"), "preset: want a string, got %s", typeName(pv))
	}
	p, ok := LookupPreset(ps)
	if !ok {
		return e, 0, cfgErr(file, line("preset"), "preset: unknown preset %q (one of claude, codex, agy, native, command)", ps)
	}
	e.Preset = p
	// The other keys in document order, so the first error is the first line.
	var keys []string
	for _, k := range d.keys {
		if len(k.path) == 3 && k.path[0] == "reviewers" && k.path[1] == idx && k.path[2] != "preset" {
			keys = append(keys, k.path[2])
		}
	}
	for _, key := range keys {
		v := tbl[key]
		l := line(key)
		if !uses(p, key) {
			return e, 0, cfgErr(file, l, "%s: the %s preset does not use %s", key, p.Name, key)
		}
		var err error
		switch key {
		case "name":
			s, ok := v.(string)
			if !ok {
				return e, 0, cfgErr(file, l, "name: want a string, got %s", typeName(v))
			}
			if err := CheckName(s); err != nil {
				return e, 0, cfgErr(file, l, "name: %v", err)
			}
			e.Name = s
		case "binary", "model", "fallback_model", "effort":
			s, ok := v.(string)
			if !ok {
				return e, 0, cfgErr(file, l, "%s: want a string, got %s", key, typeName(v))
			}
			switch key {
			case "binary":
				e.Binary = &s
			case "model":
				if s == "" {
					return e, 0, cfgErr(file, l, "model: empty model")
				}
				e.Model = &s
			case "fallback_model":
				e.FallbackModel = &s
			case "effort":
				e.Effort = &s
			}
		case "argv":
			if e.Argv, err = argvValue(d, idx, v); err != nil {
				return e, 0, err
			}
		case "allowed_models", "allowed_efforts":
			list, err := allowedValue(file, l, key, v)
			if err != nil {
				return e, 0, err
			}
			if key == "allowed_models" {
				e.AllowedModels = list
			} else {
				e.AllowedEfforts = list
			}
		case "timeout_seconds":
			if e.Timeout, err = timeoutValue(file, l, "timeout_seconds", v); err != nil {
				return e, 0, err
			}
		case "env":
			if e.Env, err = envValue(d, idx, v); err != nil {
				return e, 0, err
			}
		case "budget_usd":
			if e.Budget, err = budgetValue(file, l, v); err != nil {
				return e, 0, err
			}
		case "required":
			b, ok := v.(bool)
			if !ok {
				return e, 0, cfgErr(file, l, "required: want true or false, got %s", typeName(v))
			}
			e.Required = &b
		}
	}
	if p.UsesArgv && e.Argv == nil {
		return e, 0, cfgErr(file, header, "[[reviewers]] with preset command without argv")
	}
	if e.Model != nil && e.AllowedModels != nil {
		return e, 0, cfgErr(file, line("allowed_models"), "allowed_models: model and allowed_models in the same entry (a written model leaves the agent no choice)")
	}
	if e.Effort != nil && e.AllowedEfforts != nil {
		return e, 0, cfgErr(file, line("allowed_efforts"), "allowed_efforts: effort and allowed_efforts in the same entry (a written effort leaves the agent no choice)")
	}
	nameLine := line("name")
	if _, ok := tbl["name"]; !ok {
		// G20: when omitted, the preset name; a clash is reported at preset.
		e.Name = p.Name
		nameLine = line("preset")
	}
	return e, nameLine, nil
}

// uses reports whether preset p takes key (G21).
func uses(p Preset, key string) bool {
	switch key {
	case "name", "preset", "timeout_seconds", "required":
		return true
	case "binary", "fallback_model":
		return p.UsesBinary
	case "model", "allowed_models":
		return p.UsesModel
	case "effort", "allowed_efforts":
		return p.UsesEffort
	case "argv":
		return p.UsesArgv
	case "env":
		// Every preset spar starts a process for (not native).
		return p.UsesArgv || p.UsesBinary
	case "budget_usd":
		// The presets whose output states a spend spar can price while
		// it streams (docs/review-round.md "Spend and budgets").
		return p.Priced
	}
	return false
}

// budgetValue checks a budget_usd (spar's own key, top level and per
// entry): a TOML integer or float above 0, finite.
func budgetValue(file string, line int, v any) (*float64, error) {
	var f float64
	switch x := v.(type) {
	case int64:
		f = float64(x)
	case float64:
		f = x
	default:
		return nil, cfgErr(file, line, "budget_usd: want a number of US dollars above 0, got %s", typeName(v))
	}
	if !spend.Valid(f) {
		return nil, cfgErr(file, line, "budget_usd: want a number of US dollars above 0, got %s", typeName(v))
	}
	return &f, nil
}

// envValue checks an entry's env (spar's own key, docs/sandbox.md "The
// environment"): an array of variable names, each may end in * (a prefix);
// an item's error names the item's own line.
func envValue(d *tomlDoc, idx string, v any) ([]string, error) {
	l := d.line("reviewers", idx, "env")
	list, ok := v.([]any)
	if !ok {
		return nil, cfgErr(d.file, l, "env: want an array of variable names, got %s", typeName(v))
	}
	out := make([]string, 0, len(list))
	for i, item := range list {
		il := d.line("reviewers", idx, "env", strconv.Itoa(i))
		s, ok := item.(string)
		if !ok {
			return nil, cfgErr(d.file, il, "env: item %d: want a string, got %s", i+1, typeName(item))
		}
		if !sandbox.ValidEnvPattern(s) {
			return nil, cfgErr(d.file, il, "env: item %d: %q is not a variable name (letters, digits and _, not starting with a digit), nor such a prefix followed by *", i+1, s)
		}
		if !contains(out, s) {
			out = append(out, s)
		}
	}
	return out, nil
}

// timeoutValue checks G19: a positive integer.
func timeoutValue(file string, line int, key string, v any) (int, error) {
	n, ok := v.(int64)
	if !ok {
		return 0, cfgErr(file, line, "%s: want a positive integer (seconds), got %s", key, typeName(v))
	}
	if n <= 0 {
		return 0, cfgErr(file, line, "%s: want a positive integer (seconds), got %d", key, n)
	}
	return int(n), nil
}

// argvValue checks G21's argv: a non-empty array of non-empty strings. An
// item's error names the item's own line.
func argvValue(d *tomlDoc, idx string, v any) ([]string, error) {
	l := d.line("reviewers", idx, "argv")
	list, ok := v.([]any)
	if !ok {
		return nil, cfgErr(d.file, l, "argv: want an array of strings, got %s", typeName(v))
	}
	if len(list) == 0 {
		return nil, cfgErr(d.file, l, "argv: empty array (argv[0] is the program to run)")
	}
	out := make([]string, 0, len(list))
	for i, item := range list {
		il := d.line("reviewers", idx, "argv", strconv.Itoa(i))
		s, ok := item.(string)
		if !ok {
			return nil, cfgErr(d.file, il, "argv: item %d: want a string, got %s", i+1, typeName(item))
		}
		if s == "" {
			return nil, cfgErr(d.file, il, "argv: item %d: empty argument", i+1)
		}
		out = append(out, s)
	}
	return out, nil
}

// allowedValue checks an allowed list (docs/pipeline.md "Reviewer entries"): non-empty, strings, each in
// G25's value format. The error names the key's line.
func allowedValue(file string, line int, key string, v any) ([]string, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, cfgErr(file, line, "%s: want an array of strings, got %s", key, typeName(v))
	}
	if len(list) == 0 {
		return nil, cfgErr(file, line, "%s: empty list", key)
	}
	out := make([]string, 0, len(list))
	for i, item := range list {
		s, ok := item.(string)
		if !ok {
			return nil, cfgErr(file, line, "%s: item %d: want a string, got %s", key, i+1, typeName(item))
		}
		if err := CheckValue(s); err != nil {
			return nil, cfgErr(file, line, "%s: item %q: %v", key, s, err)
		}
		out = append(out, s)
	}
	return out, nil
}

// typeName names a TOML value for a message.
func typeName(v any) string { return valueName(v, "a table") }

// valueName names a decoded TOML or JSON value for a message: its type and,
// for a scalar, the value; a table or JSON object is named by object.
func valueName(v any, object string) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return fmt.Sprintf("the string %q", x)
	case bool:
		return fmt.Sprintf("the boolean %v", x)
	case int64:
		return fmt.Sprintf("the integer %d", x)
	case float64:
		return fmt.Sprintf("the float %v", x)
	case json.Number:
		return fmt.Sprintf("the number %s", x)
	case []any:
		return "an array"
	case map[string]any:
		return object
	}
	return fmt.Sprintf("a %T", v)
}
