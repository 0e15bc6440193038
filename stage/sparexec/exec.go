package sparexec

import (
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jaekit/spar/lib/atomic"
	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/exitcode"
	"github.com/jaekit/spar/lib/followup"
	"github.com/jaekit/spar/lib/lock"
	"github.com/jaekit/spar/lib/packet"
	"github.com/jaekit/spar/lib/pipe"
	"github.com/jaekit/spar/lib/resultcheck"
	"github.com/jaekit/spar/lib/round"
	"github.com/jaekit/spar/lib/runner"
	"github.com/jaekit/spar/lib/sandbox"
	"github.com/jaekit/spar/lib/series"
	"github.com/jaekit/spar/lib/sign"
	"github.com/jaekit/spar/lib/workspace"
)

//go:embed envelope.schema.json
var envelopeSchema []byte

// input is what spar-exec reads from the envelope.
type input struct {
	cfg    envelope.Config
	run    envelope.Run
	packet envelope.Packet
	inputs map[string]envelope.Input
}

// options are spar-exec's flags (--quiet, --rerun NAME) and the signing
// key of a CI job (lib/sign), read from the environment before anything
// else.
type options struct {
	quiet   bool
	rerun   []string
	signKey *sign.Key
}

// signedByJob is the trust of Decide for the job's signing key: a round
// serves as a completed review, or as the round a rerun repeats, only when
// this key signed it (review in CI: docs/trust.md "Signed rounds"); nil
// without a key.
func signedByJob(key *sign.Key) func(string) error {
	if key == nil {
		return nil
	}
	signers := sign.Only(key.Public(), "this job")
	seen := map[string]error{}
	return func(dir string) error {
		err, ok := seen[dir]
		if !ok {
			if _, err = sign.Verify(signers, dir, filepath.Base(filepath.Dir(dir)), filepath.Base(dir)); err != nil {
				err = fmt.Errorf("round %s is not signed by this job's key (%s): %v", filepath.Base(dir), sign.EnvVar, err)
			}
			seen[dir] = err
		}
		return err
	}
}

