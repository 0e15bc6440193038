package gate

// What the gate refuses to trust (docs/trust.md "The gate"): the driver is often the agent whose work is under review, running
// as the same user, so the gate decides from what it can recompute — the
// configuration it sees itself, the reviewers' raw results, the round's
// recorded inputs — and never from a status or a class a record merely says.

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/jaekit/spar/lib/classify"
	"github.com/jaekit/spar/lib/config"
	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/gitx"
	"github.com/jaekit/spar/lib/preset"
	"github.com/jaekit/spar/lib/resultcheck"
	"github.com/jaekit/spar/lib/round"
	"github.com/jaekit/spar/lib/transcript"
)

// required is the series' required reviewers: configured_required of its
// latest counted round, then each required reviewer of the configuration
// the gate itself sees (lib/config.Load for the series' repository: the
// user configuration and the project's .jaekit/spar.toml) that the round
// does not already name. A configuration the gate cannot read blocks: the
// gate would not know what it requires.
// Two checks ask for it (the required reviewers' reviews, coverage): it is
// worked out, and an unreadable configuration said, once per series.
func (g *gate) required(s *seriesData) []envelope.RequiredReviewer {
	if !s.requiredDone {
		s.required, s.requiredDone = g.requiredOf(s), true
	}
	return s.required
}

func (g *gate) requiredOf(s *seriesData) []envelope.RequiredReviewer {
	out := append([]envelope.RequiredReviewer{}, s.latest.rec.Config.ConfiguredRequired...)
	src := s.latest.rec.Config.Source
	s.requiredSource = RequiredSource{Series: s.display, Round: s.latest.name,
		RoundSource: ConfigSource{Kind: src.Kind, Path: src.Path}, RoundRequired: append([]envelope.RequiredReviewer{}, out...)}
	cfg, err := g.config(s.repo)
	if err != nil {
		g.reason("12c", "%s: the configuration this gate sees for the repository %s cannot be read (%s), so the gate does not know which reviewers it requires; to clear: fix it, then see what the gate reads: spar config --repo %s",
			s.display, s.repo, oneLine(err.Error()), shellQuote(s.repo))
		return out
	}
	s.requiredSource.GateSource = &ConfigSource{Kind: cfg.Source.Kind, Path: cfg.Source.Path}
	s.requiredSource.GateRequired = append([]envelope.RequiredReviewer{}, cfg.ConfiguredRequired...)
	have := map[envelope.RequiredReviewer]bool{}
	for _, r := range out {
		have[r] = true
	}
	for _, r := range cfg.ConfiguredRequired {
		if !have[r] {
			have[r] = true
			out = append(out, r)
		}
	}
	return out
}

type configResult struct {
	cfg *envelope.Config
	err error
}

// config loads the gate's own configuration once per repository.
func (g *gate) config(repo string) (*envelope.Config, error) {
	if g.configs == nil {
		g.configs = map[string]configResult{}
	}
	if c, ok := g.configs[repo]; ok {
		return c.cfg, c.err
	}
	getenv := g.opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	cfg, err := config.Load(config.Options{Repo: repo, Getenv: getenv})
	g.configs[repo] = configResult{cfg, err}
	return cfg, err
}

func oneLine(s string) string {
	s = strings.TrimSpace(s)
	return strings.Join(strings.Fields(s), " ")
}

// countsAsReview reports whether a completed reviewer's review counts for
// the gate (docs/trust.md "The gate"): a native review only when spar record took it
// from the subagent's transcript and the transcript gave no warning (a
// transcript that does not show prompt.md read has prompt_not_read). A
// result file is whatever the driver wrote. why says what is missing.
func countsAsReview(rv round.Reviewer) (ok bool, why string) {
	if rv.Preset != envelope.PresetNative {
		return true, ""
	}
	switch rv.RecordedFrom {
	case "transcript":
	case "result":
		return false, "its review was recorded from a result file (spar record --result), not from the subagent's transcript"
	default:
		return false, "round.json does not say it was recorded from a transcript"
	}
	if len(rv.Warnings) == 0 {
		return true, ""
	}
	var kinds []string
	for _, w := range rv.Warnings {
		k := w.Kind
		if k == transcript.KindPromptNotRead {
			k += " (the transcript does not show prompt.md read)"
		} else if w.Tool != "" {
			k += " (" + w.Tool + ")"
		}
		kinds = append(kinds, k)
	}
	return false, "its transcript has the warning " + strings.Join(kinds, ", ")
}

