package packet

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/jaekit/spar/lib/config"
	"github.com/jaekit/spar/lib/criteria"
	"github.com/jaekit/spar/lib/decision"
	"github.com/jaekit/spar/lib/document"
	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/gitx"
	"github.com/jaekit/spar/lib/glob"
	"github.com/jaekit/spar/lib/recordpath"
	"github.com/jaekit/spar/lib/replay"
	"github.com/jaekit/spar/lib/round"
	"github.com/jaekit/spar/lib/standpoint"
)

// Refusal is a refusal (65): nothing is written anywhere. The message
// names the value with %q.
type Refusal struct{ Msg string }

func (e *Refusal) Error() string { return e.Msg }

func refusef(format string, a ...any) error { return &Refusal{Msg: fmt.Sprintf(format, a...)} }

// Prepare checks every run argument against its row and builds run. It
// reads the repository and the documents and writes nothing: every refusal
// happens before spar-exec creates anything. cfg.CheckPaths and cfg.Digest
// are updated when --check-path adds globs (G24); changed reports that.
func Prepare(a Args, cfg *envelope.Config) (run *envelope.Run, changed bool, err error) {
	run = &envelope.Run{Stage: a.Stage, DryRun: a.DryRun}

	// The repository under review: its working tree root, real path.
	top, gerr := gitx.TopLevel(a.Repo)
	if gerr != nil {
		return nil, false, refusef("--repo %q is not inside a Git working tree", a.Repo)
	}
	repo, rerr := filepath.EvalSymlinks(top)
	if rerr != nil {
		return nil, false, refusef("--repo %q: %v", a.Repo, rerr)
	}
	run.Repo = repo

	// G27: revisions resolve to commits and are never read as options.
	if run.Base, err = gitx.ResolveCommit(repo, a.Base); err != nil {
		return nil, false, refusef("--base %q does not resolve to a commit", a.Base)
	}
	if run.Head, err = gitx.ResolveCommit(repo, a.Head); err != nil {
		return nil, false, refusef("--head %q does not resolve to a commit", a.Head)
	}
	// A code round reviews the change from base to head: with equal trees
	// there is nothing to review, and a round of nothing must not pass the
	// gate (docs/trust.md).
	if a.Stage == "code" {
		bt, berr := gitx.TreeID(repo, run.Base)
		ht, herr := gitx.TreeID(repo, run.Head)
		if berr == nil && herr == nil && bt == ht {
			return nil, false, refusef("--base %q and --head %q have the same tree: a code round needs a change to review", a.Base, a.Head)
		}
	}

	// G28: the round folder does not exist yet and every repository around
	// it ignores it; its series (the parent folder) holds .lock and
	// extensions.jsonl, so the same rule applies to the series.
	// Every record and message names the round by this path: a control
	// character in it could not be shown on one line.
	if strings.IndexFunc(a.Out, unicode.IsControl) >= 0 {
		return nil, false, refusef("--out %q holds a control character", a.Out)
	}
	if err := recordpath.CheckNewFolder(a.Out); err != nil {
		return nil, false, refusef("--out %s", err)
	}
	out, err := recordpath.Resolve(a.Out)
	if err != nil {
		return nil, false, refusef("--out %q: %v", a.Out, err)
	}
	series := filepath.Dir(out)
	if series == out {
		return nil, false, refusef("--out %q has no parent folder for its series", a.Out)
	}
	if fi, err := os.Stat(series); err == nil && !fi.IsDir() {
		return nil, false, refusef("--out %q: its series %q is not a folder", a.Out, series)
	}
	if err := recordpath.CheckFolder(series); err != nil {
		return nil, false, refusef("--out %q: series %s", a.Out, err)
	}
	// The series folder's own files are no round name: a folder in their
	// place breaks every later write of the series.
	switch name := filepath.Base(out); name {
	case round.ExtensionFile, round.ExtensionFile + ".tmp", round.LockFile:
		return nil, false, refusef("--out %q: %q is the series' own file, not a round name", a.Out, name)
	}
	// A round folder (or its workspace) never holds a series.
	for d := series; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, round.RoundFile)); err == nil {
			return nil, false, refusef("--out %q is inside the round folder %q; a series holds round folders, not the other way round", a.Out, d)
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	// A folder that holds series is never a series (round.SeriesIn), and
	// a series is never made inside one: --out names a round folder inside
	// a series folder, reviews/<series>/<round>.
	shown := filepath.Dir(filepath.Clean(a.Out))
	if held := round.SeriesIn(series); len(held) > 0 {
		return nil, false, refusef("--out %q would make %q a series, but it holds the series %q: a folder that holds series is no series; name a round folder inside a series folder, e.g. %s",
			a.Out, shown, filepath.Join(shown, filepath.Base(held[0])), filepath.Join(shown, "<series>", filepath.Base(out)))
	}
	if parent := filepath.Dir(series); parent != series && holdsRounds(parent) {
		return nil, false, refusef("--out %q would make %q a series inside the series %q, which holds rounds itself: a folder that holds series is no series; name a round folder of %q (e.g. %s), or a series folder outside it",
			a.Out, shown, filepath.Dir(shown), filepath.Dir(shown), filepath.Join(filepath.Dir(shown), filepath.Base(out)))
	}
	run.Out, run.Series, run.Name = out, series, filepath.Base(out)

	// G24: --check-path is added to the run's check paths and to the
	// configuration digest; an invalid glob is refused.
	run.CheckPaths = append([]string{}, cfg.CheckPaths...)
	for _, g := range a.CheckPaths {
		if _, err := glob.Compile(g); err != nil {
			return nil, false, refusef("--check-path %q: %v", g, err)
		}
		if !contains(run.CheckPaths, g) {
			run.CheckPaths = append(run.CheckPaths, g)
			changed = true
		}
	}
	if _, err := glob.CompileAll(run.CheckPaths); err != nil {
		return nil, false, refusef("config.check_paths: %v", err)
	}
	if changed {
		cfg.CheckPaths = append([]string{}, run.CheckPaths...)
		if cfg.Digest, err = config.Digest(cfg); err != nil {
			return nil, false, fmt.Errorf("configuration digest: %w", err)
		}
	}

	// G26, G23: documents. Project rules first (read from the working tree,
	// named by their repository paths), then --rules, --criteria, --subject.
	run.Documents = []envelope.Document{}
	for _, r := range cfg.Rules {
		d, err := document.ReadRule(repo, r)
		if err != nil {
			return nil, false, refusef("config.rules %q %v", r, err)
		}
		run.Documents = appendDoc(run.Documents, d)
	}
	groups := []struct {
		opt, role string
		paths     []string
	}{{"--rules", document.RoleRule, a.Rules}, {"--criteria", document.RoleCriteria, a.Criteria}}
	if a.HasSubject {
		groups = append(groups, struct {
			opt, role string
			paths     []string
		}{"--subject", document.RoleSubject, []string{a.Subject}})
	}
	for _, g := range groups {
		for _, p := range g.paths {
			d, err := document.Read(repo, p, g.role, document.OriginArgument)
			if err != nil {
				return nil, false, refusef("%s %q %v", g.opt, p, err)
			}
			run.Documents = appendDoc(run.Documents, d)
		}
	}
	// G9: the criteria ID set is every ID found in the criteria documents'
	// full text, in order of appearance, each once.
	run.CriteriaIDs = CriteriaIDs(run.Documents)
	var digest strings.Builder
	for _, d := range run.Documents {
		if d.Role != document.RoleCriteria {
			continue
		}
		fmt.Fprintf(&digest, "%s  %s\n", d.SHA256, d.Name)
	}
	if digest.Len() > 0 {
		sum := sha256.Sum256([]byte(digest.String()))
		run.CriteriaDigest = hex.EncodeToString(sum[:])
	}

	// G35: decisions, paired in order, kept as received.
	if run.Decisions, err = decision.Pair(a.Decisions); err != nil {
		return nil, false, refusef("%v", err)
	}

	// Standpoints: names of this run's configured reviewers and --reviewers.
	if err := standpoint.Check(a.Standpoints, standpoint.Accepted(cfg)); err != nil {
		return nil, false, refusef("%v", err)
	}
	run.Standpoints = append([]envelope.Standpoint{}, a.Standpoints...)

	// docs/trust.md "Inputs the agent can edit": the check paths the head
	// commit's configuration lists, and every input read from the working
	// tree that differs from the head commit's version.
	projectFiles := []string{filepath.Join(top, filepath.FromSlash(config.ProjectFile)), filepath.Join(repo, filepath.FromSlash(config.ProjectFile))}
	if run.CommittedCheckPaths, run.DirtyInputs, err = headInputs(repo, projectFiles, cfg, run); err != nil {
		return nil, false, fmt.Errorf("inputs against the head commit: %w", err)
	}

	// The changed files, split by check paths (G24).
	if run.Changes, run.Excluded, err = Changes(repo, run.Base, run.Head, run.CheckPaths, cfg.Exclude); err != nil {
		return nil, false, err
	}
	// A base that is git's replay of a reviewed head (the gate's residual
	// round): the packet tells the reviewers what the range is.
	run.Replay = ReplayOf(repo, run.Stage, run.Base)
	return run, changed, nil
}

