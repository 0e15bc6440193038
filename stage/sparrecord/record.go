package sparrecord

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/jaekit/spar/lib/atomic"
	"github.com/jaekit/spar/lib/classify"
	"github.com/jaekit/spar/lib/config"
	"github.com/jaekit/spar/lib/disposition"
	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/exitcode"
	"github.com/jaekit/spar/lib/gate"
	"github.com/jaekit/spar/lib/lock"
	"github.com/jaekit/spar/lib/pipe"
	"github.com/jaekit/spar/lib/round"
	"github.com/jaekit/spar/lib/series"
	"github.com/jaekit/spar/lib/sign"
	"github.com/jaekit/spar/lib/summary"
	"github.com/jaekit/spar/lib/workspace"
)

//go:embed envelope.schema.json
var envelopeSchema []byte

// PauseEnv is a test-only environment variable: a Go duration spar-record
// sleeps before each write of a recording, after printing
// "spar-record: pause before <step>" to stderr, so that the crash test can
// kill it between any two writes.
const PauseEnv = "SPAR_RECORD_PAUSE"

// now is the clock of finished_at and ledger lines.
var now = func() time.Time { return time.Now().UTC() }

func pauseBefore(stderr io.Writer, step string) {
	d, err := time.ParseDuration(os.Getenv(PauseEnv))
	if err != nil || d <= 0 {
		return
	}
	fmt.Fprintf(stderr, "spar-record: pause before %s\n", step)
	time.Sleep(d)
}

func refused(format string, a ...any) error {
	return exitcode.New(exitcode.Config, "refused: "+fmt.Sprintf(format, a...))
}

func ioError(path string, err error) error {
	return exitcode.New(exitcode.IO, fmt.Sprintf("%s: %v", path, err))
}

// writeRecord writes round.json with `config` exactly as the envelope
// carries it, in its place: docs/pipeline.md §1, a round written before a
// field of the record existed (choices) does not get it when it is
// rewritten (spar record).
func writeRecord(path string, rec *round.Record, rawConfig json.RawMessage) error {
	b, err := recordBytes(rec, rawConfig)
	if err != nil {
		return err
	}
	return atomic.WriteFile(path, b, 0o644)
}

// recordBytes is round.json's text for rec (writeRecord).
func recordBytes(rec *round.Record, rawConfig json.RawMessage) ([]byte, error) {
	b, err := pipe.Marshal(rec)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	out.WriteByte('{')
	for first := true; dec.More(); first = false {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		if tok == "config" && len(rawConfig) > 0 {
			v = rawConfig
		}
		if !first {
			out.WriteByte(',')
		}
		k, _ := pipe.Marshal(tok)
		out.Write(k)
		out.WriteByte(':')
		out.Write(v)
	}
	out.WriteByte('}')
	var ind bytes.Buffer
	if err := json.Indent(&ind, out.Bytes(), "", "  "); err != nil {
		return nil, err
	}
	ind.WriteByte('\n')
	return ind.Bytes(), nil
}

// input is the envelope spar-record reads.
type input struct {
	RawConfig json.RawMessage
	Config    envelope.Config
	Run       envelope.Run
	Packet    envelope.Packet
	Round     envelope.Round
	Runs      []envelope.ReviewerRun
	Results   []envelope.Result
	Findings  []envelope.Finding // decoded by loadFindings
	env       *pipe.Envelope
}

func decode(env *pipe.Envelope) (*input, error) {
	in := &input{RawConfig: env.Raw("config"), env: env}
	for _, k := range []struct {
		key string
		v   any
	}{{"config", &in.Config}, {"run", &in.Run}, {"packet", &in.Packet}, {"round", &in.Round},
		{"runs", &in.Runs}, {"results", &in.Results}} {
		get := env.Get
		if k.key == "results" {
			get = func(_ string, v any) error { return getResults(env, v.(*[]envelope.Result)) }
		}
		if err := get(k.key, k.v); err != nil {
			return nil, exitcode.New(exitcode.Config, "stdin: "+err.Error())
		}
	}
	return in, nil
}