// noReview: docs/review-gate.md §3, a gate never passes where no reviewer completed a
// review of the series' latest input (its latest counted round and that
// round's reruns): every reviewer unavailable, invalid_output, failed,
// timed_out, pending, or a native review that does not count.
func (g *gate) noReview(s *seriesData) {
	if s.latest == nil {
		return
	}
	var states []string
	pending := ""
	for _, r := range s.input {
		for _, rv := range r.rec.Reviewers {
			if rv.Status == envelope.StatusCompleted {
				if ok, _ := countsAsReview(rv); ok || waived(s, rv) {
					// A native review that does not count on its own
					// counts once the user vouched for it (spar waive).
					return
				}
				states = append(states, rv.Name+" completed from what does not count")
				continue
			}
			if rv.Status == envelope.StatusNotRun {
				continue
			}
			states = append(states, rv.Name+" "+rv.Status)
			if rv.Status == envelope.StatusPending && pending == "" {
				pending = "spar record " + shellQuote(s.dirOf(r)) + " --reviewer " + shellQuote(rv.Name) + " --transcript FILE"
			}
		}
	}
	if len(states) == 0 {
		states = append(states, "the round has no reviewer")
	}
	if pending != "" {
		g.reason("13", "%s: round %s: no reviewer completed a review of the series' latest input (%s), and a gate never passes without one; to clear: record the pending review: %s",
			s.display, s.latest.name, strings.Join(states, ", "), pending)
		return
	}
	g.reason("13", "%s: round %s: no reviewer completed a review of the series' latest input (%s), and a gate never passes without one; to clear: run the reviewers again: %s",
		s.display, s.latest.name, strings.Join(states, ", "), s.nextRun())
}

// rederive: docs/review-gate.md "Re-derivation". For every published round of the series
// (dry runs aside: they find nothing), the gate re-runs what spar-check and
// spar-classify did, with the same library calls, from each reviewer's raw
// result as received (<reviewer>/result.json) and the round's recorded
// inputs (its commits' trees, documents with their names and lines, check
// paths, criteria IDs, angles, standpoints: all in round.json), and blocks
// when a reviewer's status, its count of findings or findings.json do not
// follow. An earlier round's findings decide the verdict as much as the
// latest's (an open defect blocks, a disposition closes it), so none is
// taken on its sha256 and counts alone.
//
// The derivation itself runs as each round is read (deriveRound, called by
// readSeries' workers, one per processor), so that a round's records are
// read once; this gives its reasons, in series order. It stays linear: the
// trees of all the series' commits come from one git process per
// repository (gitx.Trees), each tree object read once.
func (g *gate) rederive(s *seriesData) {
	for _, r := range s.rounds {
		if r.state != published || r.rec.DryRun || r.pending || s.lacking(r) {
			// A round whose commits the repository lacks: 7s or 7m
			// says so (missingCommits), not that its records were edited.
			continue
		}
		code, problem := r.derivation.code, r.derivation.problem
		if r.derivation.derived != nil {
			code, problem = "8f", "findings.json does not follow from the reviewers' results: "+findingsDiff(r.derivation.derived, r)
		}
		if problem == "" {
			continue
		}
		clear := "restore the round's records as spar wrote them, or run a new round: " + s.runCommand(r.rec.Base, r.rec.Head)
		g.reason(code, "%s: round %s: %s; to clear: %s", s.display, r.name, problem, clear)
	}
}

// derivation is what deriveRound found for a round: nothing (it follows),
// a problem, or derived findings that findings.json does not equal (kept
// so that the reason can name the difference).
type derivation struct {
	code    Code
	problem string
	derived []envelope.Finding
}