// ReplayOf is run.replay for a round of stage from base: set for a code
// round whose base is a replay commit (git's replay of its second parent
// onto its first gives its tree, computed again here), nil otherwise, and
// nil when git cannot tell (the packet then has no replay section).
func ReplayOf(repo, stage, base string) *envelope.ReplayBase {
	if stage != "code" {
		return nil
	}
	onto, reviewed, r, ok, err := replay.Of(repo, base)
	if err != nil || !ok {
		return nil
	}
	rb := &envelope.ReplayBase{Onto: onto, Reviewed: reviewed, Conflicts: []string{}}
	for _, c := range r.Conflicts {
		rb.Conflicts = append(rb.Conflicts, JSONText(c))
	}
	return rb
}

// Changes are the files changed from one commit to another as a packet
// lists them: config.exclude leaves matching files out (a rename when
// either path matches; excluded names them), the check paths (G24) mark the
// others. The workspace keeps every file. The project configuration itself
// (.jaekit/spar.toml) is never left out: the globs, check paths, angles and
// rules of the round come from its version at head, so a change that edits
// it (exclude globs over its own files, say) shows the reviewers that edit.
func Changes(repo, from, to string, checkPaths, exclude []string) (changes []envelope.Change, excluded []string, err error) {
	set, err := glob.CompileAll(checkPaths)
	if err != nil {
		return nil, nil, refusef("config.check_paths: %v", err)
	}
	excl, err := glob.CompileAll(exclude)
	if err != nil {
		return nil, nil, refusef("config.exclude: %v", err)
	}
	fcs, err := gitx.Diff(repo, from, to)
	if err != nil {
		return nil, nil, fmt.Errorf("changes %s..%s: %w", from, to, err)
	}
	changes = []envelope.Change{}
	for _, c := range fcs {
		if c.Path == config.ProjectFile || c.OldPath == config.ProjectFile {
			// listed whatever the globs say
		} else if _, out := excl.Match(c.Path); out || (c.OldPath != "" && matches(excl, c.OldPath)) {
			excluded = append(excluded, c.Path)
			continue
		}
		_, in := set.Match(c.Path)
		changes = append(changes, envelope.Change{
			Path: c.Path, OldPath: c.OldPath, Status: c.Status,
			Added: c.Added, Deleted: c.Deleted, CheckPath: in,
		})
	}
	return changes, excluded, nil
}

// appendDoc keeps one record per role and real path: the same file given
// twice in one role (or a project rule also given with --rules) is one
// document, the first one.
func appendDoc(docs []envelope.Document, d envelope.Document) []envelope.Document {
	for _, e := range docs {
		if e.Role == d.Role && e.Path == d.Path {
			return docs
		}
	}
	return append(docs, d)
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// CriteriaIDs is G9's criteria ID set of documents: every ID found in the
// criteria documents' full text, in order of appearance, each once
// (spar-packet records it; the gate recomputes it from round.json's
// documents).
func CriteriaIDs(docs []envelope.Document) []string {
	ids := []string{}
	seen := map[string]bool{}
	for _, d := range docs {
		if d.Role != document.RoleCriteria {
			continue
		}
		for _, id := range criteria.IDs(document.Text(d)) {
			if !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
	}
	return ids
}

// holdsRounds reports a folder with round folders in it (round.Folders).
func holdsRounds(dir string) bool {
	rounds, err := round.Folders(dir)
	return err == nil && len(rounds) > 0
}

func matches(s glob.Set, p string) bool {
	_, ok := s.Match(p)
	return ok
}
