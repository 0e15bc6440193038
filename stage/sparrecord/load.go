package sparrecord

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/jaekit/spar/lib/document"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/exitcode"
	"github.com/jaekit/spar/lib/gate"
	"github.com/jaekit/spar/lib/lock"
	"github.com/jaekit/spar/lib/pipe"
	"github.com/jaekit/spar/lib/round"
	"github.com/jaekit/spar/lib/summary"
	"github.com/jaekit/spar/lib/transcript"
	"github.com/jaekit/spar/stage/cli"
)

const loadUsage = `usage: spar-record load ROUND --reviewer NAME [--result F] [--transcript F]

Loads a recorded round into a spar-pipe/v1 envelope with NAME's result: the
JSON object in F (--result), else the final message of the Claude Code
transcript F (--transcript). A transcript also gives NAME's warnings (G15)
and observed model (G12). The other reviewers keep their stored results.
Pipe the output through spar-check, spar-classify and spar-record.

Refused (65, nothing written): an unreadable round (G32), a round that
stopped before its first recording, a dry run, a name
that is not a reviewer of the round (G20), a reviewer that already
completed there, a round document that changed since the round started
(docs/review-round.md §1), an unreadable --result or transcript (G15).

Exit codes: 0 printed, 64 usage error, 65 refused (nothing written),
70 internal error.

Example:
  spar-record load reviews/login/code-1 --reviewer native --result native.json \
    | spar-check | spar-classify | spar-record
`

// loadArgs is the command line of load.
type loadArgs struct {
	round, reviewer, result, transcript string
	hasResult, hasTranscript, help      bool
}

// parseLoad reads ROUND and --reviewer, --result, --transcript (each once,
// as `--flag VALUE` or `--flag=VALUE`, anywhere). An unknown flag, a flag
// twice or without its value is a usage error.
func parseLoad(args []string) (loadArgs, error) {
	p, err := parseArgs("load", args, []string{"reviewer", "result", "transcript"})
	a := loadArgs{help: p.help}
	if p.help || err != nil {
		return a, err
	}
	if len(p.pos) != 1 {
		return a, fmt.Errorf("load: want one ROUND, got %d arguments", len(p.pos))
	}
	a.round = p.pos[0]
	a.reviewer = p.vals["reviewer"]
	a.result, a.hasResult = p.vals["result"], p.given["result"]
	a.transcript, a.hasTranscript = p.vals["transcript"], p.given["transcript"]
	if !p.given["reviewer"] {
		return a, errors.New("load: --reviewer NAME is required")
	}
	if !a.hasResult && !a.hasTranscript {
		return a, errors.New("load: give --result F or --transcript F")
	}
	return a, nil
}

func runLoad(args []string, stdout, stderr io.Writer) error {
	a, err := parseLoad(args)
	if a.help {
		fmt.Fprint(stdout, loadUsage)
		return nil
	}
	if err != nil {
		return usageError(err.Error(), loadUsage)
	}
	env, err := load(a, stderr)
	if err != nil {
		return err
	}
	if err := env.Write(stdout); err != nil {
		return exitcode.New(exitcode.IO, "stdout: "+err.Error())
	}
	return nil
}