func run(stdin io.Reader, stdout, stderr io.Writer, opts options) error {
	env, err := pipe.Read("exec", stdin, envelopeSchema)
	if err != nil {
		return err
	}
	var in input
	for _, kv := range []struct {
		key string
		v   any
	}{{"config", &in.cfg}, {"run", &in.run}, {"packet", &in.packet}} {
		if err := env.Get(kv.key, kv.v); err != nil {
			return exitcode.New(exitcode.Config, "stdin: "+err.Error())
		}
	}
	in.inputs = map[string]envelope.Input{}
	for _, i := range in.packet.Inputs {
		in.inputs[i.Reviewer] = i
	}
	for i, r := range in.cfg.Reviewers {
		if _, ok := in.inputs[r.Name]; !ok && r.Preset != "native" && r.Preset != "command" {
			return exitcode.New(exitcode.Config, fmt.Sprintf("stdin: /packet/inputs: no input for reviewer %q", r.Name))
		}
		if r.Preset == "command" && len(r.Argv) == 0 {
			return exitcode.New(exitcode.Config, fmt.Sprintf("stdin: /config/reviewers/%d/argv: command without argv", i))
		}
	}
	if !filepath.IsAbs(in.run.Out) || !filepath.IsAbs(in.run.Series) {
		return exitcode.New(exitcode.Config, "stdin: /run: out and series must be absolute paths")
	}
	if err := series.CheckRerun(opts.rerun, in.cfg.Reviewers); err != nil {
		return exitcode.New(exitcode.Config, "refused: "+err.Error())
	}
	// docs/trust.md "Follow-up rounds and repeats": what run holds that
	// follows from run.out and from git (the series, the round's name, the
	// changed files) is taken again before anything is written; the packet
	// is built again from run under the lock (rebuild, below).
	if err := packet.CheckRun(&in.run, in.cfg.Exclude); err != nil {
		return exitcode.New(exitcode.Config, "refused: "+err.Error())
	}
	prog := runner.NewProgress(stderr, opts.quiet)
	// From here a signal stops the round (interrupt.go): the reviewers are
	// stopped and what this run made is removed.
	stop := watch(stderr)
	defer stop.end()

	// The workspace's place (docs/review-round.md "The workspace"): spar's cache folder, outside
	// every Git repository, decided before anything is written. Pruning
	// runs here, at the start of a round (at most once a day).
	var root string
	if !in.run.DryRun {
		r, note, err := workspace.Root()
		if err != nil {
			return exitcode.New(exitcode.Config, "refused: workspace: "+err.Error())
		}
		if note != "" {
			fmt.Fprintf(stderr, "spar-exec: workspace: %s\n", note)
		}
		root = r
		workspace.Prune(root, stillNeeded, time.Now())
	}

	// Step 1: the cap decision under the series lock (G33). A series that
	// does not exist yet has no rounds: decide first, so that a refusal
	// writes nothing, not even the series folder.
	decide := func() (series.Decision, error) {
		d, err := series.Decide(in.run.Series, in.run.Stage, in.run.Base, in.run.Head, in.packet.SHA256, in.run.DryRun, in.cfg.Caps, in.cfg.Reviewers, opts.rerun, signedByJob(opts.signKey))
		if err != nil {
			return d, exitcode.New(exitcode.Config, ""+err.Error())
		}
		if d.Refusal != "" {
			return d, exitcode.New(exitcode.Config, "refused: "+d.Refusal)
		}
		return d, nil
	}
	// docs/review-round.md §2.4, docs/trust.md "Follow-up rounds and
	// repeats": the follow-up the packet holds is the series as it stands
	// (followup.Check, which also fills in the follow-up's texts), and the
	// packet is the one Build gives from run and the configuration: the
	// reviewers get what spar-packet built, not an edited text.
	rebuild := func() error {
		if err := followup.Check(&in.run, in.cfg.ConfiguredRequired, in.cfg.Exclude); err != nil {
			return exitcode.New(exitcode.Config, "refused: "+err.Error())
		}
		if err := packet.Verify(&in.packet, &in.run, &in.cfg); err != nil {
			return exitcode.New(exitcode.Config, "refused: "+err.Error())
		}
		return nil
	}
	if _, err := os.Stat(in.run.Series); errors.Is(err, os.ErrNotExist) {
		if _, err := decide(); err != nil {
			return err
		}
		if err := rebuild(); err != nil {
			return err
		}
		if err := os.MkdirAll(in.run.Series, 0o755); err != nil {
			return exitcode.New(exitcode.IO, ""+err.Error())
		}
	}
	lk, err := lock.Series(in.run.Series, stderr)
	if err != nil {
		return exitcode.New(exitcode.IO, ""+err.Error())
	}
	defer lk.Release()
	// After taking the lock, read the records again (G33).
	dec, err := decide()
	if err != nil {
		return err
	}
	// Under the lock: what is compared is what the reviewers will get.
	if err := rebuild(); err != nil {
		return err
	}

	// G14 records a reviewer that cannot start as unavailable or failed,
	// and the round is recorded all the same: when none of the reviewers
	// to run can start, say so before anything runs (not progress: --quiet
	// keeps it).
	if !in.run.DryRun {
		var toStart []envelope.Reviewer
		for _, r := range in.cfg.Reviewers {
			if _, ok := dec.Completed[r.Name]; !ok {
				toStart = append(toStart, r)
			}
		}
		if w := runner.NoneStarts(toStart, os.Getenv("PATH")); w != "" {
			fmt.Fprintf(stderr, "spar-exec: warning: %s\n", w)
		}
		// A CLI that says it is not logged in (its own status command,
		// no tokens spent) would be recorded unavailable: say so first.
		for _, w := range runner.NotLoggedIn(toStart, os.Getenv("PATH")) {
			fmt.Fprintf(stderr, "spar-exec: warning: %s\n", w)
		}
	}

	// Step 2: the round folder.
	var mkErr error
	stop.hold(func() {
		if mkErr = os.Mkdir(in.run.Out, 0o755); mkErr == nil {
			stop.dir = in.run.Out
		}
	})
	if err := mkErr; err != nil {
		if errors.Is(err, os.ErrExist) {
			return exitcode.New(exitcode.Config, fmt.Sprintf("refused: the round folder %q already exists", in.run.Out))
		}
		return exitcode.New(exitcode.IO, ""+err.Error())
	}
	started := time.Now().UTC().Format(time.RFC3339)
	rd := &roundDir{in: &in, dir: in.run.Out, started: started, dec: dec}
	var wsErr error
	stop.hold(func() {
		if in.run.DryRun {
			return
		}
		// The workspace folder and <round>/workspace linking to it come
		// first, so that prompt.md and every round.json name its real path.
		ws, err := workspace.Create(root, in.run.Out)
		if err != nil {
			wsErr = exitcode.New(exitcode.IO, "workspace: "+err.Error())
			return
		}
		stop.ws = ws
		if err := os.Symlink(ws, filepath.Join(in.run.Out, round.WorkspaceDir)); err != nil {
			workspace.Remove(ws)
			stop.ws = ""
			wsErr = exitcode.New(exitcode.IO, "workspace: "+err.Error())
			return
		}
		rd.ws = ws
	})
	if wsErr != nil {
		return wsErr
	}
	var inErr error
	stop.hold(func() { inErr = rd.writeInputs() })
	if err := inErr; err != nil {
		return exitcode.New(exitcode.IO, ""+err.Error())
	}
	runs := make([]envelope.ReviewerRun, len(in.cfg.Reviewers))
	for i, r := range in.cfg.Reviewers {
		runs[i] = runner.New(r)
		runs[i].Status, runs[i].Reason = runner.Pending, "not started yet"
		if in.run.DryRun {
			runs[i].Status, runs[i].Reason = runner.NotRun, "dry run"
		} else if earlier, ok := dec.Completed[r.Name]; ok {
			runs[i].Status = runner.NotRun
			runs[i].Reason = fmt.Sprintf("completed in round %s of the series (same input)", earlier)
			prog.Line("%s not run: %s", r.Name, runs[i].Reason)
		} else if why := runner.LoggedOut(r, os.Getenv("PATH")); why != "" {
			// Known not to reach a model (docs/review-round.md "A CLI
			// without credentials"): recorded unavailable, never started.
			runs[i].Status, runs[i].Reason = runner.Unavailable, why
			prog.Line("%s unavailable: %s", r.Name, why)
		} else if why, ok := dec.Again[r.Name]; ok {
			prog.Line("%s runs again: %s", r.Name, why)
		}
	}
	var recErr error
	stop.hold(func() { recErr = rd.writeRecord(runs) })
	if err := recErr; err != nil {
		return exitcode.New(exitcode.IO, ""+err.Error())
	}

	if !in.run.DryRun {
		// Step 3: the workspace, linking what the blob store holds.
		ws := rd.ws
		st, err := workspace.StoreOf(root)
		if err != nil {
			st = nil // the store only saves work
		}
		_, fill, err := workspace.BuildLater(in.run.Repo, in.run.Head, in.run.Base, ws, st)
		if err != nil {
			// No reviewer will read it; the round stays without finished_at.
			workspace.Remove(ws)
			return exitcode.New(exitcode.IO, "workspace: "+err.Error())
		}
		// The blobs this round wrote join the store while the reviewers
		// run (they do not need it); spar-exec waits for it before it ends.
		filled := make(chan struct{})
		go func() {
			defer close(filled)
			fill()
		}()
		// Step 4: every reviewer at once.
		var toRun []runner.Reviewer
		var idx []int
		// The round's budget_usd, shared by the reviewers running at once.
		budget := runner.NewRoundBudget(in.cfg.BudgetUSD)
		for i, r := range in.cfg.Reviewers {
			if runs[i].Status == runner.NotRun || runs[i].Status == runner.Unavailable {
				continue
			}
			rv := rd.reviewer(r, ws)
			rv.Budget = budget
			toRun = append(toRun, rv)
			idx = append(idx, i)
		}
		// Interrupted while the reviewers run: stop their process groups
		// (they do not get the terminal's signals), remove the round and
		// its workspace, and exit 128+signal (interrupt.go).
		stop.hold(func() { stop.running = true })
		// The driver killed (spar run, SIGKILL included) is SIGTERM here.
		sandbox.FollowParent()
		done := runner.RunAll(toRun, prog)
		<-filled
		for j, i := range idx {
			runs[i] = done[j]
		}
		var recErr error
		stop.hold(func() { recErr = rd.writeRecord(runs) })
		if err := recErr; err != nil {
			return exitcode.New(exitcode.IO, ""+err.Error())
		}
	}

	// Step 5: the envelope.
	if err := env.Set("round", envelope.Round{
		Dir: in.run.Out, Series: in.run.Series, Name: in.run.Name,
		StartedAt: started, DryRun: in.run.DryRun, Cap: dec.Cap, Workspace: rd.ws,
	}); err != nil {
		return err
	}
	if err := env.Set("runs", runs); err != nil {
		return err
	}
	var outErr error
	stop.hold(func() { outErr = env.Write(stdout) })
	if err := outErr; err != nil {
		return exitcode.New(exitcode.IO, "stdout: "+err.Error())
	}
	return nil
}

