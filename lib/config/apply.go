package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/exitcode"
	"github.com/jaekit/spar/lib/gitx"
	"github.com/jaekit/spar/lib/suggest"
)

// Options are the inputs of one `spar config` (or the configuration part of
// `spar run`).
type Options struct {
	Repo string // a folder inside the repository; "" is the working directory
	// NoProject leaves the project configuration unread: its defaults
	// apply (spar doctor outside a repository, with no --repo given).
	NoProject bool
	Reviewers *string // --reviewers as given; nil when not given
	Models    []Arg   // --model NAME=MODEL, in the order given
	Efforts   []Arg   // --effort NAME=EFFORT, in the order given
	Getenv    func(string) string
}

// Arg is one --model or --effort argument split at its first "=".
type Arg struct{ Name, Value string }

// ParseArg splits a --model or --effort argument at the first "=" (G25).
// Without "=", or with an empty name, it is a usage error (64).
func ParseArg(flag, s string) (Arg, error) {
	name, value, ok := strings.Cut(s, "=")
	if !ok {
		return Arg{}, usage("%s %q: want NAME=VALUE", flag, s)
	}
	if name == "" {
		return Arg{}, usage("%s %q: empty reviewer name", flag, s)
	}
	return Arg{Name: name, Value: value}, nil
}

// Load decides the applied configuration record (docs/pipeline.md §1). Any error is an
// *exitcode.Error: 65 for a configuration error or a refusal, 64 for a
// usage error; nothing is decided then.
func Load(o Options) (*envelope.Config, error) {
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	c := &envelope.Config{Choices: []envelope.Choice{}, Files: []envelope.ConfigFile{}}

	// docs/pipeline.md "User source": the reviewer list comes only from the first source found.
	configured, fileTimeout, err := userSource(getenv, c)
	if err != nil {
		return nil, err
	}
	c.ConfiguredRequired = []envelope.RequiredReviewer{}
	c.ConfiguredNames = []string{}
	for _, e := range configured {
		c.ConfiguredNames = append(c.ConfiguredNames, e.Name)
		if e.required() {
			c.ConfiguredRequired = append(c.ConfiguredRequired, envelope.RequiredReviewer{Name: e.Name, Preset: e.Preset.Name})
		}
	}

	run := configured
	if o.Reviewers != nil {
		if run, err = override(*o.Reviewers, configured, c); err != nil {
			return nil, err
		}
	}

	if o.NoProject {
		setProject(defaultProject(), c)
	} else if err := loadProject(o.Repo, c); err != nil {
		return nil, err
	}

	chosen, err := choices(o, run, c)
	if err != nil {
		return nil, err
	}
	c.Reviewers = make([]envelope.Reviewer, 0, len(run))
	for _, e := range run {
		c.Reviewers = append(c.Reviewers, apply(e, fileTimeout, chosen))
	}
	if c.Digest, err = Digest(c); err != nil {
		return nil, exitcode.New(exitcode.Internal, "internal error: "+err.Error())
	}
	return c, nil
}

// userSource walks the source order of docs/pipeline.md "User source", fills source and files, and returns
// the configured reviewers and the file's top-level timeout_seconds (0 when
// none).
func userSource(getenv func(string) string, c *envelope.Config) ([]entry, int, error) {
	c.Source = envelope.Source{Skipped: []string{}}
	for _, cand := range userCandidates(getenv) {
		path := absPath(cand.path)
		data, ok, err := readSource(path)
		if err != nil {
			return nil, 0, err
		}
		if !ok {
			c.Source.Skipped = append(c.Source.Skipped, path)
			continue
		}
		c.Source.Kind, c.Source.Path = cand.kind, path
		c.Files = append(c.Files, fileRecord(path, data))
		u, err := parseUser(path, data)
		if err != nil {
			return nil, 0, err
		}
		c.BudgetUSD = u.Budget
		switch {
		case !u.HasReviewers:
			c.Source.Note = "no reviewers key: the default list " + strings.Join(DefaultList, ", ")
			return presetEntries(DefaultList), u.Timeout, nil
		case len(u.Entries) == 0:
			c.Source.Note = "empty reviewers list: native alone"
			return presetEntries([]string{envelope.PresetNative}), u.Timeout, nil
		}
		c.Source.Note = "reviewers from the file"
		return u.Entries, u.Timeout, nil
	}
	if p, ok := cleanReviewPath(getenv); ok {
		path := absPath(p)
		data, ok, err := readSource(path)
		if err != nil {
			return nil, 0, err
		}
		if ok {
			c.Source.Kind, c.Source.Path = KindCleanReview, path
			c.Files = append(c.Files, fileRecord(path, data))
			cr, err := parseCleanReview(path, data)
			if err != nil {
				return nil, 0, err
			}
			switch {
			case !cr.HasReviewers:
				c.Source.Note = "clean-review config.json without reviewers: the default list " + strings.Join(DefaultList, ", ")
				return presetEntries(DefaultList), 0, nil
			case len(cr.Names) == 0:
				c.Source.Note = "clean-review reviewers all empty: native alone"
				return presetEntries([]string{envelope.PresetNative}), 0, nil
			}
			c.Source.Note = "clean-review reviewers, each the preset of the same name"
			return presetEntries(cr.Names), 0, nil
		}
		// The chosen file does not exist: no other path is searched.
		c.Source.Skipped = append(c.Source.Skipped, path)
	}
	c.Source.Kind, c.Source.Path = KindDefault, ""
	c.Source.Note = "no configuration file: the default list " + strings.Join(DefaultList, ", ")
	return presetEntries(DefaultList), 0, nil
}