// loadTree is classification's tree loader for the gate: one gitx.Trees
// per repository, closed when the gate has decided.
func (g *gate) loadTree(repo, commit string) (*gitx.Tree, error) {
	g.treesMu.Lock()
	defer g.treesMu.Unlock()
	return g.treesOf(repo).Load(commit)
}

// treesOf is repo's tree loader (g.treesMu held).
func (g *gate) treesOf(repo string) *gitx.Trees {
	if g.trees == nil {
		g.trees = map[string]*gitx.Trees{}
	}
	t := g.trees[repo]
	if t == nil {
		t = gitx.NewTrees(repo)
		g.trees[repo] = t
	}
	return t
}

// closeTrees ends the git processes of loadTree.
func (g *gate) closeTrees() {
	for _, t := range g.trees {
		t.Close()
	}
	g.trees = nil
}

// prefetch reads the trees of every round's head and base, a level of the
// trees at a time for all of them (gitx.Trees.Prefetch), before the rounds
// are derived: a thousand rounds wait on git a few times, not a thousand.
func (g *gate) prefetch(recs []*round.Record) {
	byRepo := map[string][]string{}
	var repos []string
	for _, rec := range recs {
		if rec.DryRun {
			continue
		}
		if _, ok := byRepo[rec.Repo]; !ok {
			repos = append(repos, rec.Repo)
		}
		byRepo[rec.Repo] = append(byRepo[rec.Repo], rec.Head, rec.Base)
	}
	g.treesMu.Lock()
	defer g.treesMu.Unlock()
	for _, repo := range repos {
		g.treesOf(repo).Prefetch(byRepo[repo])
	}
}

// deriveRound derives the findings of the round r (read whole, its
// findings.json's bytes in r.findingsRaw) again and returns them when
// findings.json is their bytes; otherwise it returns nil and says why in
// r.derivation.
func (g *gate) deriveRound(r *roundData) []envelope.Finding {
	derived, code, problem := g.derive(r)
	if problem != "" {
		r.derivation.code, r.derivation.problem = code, problem
		return nil
	}
	same := &sameBytes{want: r.findingsRaw}
	if err := round.WriteFindings(same, r.rec.Name, derived); err == nil && same.off == len(same.want) {
		if g.keepFindings {
			r.findings = derived
		}
		return derived
	} else if err != nil && !errors.Is(err, errDiffers) {
		r.derivation.code, r.derivation.problem = "8f", "its findings cannot be compared with findings.json ("+oneLine(err.Error())+")"
		return nil
	}
	r.derivation.derived = derived
	return nil
}