// roundDir writes the files of the round folder.
type roundDir struct {
	in      *input
	dir     string
	started string
	dec     series.Decision
	ws      string // the workspace's real path; "" in a dry run
}

func (rd *roundDir) write(rel, text string) error {
	return atomic.WriteFile(filepath.Join(rd.dir, rel), []byte(text), 0o644)
}

// writeInputs writes packet.md, schema.json and each reviewer's input files
// into <round>/<reviewer>/ (native: prompt.md).
func (rd *roundDir) writeInputs() error {
	if err := rd.write(round.PacketFile, rd.in.packet.Markdown); err != nil {
		return err
	}
	if err := rd.write(round.SchemaFile, rd.in.packet.Schema); err != nil {
		return err
	}
	for _, r := range rd.in.cfg.Reviewers {
		if err := os.Mkdir(filepath.Join(rd.dir, r.Name), 0o755); err != nil {
			return err
		}
		in := rd.in.inputs[r.Name]
		text := func(t string) string {
			if r.Preset == "native" {
				return rd.nativeText(t)
			}
			return t
		}
		hasPrompt := false
		for _, f := range in.Files {
			if f.Name == "prompt.md" {
				hasPrompt = true
			}
			if err := rd.write(filepath.Join(r.Name, f.Name), text(f.Text)); err != nil {
				return err
			}
		}
		if r.Preset == "native" && !hasPrompt {
			if err := rd.write(filepath.Join(r.Name, "prompt.md"), text(in.Text)); err != nil {
				return err
			}
		}
	}
	return nil
}