// loadFindings decodes "findings", once the raw results are staged and
// released: the two largest parts of the envelope are never held at once
// (docs/pipeline.md "Memory").
func (in *input) loadFindings() error {
	if err := in.env.Get("findings", &in.Findings); err != nil {
		return exitcode.New(exitcode.Config, "spar-record: stdin: "+err.Error())
	}
	if in.Findings == nil {
		in.Findings = []envelope.Finding{}
	}
	return nil
}

// runRecord records the round of the envelope on stdin.
func runRecord(stdin io.Reader, stdout, stderr io.Writer) error {
	env, err := pipe.Read("record", stdin, envelopeSchema)
	if err != nil {
		return err
	}
	in, err := decode(env)
	if err != nil {
		return err
	}
	rec, err := record(in, stderr)
	if err != nil {
		return err
	}
	if err := env.Set("recorded", rec); err != nil {
		return err
	}
	if err := env.Write(stdout); err != nil {
		return exitcode.New(exitcode.IO, "stdout: "+err.Error())
	}
	return nil
}

// foreignFiles are the records a round folder holds only after spar-record
// wrote them (docs/review-round.md §1): before the first recording spar-exec has
// written round.json, packet.md, schema.json, the workspace and the
// reviewers' folders, so any of these there then was put by someone else (a
// reviewer process, docs/trust.md "Records").
var foreignFiles = []string{round.FindingsFile, round.LedgerFile, round.SummaryFile, round.WaiversFile}