// derive is the re-derivation of r's findings from its reviewers' raw
// results; problem says what does not follow before findings.json is
// compared.
func (g *gate) derive(r *roundData) (derived []envelope.Finding, code Code, problem string) {
	rec := r.rec
	check := resultcheck.Round{Head: rec.Head, Angles: rec.Config.Angles, Standpoints: rec.Standpoints}
	// Every reviewer in round.json order, with the findings the result
	// check read from a completed one (classification takes them as read).
	checked := make([]classify.Checked, 0, len(rec.Reviewers))
	var bad []string
	for _, rv := range rec.Reviewers {
		if err := config.CheckName(rv.Name); err != nil {
			return nil, "8r", fmt.Sprintf("round.json names the reviewer %q, which is not a reviewer name (%v)", rv.Name, err)
		}
		run := envelope.ReviewerRun{Reviewer: rv.Name, Preset: rv.Preset, Status: rv.RunStatus, Reason: rv.RunReason}
		if run.Status == "" {
			// Records older than run_status keep only the final status.
			run.Status, run.Reason = rv.Status, rv.Reason
		}
		if run.Status == resultcheck.Completed {
			text, err := round.ReadText(filepath.Join(r.abs, rv.Name, "result.json"))
			switch {
			case err == nil:
				run.Result = &text
			case !errors.Is(err, fs.ErrNotExist):
				return nil, "8r", fmt.Sprintf("the result of reviewer %s cannot be read (%v)", rv.Name, pathFree(err))
			}
			if run.Result != nil {
				if p := streamProblem(r.abs, rv, text, budgetsOf(rec, rv.Name)); p != "" {
					return nil, "8s", p
				}
			}
		}
		res, finds := resultcheck.CheckFindings(check, run)
		if res.Status != rv.Status {
			there := res.Status
			if res.Reason != "" {
				there += " (" + res.Reason + ")"
			}
			bad = append(bad, fmt.Sprintf("reviewer %s is %s there, %s here", rv.Name, there, rv.Status))
		}
		if res.Status != resultcheck.Completed {
			finds = nil
		}
		checked = append(checked, classify.Checked{Reviewer: rv.Name, Findings: finds})
	}
	if len(bad) > 0 {
		return nil, "8r", fmt.Sprintf("round.json does not follow from the reviewers' results: %s", strings.Join(bad, "; "))
	}
	// The inputs round.json states are recomputed where spar can: from
	// the head commit and the documents' own lines.
	inputs, problem := g.recomputeInputs(r)
	if problem != "" {
		return nil, "8i", problem
	}
	r.dirty = inputs.dirty
	run := &envelope.Run{
		Repo: rec.Repo, Stage: rec.Stage, Base: rec.Base, Head: rec.Head,
		CheckPaths: rec.CheckPaths, Documents: rec.Documents, CriteriaIDs: inputs.criteriaIDs,
		CommittedCheckPaths: inputs.committed, FollowUp: rec.FollowUp,
	}
	derived, err := classify.ClassifyChecked(run, checked, g.loadTree)
	if err != nil {
		return nil, "8f", fmt.Sprintf("its findings cannot be derived again from the reviewers' results and the round's inputs (%s)", oneLine(err.Error()))
	}
	if derived == nil {
		derived = []envelope.Finding{}
	}
	per := map[string]int{}
	for _, f := range derived {
		per[f.Reviewer]++
	}
	for _, rv := range rec.Reviewers {
		if rv.Findings != per[rv.Name] && rv.Status != envelope.StatusNotRun {
			bad = append(bad, fmt.Sprintf("reviewer %s has %d findings there, %d here", rv.Name, per[rv.Name], rv.Findings))
		}
	}
	if len(bad) > 0 {
		return nil, "8r", fmt.Sprintf("round.json does not follow from the reviewers' results: %s", strings.Join(bad, "; "))
	}
	// findings.json's bytes must be those spar-record writes for the
	// derived findings (round.WriteFindings), compared as they are encoded
	// (deriveRound).
	return derived, "", ""
}

// errDiffers stops an encoding compared by sameBytes at its first
// difference.
var errDiffers = errors.New("differs")

// sameBytes is a writer that compares what is written with want.
type sameBytes struct {
	want []byte
	off  int
}

func (w *sameBytes) Write(p []byte) (int, error) {
	if len(p) > len(w.want)-w.off || string(p) != string(w.want[w.off:w.off+len(p)]) {
		return 0, errDiffers
	}
	w.off += len(p)
	return len(p), nil
}

// findingsDiff says how findings.json differs from the derived findings:
// the classes first ("claude-F1 is defect there, note here"), then any
// other field, at most three findings.
func findingsDiff(derived []envelope.Finding, r *roundData) string {
	var out []string
	add := func(format string, a ...any) {
		if len(out) < 3 {
			out = append(out, fmt.Sprintf(format, a...))
		} else if len(out) == 3 {
			out = append(out, "…")
		}
	}
	seen := map[string]bool{}
	for _, d := range derived {
		seen[d.ID] = true
		f := r.byID[d.ID]
		switch {
		case f == nil:
			add("%s is %s there, missing here", d.ID, d.Class)
		case f.Class != d.Class:
			add("%s is %s there, %s here", d.ID, d.Class, f.Class)
		case f.LocationUnreadable != d.LocationUnreadable:
			add("%s has location_unreadable %t there, %t here", d.ID, d.LocationUnreadable, f.LocationUnreadable)
		}
	}
	for _, f := range r.finds {
		if !seen[f.ID] {
			add("%s is not there, %s here", f.ID, f.Class)
		}
	}
	if len(out) > 0 {
		return strings.Join(out, "; ")
	}
	// Same IDs and classes: name the fields that differ.
	var rec round.Findings
	if err := json.Unmarshal(r.findingsRaw, &rec); err != nil {
		return "findings.json does not decode (" + err.Error() + ")"
	}
	byID := map[string]envelope.Finding{}
	for _, f := range rec.Findings {
		byID[f.ID] = f
	}
	for i, d := range derived {
		fields := diffFields(d, byID[d.ID])
		if len(fields) > 0 {
			add("%s differs in %s", d.ID, strings.Join(fields, ", "))
		} else if i < len(rec.Findings) && rec.Findings[i].ID != d.ID {
			add("%s is finding %d there, not here", d.ID, i+1)
		}
	}
	if len(out) == 0 {
		return "its bytes are not the ones spar writes for these findings"
	}
	return strings.Join(out, "; ")
}