// nativeText is a native reviewer's prompt with the workspace's real path
// (docs/review-round.md "The workspace": the subagent reads the copies there, not through the
// link): spar-packet wrote packet.NativePrompt, which names
// <round>/workspace, before the workspace had a place.
func (rd *roundDir) nativeText(t string) string {
	fixed := packet.NativePrompt(&rd.in.run)
	if rd.ws == "" || !strings.HasPrefix(t, fixed) {
		return t
	}
	return packet.NativePromptIn(&rd.in.run, rd.ws) + t[len(fixed):]
}

// stillNeeded is Prune's question for an old workspace ws of the round
// folder roundDir: the round still links it, is recorded, and a native
// reviewer is pending (its subagent will read it). A round never recorded
// after WorkspaceMaxAge is dead: spar record refuses it.
func stillNeeded(roundDir, ws string) bool {
	if !workspace.Linked(roundDir, ws) {
		return false
	}
	rec, err := round.ReadRecord(roundDir)
	return err == nil && rec.FinishedAt != nil && rec.NeedsWorkspace()
}

func (rd *roundDir) reviewer(r envelope.Reviewer, ws string) runner.Reviewer {
	in := rd.in.inputs[r.Name]
	prompt := in.PromptFile
	if prompt == "" {
		prompt = round.PacketFile
	}
	return runner.Reviewer{
		Config:     r,
		Input:      in,
		Dir:        filepath.Join(rd.dir, r.Name),
		Repo:       rd.in.run.Repo,
		Workspace:  ws,
		Prompt:     filepath.Join(rd.dir, filepath.FromSlash(prompt)),
		SchemaPath: filepath.Join(rd.dir, round.SchemaFile),
		SchemaText: rd.in.packet.Schema,
		PathEnv:    os.Getenv("PATH"),
		Check:      rd.check,
	}
}

// check is spar-check's decision on a completed run (lib/resultcheck), for
// the progress line only: spar-check decides again from the envelope.
func (rd *roundDir) check(run envelope.ReviewerRun) (string, string) {
	r := resultcheck.Round{Head: rd.in.run.Head, Angles: rd.in.cfg.Angles, Standpoints: rd.in.run.Standpoints}
	return resultcheck.Decide(r, run)
}

// writeRecord writes round.json without finished_at (docs/review-round.md §1): the
// round is not published until spar-record rewrites it.
func (rd *roundDir) writeRecord(runs []envelope.ReviewerRun) error {
	in := rd.in
	rec := round.New(&in.run, &in.packet, in.cfg, envelope.Round{
		Name: in.run.Name, Series: in.run.Series, StartedAt: rd.started,
		DryRun: in.run.DryRun, Cap: rd.dec.Cap, Workspace: rd.ws,
	})
	stand := map[string]string{}
	for _, s := range in.run.Standpoints {
		stand[s.Reviewer] = s.Text
	}
	for i, r := range in.cfg.Reviewers {
		run := runs[i]
		rv := round.Reviewer{
			Name: r.Name, Preset: r.Preset, Isolation: r.Isolation, Required: r.Required,
			Status: run.Status, Reason: run.Reason, Model: r.Model, FallbackModel: r.FallbackModel,
			Effort: r.Effort, ObservedModel: run.ObservedModel, Version: run.Version,
			TimeoutSeconds: r.TimeoutSeconds, Attempts: run.Attempts, Resets: run.Resets, Warnings: run.Warnings,
			Sandbox: run.Sandbox, Env: run.Env,
		}
		if t, ok := stand[r.Name]; ok {
			rv.Standpoint = &t
			if run.Status != runner.Completed {
				rec.StandpointsUncovered = append(rec.StandpointsUncovered, r.Name)
			}
		}
		if earlier, ok := rd.dec.Completed[r.Name]; ok && !in.run.DryRun {
			rv.CompletedIn = &earlier
		}
		rec.Reviewers = append(rec.Reviewers, rv)
	}
	rec.SumUsage() // usage totals from the attempts (docs/review-round.md §7.1)
	return round.WriteJSON(filepath.Join(rd.dir, round.RoundFile), rec)
}