// record writes the round's records so that every reader stays safe and a
// crash rolls forward (docs/review-round.md §1, "Crashes roll forward"; lib/round
// recording.go; docs/review-round.md §1):
//
//  1. stage, in <round>/.recording/ (round.Stager, each file streamed as
//     it is produced, docs/pipeline.md "Memory"): each reviewer's raw
//     result that changed (<reviewer>/result.json, what a later `spar
//     record` re-checks), findings.json, summary.md and the final
//     round.json (with finished_at and findings.json's sha256);
//  2. round.json without finished_at and with "recording" (the staged files'
//     sha256s and the automatic deferrals to append): the recording has
//     started, and from here on a reader sees a round whose recording is in
//     progress, never the earlier recording mixed with this one;
//  3. rename each staged file over its record, append the deferrals to
//     ledger.jsonl (created with O_EXCL at the first recording), rename the
//     final round.json, remove .recording/ (round.Finish).
//
// A crash in 1 changes no record; a crash in 3 is finished by the next
// writer of the series (lib/lock calls round.FinishSeries). Every file is
// NAME.tmp, synced, renamed. The series lock is held (G33); the records are
// read again after taking it.
func record(in *input, stderr io.Writer) (*envelope.Recorded, error) {
	dir := in.Round.Dir
	if !filepath.IsAbs(dir) {
		return nil, exitcode.New(exitcode.Config, fmt.Sprintf("stdin: /round/dir: %q is not an absolute path", dir))
	}
	// A CI job's signing key (lib/sign): a bad one is refused before
	// anything is written.
	signKey, err := sign.KeyFromEnv(os.Getenv)
	if err != nil {
		return nil, refused("%v", err)
	}
	series := in.Round.Series
	if series == "" {
		series = filepath.Dir(dir)
	}
	l, err := lock.Series(series, stderr)
	if err != nil {
		return nil, ioError(filepath.Join(series, round.LockFile), err)
	}
	defer l.Release()

	// docs/review-round.md §1, "Crashes roll forward": taking the lock finished an interrupted recording of
	// this round; one that cannot be finished is refused here.
	if _, err := round.Finish(dir, nil); err != nil {
		return nil, refused("round %q: its interrupted recording cannot be finished: %v; run a new round", dir, err)
	}
	// G32, G33: read the round again under the lock. spar-exec wrote it.
	prev, err := round.ReadRecord(dir)
	if err != nil {
		return nil, refused("round %q: %v", dir, err)
	}
	if prev.Name != "" && prev.Name != in.Round.Name {
		return nil, refused("round %q: round.json names round %q, the envelope %q", dir, prev.Name, in.Round.Name)
	}
	if !recordedBefore(prev) {
		// Records are spar's alone (docs/trust.md "Records"): at the first
		// recording round.json is spar-exec's, which names no record file,
		// so a record file there is someone else's.
		for _, name := range foreignFiles {
			if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
				return nil, refused("round %q holds %s before its first recording: spar did not write it (a reviewer or another program did); nothing was recorded; run a new round", dir, name)
			}
		}
	}
	ledger, err := round.ReadLedger(dir)
	if err != nil {
		return nil, refused("round %q: %v", dir, err)
	}

	rec, err := buildRecord(in)
	if err != nil {
		return nil, err
	}
	// A reviewer a rerun kept: spar-exec's round.json names the round where
	// it completed, also when the run in the envelope does not.
	for i := range rec.Reviewers {
		r := &rec.Reviewers[i]
		if r.CompletedIn != nil || r.Status != "not_run" {
			continue
		}
		for _, p := range prev.Reviewers {
			if p.Name == r.Name && p.CompletedIn != nil {
				in := *p.CompletedIn
				r.CompletedIn = &in
			}
		}
	}
	rec.StandpointsUncovered = uncovered(rec)
	if rec.Workspace == "" {
		// spar-exec recorded where the workspace is (docs/review-round.md "The workspace").
		rec.Workspace = prev.Workspace
	}
	// 1. stage, each file streamed into .recording/ as it is produced
	// (docs/pipeline.md "Memory"); a recording given up before the anchor
	// leaves no .recording/ behind.
	pause := func(step string) { pauseBefore(stderr, step) }
	st, err := round.NewStager(dir, pause)
	if err != nil {
		return nil, ioError(filepath.Join(dir, round.RecordingDir), err)
	}
	plan, err := stage(st, in, rec, ledger)
	if err != nil {
		st.Abandon()
		return nil, err
	}
	written := []string{}
	for _, f := range plan.Files {
		written = append(written, f.Name)
		if f.Name == round.FindingsFile {
			written = append(written, round.LedgerFile)
		}
	}
	written = append(written, round.RoundFile)
	// 2. the anchor: round.json names the recording.
	rec.Recording = plan
	pause(round.RoundFile + " (recording)")
	if err := writeRecord(filepath.Join(dir, round.RoundFile), rec, in.RawConfig); err != nil {
		return nil, ioError(filepath.Join(dir, round.RoundFile), err)
	}
	// 3. publish.
	if _, err := round.Finish(dir, pause); err != nil {
		return nil, ioError(dir, err)
	}
	// The job's signature over the round as recorded (review in CI,
	// lib/sign), still under the lock.
	if signKey != nil {
		if err := sign.Sign(signKey, dir, filepath.Base(series), filepath.Base(dir)); err != nil {
			return nil, ioError(filepath.Join(dir, sign.SignatureFile), err)
		}
		written = append(written, sign.ManifestFile, sign.SignatureFile)
	}

	// 4. The workspace, once no reviewer can still need it (docs/review-round.md "The workspace"):
	// nothing the gate or a later command reads is in it. A pending native
	// reviewer keeps it until spar record records the last one. Failing to
	// remove it loses nothing recorded: said, and pruned later.
	if !rec.NeedsWorkspace() {
		if _, err := workspace.RemoveFor(dir, rec.Workspace); err != nil {
			fmt.Fprintf(stderr, "spar-record: workspace %s: not removed: %v\n", rec.Workspace, err)
		}
	}
	pauseBefore(stderr, "exit")
	return &envelope.Recorded{Round: dir, Files: written}, nil
}