// diffFields lists the JSON members of two findings that differ.
func diffFields(a, b envelope.Finding) []string {
	var ma, mb map[string]json.RawMessage
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	_ = json.Unmarshal(ja, &ma)
	_ = json.Unmarshal(jb, &mb)
	var out []string
	for k, v := range ma {
		if string(mb[k]) != string(v) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// waived reports whether the user waived rv in a round of the series' latest input.
func waived(s *seriesData, rv round.Reviewer) bool {
	for _, r := range s.input {
		for _, w := range r.waivers {
			if w.Reviewer == rv.Name && w.Preset == rv.Preset {
				return true
			}
		}
	}
	return false
}

// streamProblem: a process reviewer's result is taken again from its own
// recorded output (<reviewer>/stdout and stderr, the last attempt's), read
// as the runner read it while it ran (preset.Replay), and must be
// result.json byte for byte; the envelope between the stages is as
// untrusted as the records (docs/trust.md "The gate"). A native review has
// no stream of spar's: its provenance is the transcript (countsAsReview).
//
// It is read as the runner read it in every way the stream shows: the
// runner stops an attempt at the first line that uses a forbidden tool,
// names a refusal or states a spend past a budget, and feeds it no further
// line, while the stdout file keeps what the reviewer wrote before it died.
// A result after such a line is in the stream but was never the runner's:
// a reviewer stopped so and edited into completed is no review.
func streamProblem(dir string, rv round.Reviewer, result string, b preset.Budgets) string {
	if rv.Preset == envelope.PresetNative {
		return ""
	}
	p, err := preset.Get(rv.Preset)
	if err != nil {
		return fmt.Sprintf("round.json gives reviewer %s the preset %q, which is not a preset", rv.Name, rv.Preset)
	}
	stdout, err := round.ReadFile(filepath.Join(dir, rv.Name, "stdout"))
	if err != nil {
		return fmt.Sprintf("reviewer %s's own output (%s/stdout), from which its result is taken again, cannot be read (%v)", rv.Name, rv.Name, pathFree(err))
	}
	stderr, err := round.ReadFile(filepath.Join(dir, rv.Name, "stderr"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Sprintf("reviewer %s's stderr cannot be read (%v)", rv.Name, pathFree(err))
	}
	oc, stop := preset.ReplayRun(p, stdout, stderr, b)
	switch {
	case stop != "":
		return fmt.Sprintf("reviewer %s's own output (%s/stdout) has a line on which spar stops a reviewer (%s), yet round.json records it completed", rv.Name, rv.Name, oneLine(stop))
	case oc.Result == nil:
		return fmt.Sprintf("reviewer %s's own output (%s/stdout) holds no result (%s), yet round.json records it completed with result.json", rv.Name, rv.Name, oc.Problem)
	case *oc.Result != result:
		return fmt.Sprintf("reviewer %s's result.json is not the result its own output (%s/stdout) holds", rv.Name, rv.Name)
	}
	return ""
}

// budgetsOf are the budgets reviewer name's attempts ran under, as the
// round recorded its configuration: the entry's budget_usd and the
// round's (docs/review-round.md "Spend and budgets").
func budgetsOf(rec *round.Record, name string) preset.Budgets {
	b := preset.Budgets{Round: rec.Config.BudgetUSD}
	for _, e := range rec.Config.Reviewers {
		if e.Name == name {
			b.Own = e.BudgetUSD
		}
	}
	return b
}