// load builds the envelope of a recorded round with one reviewer's new
// result, holding the series lock (G33) and reading every record after
// taking it.
func load(a loadArgs, stderr io.Writer) (*pipe.Envelope, error) {
	dir, err := filepath.Abs(a.round)
	if err != nil {
		return nil, refused("round %q: %v", a.round, err)
	}
	// G32: a folder without round.json is no round; checked before the
	// lock so that nothing (not even .lock) is created beside it.
	if fi, err := os.Stat(filepath.Join(dir, round.RoundFile)); err != nil || !fi.Mode().IsRegular() {
		return nil, refused("round %q: %s is missing or not a file", a.round, round.RoundFile)
	}
	series := filepath.Dir(dir)
	l, err := lock.Series(series, stderr)
	if err != nil {
		return nil, ioError(filepath.Join(series, round.LockFile), err)
	}
	defer l.Release()

	// docs/review-round.md §1, "Crashes roll forward": taking the lock finished an interrupted recording of
	// the round (lib/lock); one that cannot be finished is refused.
	if _, err := round.Finish(dir, nil); err != nil {
		return nil, refused("round %q: its interrupted recording cannot be finished: %v; run a new round", a.round, err)
	}
	rec, err := round.ReadRecord(dir)
	if err != nil {
		return nil, refused("round %q: %v", a.round, err)
	}
	// config goes on exactly as round.json keeps it (docs/pipeline.md §1:
	// rewriting an older round does not add choices).
	var raw struct {
		Config json.RawMessage `json:"config"`
	}
	if b, err := round.ReadFile(filepath.Join(dir, round.RoundFile)); err != nil || json.Unmarshal(b, &raw) != nil || len(raw.Config) == 0 {
		return nil, refused("round %q: %s has no config", a.round, round.RoundFile)
	}
	if _, _, err := round.Load(dir); err != nil && !errors.Is(err, round.ErrUnfinished) {
		return nil, refused("round %q: %v", a.round, err)
	}
	if rec.DryRun {
		return nil, refused("round %q is a dry run: no reviewer result is recorded in it", a.round)
	}
	// A round spar-record never recorded (spar run stopped before
	// recording) is not a round to add to: it was not counted, and another
	// round may have taken its place in the cap. A recording cut short
	// (round.json rewritten by spar-record, run_status set) may be redone.
	recorded := rec.FinishedAt != nil
	for _, r := range rec.Reviewers {
		if r.RunStatus != "" {
			recorded = true
		}
	}
	if !recorded {
		return nil, refused("round %q stopped before recording findings; run a new round", a.round)
	}
	// G20: literal comparison with the round's reviewers.
	var cfg *envelope.Reviewer
	for i := range rec.Config.Reviewers {
		if rec.Config.Reviewers[i].Name == a.reviewer {
			cfg = &rec.Config.Reviewers[i]
		}
	}
	if cfg == nil {
		var names []string
		for _, r := range rec.Config.Reviewers {
			names = append(names, r.Name)
		}
		return nil, refused("reviewer %q is not a reviewer of round %q (its reviewers: %s)", a.reviewer, a.round, strings.Join(names, ", "))
	}
	stored := map[string]round.Reviewer{}
	for _, r := range rec.Reviewers {
		stored[r.Name] = r
	}
	if s, ok := stored[a.reviewer]; ok && s.Status == "completed" {
		// Its findings may already carry dispositions: a new result would
		// give their IDs to other findings.
		return nil, refused("reviewer %q already completed in round %q", a.reviewer, a.round)
	}
	// Only the host's subagent is recorded from outside: a result for a
	// reviewer spar starts itself would be the agent's words in that
	// reviewer's place (a required reviewer is skipped with the user's
	// words, spar waive, never with a file).
	if cfg.Preset != "native" {
		return nil, refused("reviewer %q (%s) is run by spar run; spar record records the host's subagent (native) only: rerun the round (a rerun runs the reviewers that did not complete), or with the user's words spar waive %s --reviewer %s --user-quote WORDS", a.reviewer, cfg.Preset, a.round, a.reviewer)
	}
	// docs/review-gate.md §8, F2: recording rejects stale inputs.
	for _, d := range rec.Documents {
		// Read as the gate reads it (bounded: a FIFO or a link to
		// /dev/zero put in its place is unreadable at once).
		b, err := document.ReadBytes(d.Path)
		if err != nil {
			return nil, refused("document %q (%s) of round %q cannot be read: %v; run a new round", d.Name, d.Path, a.round, err)
		}
		if round.SHA256(b) != d.SHA256 {
			return nil, refused("document %q (%s) changed since round %q started; run a new round", d.Name, d.Path, a.round)
		}
	}
	packetMD, err := round.ReadFile(filepath.Join(dir, round.PacketFile))
	if err != nil {
		return nil, refused("round %q: %s: %v", a.round, round.PacketFile, err)
	}
	if round.SHA256(packetMD) != rec.PacketSHA256 {
		return nil, refused("round %q: %s does not have the packet_sha256 of round.json", a.round, round.PacketFile)
	}
	schemaJSON, err := round.ReadFile(filepath.Join(dir, round.SchemaFile))
	if err != nil {
		return nil, refused("round %q: %s: %v", a.round, round.SchemaFile, err)
	}

	// The new result.
	var result string
	var warnings []envelope.Warning
	var observed *string
	if a.hasTranscript {
		// The workspace's real path, which prompt.md names (docs/review-round.md "The workspace");
		// reads through <round>/workspace resolve to it while it exists.
		t, err := transcript.Read(a.transcript,
			rec.WorkspacePath(dir), filepath.Join(dir, a.reviewer, "prompt.md"),
			filepath.Join(dir, round.PacketFile), filepath.Join(dir, round.SchemaFile))
		if err != nil {
			return nil, refused("transcript %q cannot be read: %v", a.transcript, err)
		}
		if !a.hasResult && !t.HasFinal {
			return nil, refused("transcript %q cannot be read: it has no final message", a.transcript)
		}
		result = unfence(t.Final)
		warnings, observed = t.Warnings, t.Model
	}
	if a.hasResult {
		b, err := transcript.ReadFile(a.result, transcript.ResultCap)
		if err != nil {
			return nil, refused("--result %q cannot be read: %v", a.result, err)
		}
		result = string(b)
	}

	runs := make([]envelope.ReviewerRun, 0, len(rec.Config.Reviewers))
	for _, cr := range rec.Config.Reviewers {
		s, ok := stored[cr.Name]
		run := envelope.ReviewerRun{
			Reviewer: cr.Name, Preset: cr.Preset, Status: "pending",
			Model: cr.Model, Effort: cr.Effort, TimeoutSeconds: cr.TimeoutSeconds,
			Attempts: []envelope.Attempt{}, Warnings: []envelope.Warning{}, Tools: []string{},
		}
		if ok {
			run.Status, run.Reason = s.Status, s.Reason
			if s.RunStatus != "" {
				run.Status, run.Reason = s.RunStatus, s.RunReason
			}
			run.Model, run.Effort, run.ObservedModel = s.Model, s.Effort, s.ObservedModel
			run.Version, run.TimeoutSeconds, run.Resets = s.Version, s.TimeoutSeconds, s.Resets
			run.Attempts, run.Warnings, run.Tools = nonNil(s.Attempts), nonNil(s.Warnings), nonNil(s.Tools)
			run.CompletedIn = s.CompletedIn
			run.Sandbox = s.Sandbox
			run.Env = s.Env
			run.RecordedFrom = s.RecordedFrom
			if run.Status == "completed" {
				if b, err := round.ReadFile(filepath.Join(dir, cr.Name, "result.json")); err == nil {
					text := string(b)
					run.Result = &text
				}
			}
		}
		if cr.Name == a.reviewer {
			text := result
			run.Status, run.Reason, run.Result, run.CompletedIn = "completed", "", &text, nil
			run.Warnings = nonNil(warnings)
			if a.hasTranscript {
				run.ObservedModel = observed
			}
			// The gate counts a native review only from a transcript
			// (docs/trust.md "The gate"): --result wins when both are given.
			run.RecordedFrom = "transcript"
			if a.hasResult {
				run.RecordedFrom = "result"
			}
		}
		runs = append(runs, run)
	}

	env := pipe.New()
	sets := []struct {
		key string
		v   any
	}{
		{"config", raw.Config},
		{"run", envelope.Run{
			Repo: rec.Repo, Stage: rec.Stage, Base: rec.Base, Head: rec.Head,
			Out: dir, Series: series, Name: filepath.Base(dir), DryRun: rec.DryRun,
			CheckPaths: nonNil(rec.CheckPaths), Documents: nonNil(rec.Documents),
			CriteriaIDs: nonNil(rec.Links.CriteriaIDs), CriteriaDigest: rec.CriteriaDigest,
			Decisions: nonNil(rec.Decisions), Standpoints: nonNil(rec.Standpoints), Changes: nonNil(rec.Changes),
			CommittedCheckPaths: rec.CommittedCheckPaths, DirtyInputs: nonNil(rec.DirtyInputs),
			FollowUp: rec.FollowUp,
		}},
		{"packet", envelope.Packet{Markdown: string(packetMD), SHA256: rec.PacketSHA256, Schema: string(schemaJSON), Inputs: []envelope.Input{}}},
		{"round", envelope.Round{Dir: dir, Series: series, Name: filepath.Base(dir), StartedAt: rec.StartedAt, DryRun: rec.DryRun, Cap: rec.Cap, Workspace: rec.Workspace}},
		{"runs", runs},
	}
	for _, s := range sets {
		if err := env.Set(s.key, s.v); err != nil {
			return nil, err
		}
	}
	return env, nil
}