// stage writes phase 1 of the recording into st: each reviewer's raw
// result that changed, findings.json, summary.md and the final round.json
// (with finished_at and findings.json's sha256), and returns the Recording
// the anchor names: those files and the automatic deferrals to append.
func stage(st *round.Stager, in *input, rec *round.Record, ledger []round.LedgerEntry) (*round.Recording, error) {
	stageErr := func(err error) error { return ioError(filepath.Join(in.Round.Dir, round.RecordingDir), err) }
	configured := map[string]bool{}
	for _, r := range rec.Reviewers {
		configured[r.Name] = true
	}
	// Raw results (buildRecord checked every name against G20 and the
	// configured reviewers, so each is one safe folder name), each
	// released once staged (docs/pipeline.md "Memory").
	for i, r := range in.Runs {
		if r.Result == nil || !configured[r.Reviewer] {
			continue
		}
		name := filepath.Join(r.Reviewer, "result.json")
		if sameFile(filepath.Join(in.Round.Dir, name), *r.Result) {
			in.Runs[i].Result = nil
			continue
		}
		if _, err := st.Add(name, func(w io.Writer) error { _, err := io.WriteString(w, *r.Result); return err }); err != nil {
			return nil, stageErr(err)
		}
		in.Runs[i].Result = nil
	}
	if err := in.loadFindings(); err != nil {
		return nil, err
	}
	findings := in.Findings
	countFindings(rec, findings)

	sum, err := st.Add(round.FindingsFile, func(w io.Writer) error { return round.WriteFindings(w, rec.Name, findings) })
	if err != nil {
		return nil, stageErr(err)
	}

	// Automatic deferrals (docs/review-round.md §7.3; G7: none for an unreadable
	// location). A finding that already has a ledger line (an earlier
	// recording of this round, or triage) gets none: the ledger is
	// append-only and its last line decides.
	has := map[string]bool{}
	for _, e := range ledger {
		has[e.Finding] = true
	}
	at := now().Format(time.RFC3339Nano)
	var lines [][]byte
	for _, f := range findings {
		// docs/trust.md: hardening only through a check path the head
		// commit's configuration does not list is never deferred
		// automatically; the gate blocks on it.
		// A repeat says an earlier decision does not hold: the user
		// answers it, never an automatic deferral (docs/review-round.md §6.6).
		if f.Class != envelope.ClassHardening || f.LocationUnreadable || has[f.ID] || classify.UncommittedOnly(f.Class, f.CommittedClass) || f.RepeatOf != nil {
			continue
		}
		e := round.LedgerEntry{Finding: f.ID, Disposition: disposition.Deferred, Auto: true,
			To: "automatic deferral of hardening at record", At: at}
		b, err := pipe.Marshal(e)
		if err != nil {
			return nil, err
		}
		lines = append(lines, b)
		ledger = append(ledger, e)
		has[f.ID] = true
	}

	// The verdict line's open and closed counts are the gate's decision
	// now (docs/review-round.md §9), with this round's records as staged.
	tally := verdictTally(in.Round.Dir, &gate.Pending{Record: rec, Findings: findings, Ledger: ledger})
	if _, err := st.Add(round.SummaryFile, func(w io.Writer) error { return summary.RenderTo(w, rec, findings, ledger, tally) }); err != nil {
		return nil, stageErr(err)
	}

	// The final round.json, staged last.
	fin := now().Format(time.RFC3339Nano)
	published := *rec
	published.FinishedAt, published.FindingsSHA256 = &fin, &sum
	final, err := recordBytes(&published, in.RawConfig)
	if err != nil {
		return nil, err
	}
	plan, err := st.Done(final, lines)
	if err != nil {
		return nil, stageErr(err)
	}
	return plan, nil
}

// recordedBefore reports whether spar-record wrote round.json before: a
// published round, or a recording that set the run's statuses (a round
// whose round.json is still spar-exec's has neither).
func recordedBefore(rec *round.Record) bool {
	if rec.FinishedAt != nil || rec.FindingsSHA256 != nil || rec.Recording != nil {
		return true
	}
	for _, r := range rec.Reviewers {
		if r.RunStatus != "" {
			return true
		}
	}
	return false
}

// checked is the part of a checked result round.json keeps per reviewer.
type checked struct {
	AnglesChecked   []round.AngleItem `json:"angles_checked"`
	AnglesUnchecked []round.AngleItem `json:"angles_unchecked"`
	Limits          *string           `json:"limits"`
}