func presetEntries(names []string) []entry {
	out := make([]entry, 0, len(names))
	for _, n := range names {
		p, _ := LookupPreset(n)
		out = append(out, entry{Name: n, Preset: p})
	}
	return out
}

// override applies --reviewers (G25): comma-separated, each item trimmed,
// empty items skipped; none left means native alone. A name in the
// configuration uses that entry (literal match), any other name the preset
// of the same name (not command).
func override(value string, configured []entry, c *envelope.Config) ([]entry, error) {
	names := []string{}
	for _, item := range strings.Split(value, ",") {
		if n := strings.TrimSpace(item); n != "" {
			names = append(names, n)
		}
	}
	c.Override = &envelope.Override{Kind: "--reviewers", Names: names}
	want := names
	if len(want) == 0 {
		want = []string{envelope.PresetNative}
	}
	seen := map[string]string{}
	var run []entry
	for _, n := range want {
		if err := CheckName(n); err != nil {
			return nil, exitcode.New(exitcode.Config, fmt.Sprintf("--reviewers %q: %v", value, err))
		}
		if prev, dup := seen[strings.ToLower(n)]; dup {
			return nil, exitcode.New(exitcode.Config, fmt.Sprintf("--reviewers %q: duplicate reviewer name %q (same as %q ignoring case)", value, n, prev))
		}
		seen[strings.ToLower(n)] = n
		if e, ok := findEntry(configured, n); ok && (len(names) > 0 || e.Preset.Name == envelope.PresetNative) {
			// "Native alone" for an empty --reviewers is the native preset: a
			// configured entry named native of another preset is not it.
			run = append(run, e)
			continue
		}
		p, ok := LookupPreset(n)
		if !ok || p.UsesArgv {
			return nil, exitcode.New(exitcode.Config, fmt.Sprintf("--reviewers %q: %q is neither a reviewer of the configuration nor a preset (claude, codex, agy, native)%s", value, n, suggest.Hint(n, reviewerNames(configured)...)))
		}
		run = append(run, entry{Name: n, Preset: p})
	}
	return run, nil
}

// reviewerNames are the names --reviewers takes: the configured
// reviewers' (a command reviewer among them), then the presets' that run
// without an entry.
func reviewerNames(configured []entry) []string {
	var out []string
	for _, e := range configured {
		out = append(out, e.Name)
	}
	return append(out, envelope.PresetClaude, envelope.PresetCodex, envelope.PresetAgy, envelope.PresetNative)
}

func findEntry(list []entry, name string) (entry, bool) {
	for _, e := range list {
		if e.Name == name {
			return e, true
		}
	}
	return entry{}, false
}

// loadProject reads .jaekit/spar.toml from the working tree of the repository
// holding dir (G16); without it, the defaults apply.
func loadProject(dir string, c *envelope.Config) error {
	given := dir != ""
	if !given {
		dir = "."
	}
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() {
		return exitcode.New(exitcode.Config, fmt.Sprintf("--repo %q: not a folder", dir))
	}
	root, ok := RepoRoot(dir)
	if !ok && !given {
		// No --repo was given: name the folder, not a flag the user
		// never wrote.
		return exitcode.New(exitcode.Config, fmt.Sprintf("not inside a git repository: %s (run it inside the repository under review, or give --repo DIR)", absPath(dir)))
	}
	if !ok {
		return exitcode.New(exitcode.Config, fmt.Sprintf("--repo %q: not inside a git working tree", dir))
	}
	path := filepath.Join(root, filepath.FromSlash(ProjectFile))
	data, ok, err := readSource(path)
	if err != nil {
		return err
	}
	p := defaultProject()
	if ok {
		c.Files = append(c.Files, fileRecord(path, data))
		if p, err = parseProject(path, root, data); err != nil {
			return err
		}
	}
	setProject(p, c)
	return nil
}

// setProject puts the project configuration's values into c.
func setProject(p *project, c *envelope.Config) {
	c.Angles, c.Caps, c.CheckPaths, c.Rules = p.Angles, p.Caps, p.CheckPaths, p.Rules
	if len(p.Exclude) > 0 {
		c.Exclude = p.Exclude
	}
}

// RepoRoot is the top level of the git working tree that holds dir ("" the
// working directory); ok is false outside one.
func RepoRoot(dir string) (root string, ok bool) {
	if dir == "" {
		dir = "."
	}
	root, err := gitx.TopLevel(dir)
	return root, err == nil && root != ""
}

// choice is what the agent chose for one reviewer.
type choice struct{ model, effort *string }