// unfence takes the JSON out of a final message that is one fenced code
// block (```json … ```), the way a subagent often ends; any other text is
// the result as written, for spar-check to judge (G1).
func unfence(s string) string {
	t := strings.TrimSpace(s)
	if !strings.HasPrefix(t, "```") || !strings.HasSuffix(t, "```") || len(t) < 6 {
		return s
	}
	nl := strings.IndexByte(t, '\n')
	if nl < 0 {
		return s
	}
	inner := t[nl+1 : len(t)-3]
	if strings.Contains(inner, "```") {
		return s
	}
	return strings.TrimSpace(inner)
}

const verdictUsage = `usage: spar-record verdict ROUND [--require-complete]

Prints where a recorded round is and its verdict line (the verdict line of
its summary.md). A round that stopped before recording is refused (65).

  --require-complete  also fail (exit 1) when a required reviewer of the
                      round did not complete it and kept no completed
                      review of the same input (review in CI: the job's
                      review step fails, ci/github/review.sh), one line per
                      reviewer with its status and reason

Exit codes: 0 printed, 1 a required reviewer did not complete
(--require-complete), 64 usage error, 65 refused.

Example:
  spar-record verdict reviews/login/code-1
`

// runVerdict prints "round: DIR" and the round's verdict line; with
// --require-complete, each required reviewer that did not complete.
func runVerdict(args []string, stdout io.Writer) error {
	a, err := cli.Parse(args, cli.Grammar{Flags: []cli.Flag{{Name: "require-complete", Bool: true}}})
	if a.Help {
		fmt.Fprint(stdout, verdictUsage)
		return nil
	}
	if err != nil || len(a.Pos) != 1 || strings.HasPrefix(a.Pos[0], "-") {
		return usageError("verdict: want one ROUND", verdictUsage)
	}
	v, require := a.Value("require-complete")
	if require && v != "" {
		return usageError("verdict: --require-complete takes no value", verdictUsage)
	}
	arg := a.Pos[0]
	dir, err := filepath.Abs(arg)
	if err != nil {
		return refused("round %q: %v", arg, err)
	}
	rec, f, err := round.Load(dir)
	if err != nil {
		return refused("round %q: %v", arg, err)
	}
	// Decided now, by the gate's rule (docs/review-round.md §9): summary.md
	// holds the line as it was when spar-record last wrote it.
	fmt.Fprintf(stdout, "round: %s\n%s\n", dir, summary.VerdictLine(rec, f.Findings, verdictTally(dir, nil)))
	if !require {
		return nil
	}
	missing := rec.IncompleteRequired()
	if len(missing) == 0 {
		return nil
	}
	var lines []string
	for _, rv := range missing {
		why := rv.Reason
		if why == "" {
			why = "no reason recorded"
		}
		lines = append(lines, fmt.Sprintf("required reviewer %s did not complete round %s (status %s: %s)", rv.Name, rec.Name, rv.Status, strings.Join(strings.Fields(why), " ")))
	}
	return exitcode.New(exitcode.Blocked, strings.Join(lines, "\n"))
}

// verdictTally is the verdict line's open and closed counts by the gate's
// rule (gate.RoundVerdict), nil when the gate cannot judge the round: the
// line then shows the counts only and claims nothing open or closed.
func verdictTally(dir string, pending *gate.Pending) *summary.Tally {
	t, err := gate.RoundVerdict(dir, pending)
	if err != nil {
		return nil
	}
	return &t
}