// buildRecord is round.json from the envelope (without finished_at and
// the findings' counts, countFindings).
func buildRecord(in *input) (*round.Record, error) {
	runs := map[string]envelope.ReviewerRun{}
	for _, r := range in.Runs {
		runs[r.Reviewer] = r
	}
	results := map[string]envelope.Result{}
	for _, r := range in.Results {
		results[r.Reviewer] = r
	}
	standpoint := map[string]string{}
	for _, s := range in.Run.Standpoints {
		standpoint[s.Reviewer] = s.Text
	}
	rec := round.New(&in.Run, &in.Packet, in.Config, in.Round)

	for _, cr := range in.Config.Reviewers {
		// G20: the name is a folder of the round; never a path.
		if err := config.CheckName(cr.Name); err != nil {
			return nil, exitcode.New(exitcode.Config, fmt.Sprintf("stdin: /config/reviewers: %q is not a reviewer name (G20): %v", cr.Name, err))
		}
		run, ok := runs[cr.Name]
		if !ok {
			return nil, fmt.Errorf("no run for reviewer %q in the envelope", cr.Name)
		}
		res, hasRes := results[cr.Name]
		r := round.Reviewer{
			Name:           cr.Name,
			Preset:         cr.Preset,
			Isolation:      cr.Isolation,
			Required:       cr.Required,
			Status:         run.Status,
			Reason:         run.Reason,
			Model:          run.Model,
			FallbackModel:  cr.FallbackModel,
			Effort:         run.Effort,
			ObservedModel:  run.ObservedModel,
			Version:        run.Version,
			TimeoutSeconds: run.TimeoutSeconds,
			Attempts:       nonNil(run.Attempts),
			Resets:         run.Resets,
			Warnings:       nonNil(run.Warnings),
			CompletedIn:    run.CompletedIn,
			RunStatus:      run.Status,
			RunReason:      run.Reason,
			Tools:          run.Tools,
			Sandbox:        run.Sandbox,
			Env:            run.Env,
			RecordedFrom:   run.RecordedFrom,
		}
		if r.Model == nil {
			r.Model = cr.Model
		}
		if r.Effort == nil {
			r.Effort = cr.Effort
		}
		if r.TimeoutSeconds == 0 {
			r.TimeoutSeconds = cr.TimeoutSeconds
		}
		if t, ok := standpoint[cr.Name]; ok {
			t := t
			r.Standpoint = &t
		}
		if hasRes {
			r.Status, r.Reason = res.Status, res.Reason
			r.Verdict = res.Verdict
			if res.Standpoint != nil {
				r.Standpoint = res.Standpoint
			}
			r.StandpointReport = res.StandpointReport
			if len(res.Result) > 0 && string(res.Result) != "null" {
				var c checked
				if err := json.Unmarshal(res.Result, &c); err != nil {
					return nil, fmt.Errorf("results[%s].result: %v", cr.Name, err)
				}
				r.AnglesChecked, r.AnglesUnchecked, r.Limits = c.AnglesChecked, c.AnglesUnchecked, c.Limits
			}
		}
		if r.Status == "completed" {
			r.Reason = ""
		}
		rec.Reviewers = append(rec.Reviewers, r)
	}
	rec.StandpointsUncovered = uncovered(rec)
	rec.SumUsage() // usage totals from the attempts (docs/review-round.md §7.1)
	// The cap decided before the reviewers ran, settled by what they did
	// (docs/review-round.md §8.6: a round in which no reviewer could start
	// is not counted).
	rec.Cap = series.Settle(rec.Cap, rec.DryRun, rec.Reviewers)
	return rec, nil
}

// countFindings sets round.json's counts per class and per reviewer.
func countFindings(rec *round.Record, findings []envelope.Finding) {
	perReviewer := map[string]int{}
	for _, f := range findings {
		perReviewer[f.Reviewer]++
	}
	rec.Counts = summary.CountClasses(findings)
	for i := range rec.Reviewers {
		rec.Reviewers[i].Findings = perReviewer[rec.Reviewers[i].Name]
	}
}

// uncovered is standpoints_uncovered: reviewers with a standpoint and no
// completed review of this input (a rerun's kept reviewers are covered).
func uncovered(rec *round.Record) []string {
	covered := map[string]bool{}
	for _, r := range rec.Reviewers {
		if r.Status == "completed" || r.CompletedIn != nil {
			covered[r.Name] = true
		}
	}
	out := []string{}
	for _, s := range rec.Standpoints {
		if !covered[s.Reviewer] {
			out = append(out, s.Reviewer)
		}
	}
	return out
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