// choices checks --model and --effort against this run's reviewers (the complete
// refusal list of docs/pipeline.md "--reviewers, --model, --effort", G25) and records them in c.Choices, models first, each
// key in the order given.
func choices(o Options, run []entry, c *envelope.Config) (map[string]*choice, error) {
	chosen := map[string]*choice{}
	for _, key := range []string{"model", "effort"} {
		args := o.Models
		if key == "effort" {
			args = o.Efforts
		}
		for _, a := range args {
			refused := func(format string, x ...any) error {
				return refuse("--%s %q=%q refused: %s", key, a.Name, a.Value, fmt.Sprintf(format, x...))
			}
			e, ok := findEntry(run, a.Name)
			if !ok {
				return nil, refused("%q is not a reviewer of this run", a.Name)
			}
			if err := CheckValue(a.Value); err != nil {
				return nil, refused("%v", err)
			}
			ch := chosen[a.Name]
			if ch == nil {
				ch = &choice{}
				chosen[a.Name] = ch
			}
			v := a.Value
			switch key {
			case "model":
				switch {
				case !e.Preset.UsesModel:
					return nil, refused("the %s preset has no model", e.Preset.Name)
				case e.Model != nil:
					return nil, refused("the user configuration writes model %q for %q", *e.Model, e.Name)
				case ch.model != nil:
					return nil, refused("a model for %q was already given (%q)", e.Name, *ch.model)
				case e.AllowedModels != nil && !contains(e.AllowedModels, v):
					return nil, refused("not in allowed_models (%s)", quoteList(e.AllowedModels))
				}
				ch.model = &v
			case "effort":
				switch {
				case !e.Preset.UsesEffort:
					return nil, refused("the %s preset has no effort", e.Preset.Name)
				case e.Effort != nil:
					return nil, refused("the user configuration writes effort %q for %q", *e.Effort, e.Name)
				case ch.effort != nil:
					return nil, refused("an effort for %q was already given (%q)", e.Name, *ch.effort)
				case e.AllowedEfforts != nil && !contains(e.AllowedEfforts, v):
					return nil, refused("not in allowed_efforts (%s)", quoteList(e.AllowedEfforts))
				}
				ch.effort = &v
			}
			c.Choices = append(c.Choices, envelope.Choice{Reviewer: a.Name, Key: key, Value: v})
		}
	}
	return chosen, nil
}

func quoteList(l []string) string {
	q := make([]string, len(l))
	for i, s := range l {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}

func ptr(s string) *string { return &s }

// nonEmpty is nil for "": an empty fallback_model or effort turns it off
// (G21), and the record says so with null.
func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// apply builds one applied reviewer (docs/pipeline.md "The applied
// reviewers").
func apply(e entry, fileTimeout int, chosen map[string]*choice) envelope.Reviewer {
	p := e.Preset
	r := envelope.Reviewer{
		Name:           e.Name,
		Preset:         p.Name,
		Isolation:      p.Isolation,
		Required:       e.required(),
		TimeoutSeconds: DefaultTimeoutSeconds,
	}
	// G19: the entry's value, else the file's top-level value, else spar's.
	switch {
	case e.Timeout > 0:
		r.TimeoutSeconds = e.Timeout
	case fileTimeout > 0:
		r.TimeoutSeconds = fileTimeout
	}
	ch := chosen[e.Name]
	if ch == nil {
		ch = &choice{}
	}
	if p.UsesBinary {
		// G14: an empty or absent binary is the preset name on PATH.
		r.Binary = ptr(p.Name)
		if e.Binary != nil && *e.Binary != "" {
			r.Binary = ptr(*e.Binary)
		}
	}
	if p.UsesModel {
		r.AllowedModels = e.AllowedModels
		switch {
		case e.Model != nil:
			r.Model, r.ModelSource = ptr(*e.Model), "user"
		case ch.model != nil:
			r.Model, r.ModelSource, r.DefaultModel = ptr(*ch.model), "agent", ptr(p.Model)
		default:
			r.Model, r.ModelSource, r.DefaultModel = ptr(p.Model), "preset", ptr(p.Model)
		}
		switch {
		case e.FallbackModel != nil:
			r.FallbackModel = nonEmpty(*e.FallbackModel)
		case ch.model != nil:
			// The preset's fallback is paired with the preset model: a model
			// the agent chose gets only the fallback the user wrote.
			r.FallbackModel = nil
		default:
			r.FallbackModel = nonEmpty(p.FallbackModel)
		}
	}
	if p.UsesEffort {
		r.AllowedEfforts = e.AllowedEfforts
		switch {
		case e.Effort != nil:
			r.Effort, r.EffortSource = nonEmpty(*e.Effort), "user"
		case ch.effort != nil:
			r.Effort, r.EffortSource, r.DefaultEffort = ptr(*ch.effort), "agent", ptr(p.Effort)
		default:
			r.Effort, r.EffortSource, r.DefaultEffort = ptr(p.Effort), "preset", ptr(p.Effort)
		}
	}
	if len(e.Env) > 0 {
		r.Env = e.Env
	}
	r.BudgetUSD = e.Budget
	if p.UsesArgv {
		r.Argv = e.Argv
	}
	return r
}
