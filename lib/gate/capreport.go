package gate

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/jaekit/spar/lib/convergence"
	"github.com/jaekit/spar/lib/escape"
	"github.com/jaekit/spar/lib/round"
	"github.com/jaekit/spar/lib/series"
	"github.com/jaekit/spar/lib/summary"
)

// CapSchema is the schema of `spar cap-report --format json`.
const CapSchema = "spar-cap-report/v1"

// NoRecordedCause is how an extension line without cause and reason is
// shown (G32: lines from before causes were recorded, and plan and
// plan-delta extensions).
const NoRecordedCause = "no recorded cause"

// CapReport is what `spar cap-report SERIES` shows (G34, docs/review-gate.md §6).
type CapReport struct {
	Schema string        `json:"schema"`
	Series string        `json:"series"`
	Stages []StageReport `json:"stages"`
	Rounds []CapRound    `json:"rounds"`
	Growth []Growth      `json:"growth"`
	// Usage is the series' total of tokens and cost: the sum of the
	// stages' (docs/review-gate.md §6).
	Usage round.UsageTotal `json:"usage"`
	// Convergence is the loop's figures (lib/convergence): per counted
	// round new findings, repeats and confirmed fixes, the trend line, and
	// per reviewer how its findings were disposed.
	Convergence convergence.Report `json:"convergence"`
}

// StageReport is one stage: its cap (config.caps of the series' latest
// round; null when the series has no round), its extensions, the limit,
// the rounds counted and left, and its reruns.
type StageReport struct {
	Stage      string      `json:"stage"`
	Cap        *int        `json:"cap"`
	Extensions []Extension `json:"extensions"`
	Extended   int         `json:"extended"`
	Limit      *int        `json:"limit"`
	Counted    int         `json:"counted"`
	Left       *int        `json:"left"`
	Reruns     []string    `json:"reruns"`
	// Usage sums the attempts of every round of the stage whose round.json
	// reads: recorded rounds, reruns and stopped rounds alike (their
	// reviewers ran); dry runs ran nothing.
	Usage round.UsageTotal `json:"usage"`
}

// Extension is one extensions.jsonl line of the stage.
type Extension struct {
	By     int    `json:"by"`
	Cause  string `json:"cause"`  // NoRecordedCause when the line has neither cause nor reason
	Reason string `json:"reason"` // "" when none
	At     string `json:"at"`
}

// CapRound is one round of the series, in series order.
type CapRound struct {
	Name    string  `json:"name"`
	Stage   string  `json:"stage"`
	State   string  `json:"state"` // recorded, dry_run, stopped (before recording findings)
	Counted bool    `json:"counted"`
	Number  int     `json:"number"`
	RerunOf *string `json:"rerun_of"`
	// NotCounted is why a round its decision counted is not counted
	// (round.json's cap.not_counted: "no reviewer could start"); absent
	// otherwise.
	NotCounted *string `json:"not_counted,omitempty"`
	// Usage is the round's total (round.RecordUsage over its attempts).
	Usage round.UsageTotal `json:"usage"`
	// Spend is the round's spend against its budgets
	// (docs/review-round.md "Spend and budgets"); absent when no budget
	// applied to it.
	Spend *round.Spend `json:"spend,omitempty"`
}

// RefusalError is a cap-report refusal (65): the series does not exist, is
// not a folder, or holds a record G32 does not accept.
type RefusalError struct{ Msg string }

func (e *RefusalError) Error() string { return e.Msg }

// Caps builds the cap report of a series folder.
func Caps(dir string) (*CapReport, error) {
	fi, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &RefusalError{fmt.Sprintf("series %q does not exist", dir)}
	}
	if err != nil {
		return nil, &RefusalError{fmt.Sprintf("series %q: %v", dir, errText(err))}
	}
	if !fi.IsDir() {
		return nil, &RefusalError{fmt.Sprintf("series %q is not a folder", dir)}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	// A round folder, or a folder that is no series at all, would print an
	// empty report that reads like a series with nothing counted.
	if _, err := os.Lstat(filepath.Join(abs, round.RoundFile)); err == nil {
		return nil, &RefusalError{fmt.Sprintf("%q is a round, not a series; its series is %q", dir, filepath.Dir(filepath.Clean(dir)))}
	}
	rounds, _ := readSeries(abs, nil, nil, true)
	// An empty folder is a series with nothing yet (spar extend may start
	// one); a folder with other things in it and no round is not a series.
	if ents, _ := os.ReadDir(abs); len(rounds) == 0 && len(ents) > 0 &&
		!isFile(filepath.Join(abs, round.ExtensionFile)) && !isFile(filepath.Join(abs, round.LockFile)) {
		return nil, &RefusalError{fmt.Sprintf("%q is not a series: it holds no round and no extensions.jsonl (a series is the parent folder of spar run --out)", dir)}
	}
	return capReport(dir, abs, rounds)
}

// capReport is the cap report of the series folder dir (abs, its absolute
// path) whose rounds readSeries read whole (Caps; spar status passes the
// rounds its gate read, so that a status reads each round once).
func capReport(dir, abs string, rounds []*roundData) (*CapReport, error) {
	exts, err := round.ReadExtensions(abs)
	if err != nil {
		return nil, &RefusalError{fmt.Sprintf("series %q: %v", dir, err)}
	}
	rep := &CapReport{Schema: CapSchema, Series: dir, Stages: []StageReport{}, Rounds: []CapRound{}}
	var latest *round.Record
	for _, r := range rounds {
		if r.state == unreadable {
			return nil, &RefusalError{fmt.Sprintf("series %q: round %q is unreadable: %v", dir, r.name, r.err)}
		}
		latest = r.rec
		cr := CapRound{Name: r.name, Stage: r.rec.Stage, State: "recorded", RerunOf: r.rec.Cap.RerunOf}
		switch {
		case r.state == unfinished:
			cr.State = "stopped"
		case r.rec.DryRun:
			cr.State = "dry_run"
		default:
			cr.Counted = r.rec.Cap.Counted
			if cr.Counted {
				cr.Number = r.rec.Cap.Number
			} else {
				cr.NotCounted = r.rec.Cap.NotCounted
			}
		}
		// Usage comes from the attempts round.json keeps (not its stored
		// totals: a record from before them counts the same). A round read
		// by the fast reader alone (a dry run, a stopped round) has no
		// reviewers: its round.json is read whole.
		full := r.rec
		if !r.full {
			var err error
			if full, err = round.ReadRecord(r.abs); err != nil {
				return nil, &RefusalError{fmt.Sprintf("series %q: round %q is unreadable: %v", dir, r.name, pathFree(err))}
			}
		}
		cr.Usage = round.RecordUsage(full)
		if sp, ok := round.RecordSpend(full); ok {
			cr.Spend = &sp
		}
		rep.Rounds = append(rep.Rounds, cr)
	}
	rep.Usage = round.UsageTotal{Unstated: []string{}}
	for _, stage := range []string{"plan", "plan-delta", "code"} {
		st := StageReport{Stage: stage, Extensions: []Extension{}, Reruns: []string{}, Usage: round.UsageTotal{Unstated: []string{}}}
		for _, r := range rep.Rounds {
			if r.Stage == stage {
				st.Usage.Add(r.Usage)
			}
		}
		rep.Usage.Add(st.Usage)
		for _, e := range exts {
			if e.Stage != stage {
				continue
			}
			x := Extension{By: e.By, Cause: e.Cause, Reason: e.Reason, At: e.At}
			if e.Cause == "" && e.Reason == "" {
				x.Cause = NoRecordedCause
			}
			st.Extensions = append(st.Extensions, x)
			st.Extended = series.AddCapped(st.Extended, e.By)
		}
		for i, r := range rounds {
			if r.state != published || r.rec.DryRun || r.rec.Stage != stage {
				continue
			}
			if r.rec.Cap.Counted {
				st.Counted++
			} else if r.rec.Cap.RerunOf != nil {
				st.Reruns = append(st.Reruns, rep.Rounds[i].Name)
			}
		}
		if latest != nil {
			c, _ := series.CapOf(latest.Config.Caps, stage)
			limit := series.AddCapped(c, st.Extended)
			left := limit - st.Counted
			if left < 0 {
				left = 0
			}
			st.Cap, st.Limit, st.Left = &c, &limit, &left
		}
		rep.Stages = append(rep.Stages, st)
	}
	repo := ""
	if latest != nil {
		repo = latest.Repo
	}
	rep.Convergence = convergenceOf(convergenceRounds(rounds), repo)
	rep.Growth = measure(dir, rounds)
	if rep.Growth == nil {
		rep.Growth = []Growth{}
	}
	return rep, nil
}

// Markdown renders the report for people.
func (rep *CapReport) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Caps of %s\n\n", cell(rep.Series))
	b.WriteString("| stage | cap | extended | limit | counted | left | reruns |\n| --- | ---: | ---: | ---: | ---: | ---: | --- |\n")
	for _, s := range rep.Stages {
		reruns := "-"
		if len(s.Reruns) > 0 {
			reruns = strings.Join(s.Reruns, ", ")
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %s | %d | %s | %s |\n", s.Stage, intp(s.Cap), s.Extended, intp(s.Limit), s.Counted, intp(s.Left), cell(reruns))
	}
	// Usage and cost beside the caps (docs/review-round.md §7.4): the same cells as
	// summary.md's ## Usage table.
	b.WriteString("\n## Usage and cost\n\n")
	fmt.Fprintf(&b, "What the reviewers' output stated, summed over every round of the stage (reruns and stopped rounds included); %s: the output did not state it; (partial): some attempts did not state it; -: no attempt ran a program.\n\n", summary.NotStated)
	b.WriteString(summary.UsageHeader("stage"))
	for _, s := range rep.Stages {
		b.WriteString(summary.UsageRow(s.Stage, s.Usage))
	}
	b.WriteString(summary.UsageRow("all stages", rep.Usage))
	// Spend against the budgets, only for a series where one applied.
	var spent []CapRound
	for _, r := range rep.Rounds {
		if r.Spend != nil {
			spent = append(spent, r)
		}
	}
	if len(spent) > 0 {
		b.WriteString("\n## Spend against budgets\n\n")
		b.WriteString("What spar counted while the reviewers ran (docs/review-round.md \"Spend and budgets\"), per round with a budget.\n\n")
		for _, r := range spent {
			fmt.Fprintf(&b, "- %s: %s\n", cell(r.Name), cell(summary.SpendText(*r.Spend)))
		}
	}
	b.WriteString("\n## Extensions\n\n")
	n := 0
	for _, s := range rep.Stages {
		n += len(s.Extensions)
	}
	if n == 0 {
		b.WriteString("None.\n")
	} else {
		b.WriteString("| stage | by | cause | reason | at |\n| --- | ---: | --- | --- | --- |\n")
		for _, s := range rep.Stages {
			for _, e := range s.Extensions {
				fmt.Fprintf(&b, "| %s | %d | %s | %s | %s |\n", s.Stage, e.By, cell(orDash(e.Cause)), cell(orDash(e.Reason)), cell(orDash(e.At)))
			}
		}
	}
	b.WriteString("\n## Rounds\n\n")
	if len(rep.Rounds) == 0 {
		b.WriteString("None.\n")
	} else {
		b.WriteString("| round | stage | state | counted | rerun of |\n| --- | --- | --- | --- | --- |\n")
		for _, r := range rep.Rounds {
			counted := "no"
			if r.Counted {
				counted = fmt.Sprintf("yes (%d)", r.Number)
			} else if r.NotCounted != nil {
				counted = "no: " + cell(*r.NotCounted)
			}
			rerun := "-"
			if r.RerunOf != nil {
				rerun = *r.RerunOf
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", cell(r.Name), cell(r.Stage), r.State, counted, cell(rerun))
		}
	}
	b.WriteString("\n## The loop\n\n")
	if len(rep.Convergence.Rounds) == 0 {
		b.WriteString("No counted code round yet.\n")
	} else {
		fmt.Fprintf(&b, "%s.\n\n", cell(rep.Convergence.Trend))
		b.WriteString("| round | new findings | new defects | repeats | fixes confirmed |\n| --- | ---: | ---: | ---: | --- |\n")
		for _, r := range rep.Convergence.Rounds {
			fixes := "-"
			if len(r.FixesConfirmed) > 0 {
				fixes = strings.Join(r.FixesConfirmed, ", ")
			}
			fmt.Fprintf(&b, "| %s | %d | %d | %d | %s |\n", cell(r.Round), r.New, r.NewDefects, r.Repeats, cell(fixes))
		}
		if len(rep.Convergence.Reviewers) > 0 {
			b.WriteString("\nHow each reviewer's findings were disposed (the ledgers' deciding lines):\n\n")
			b.WriteString("| reviewer | findings | fixed | rejected | deferred | deferred automatically | duplicate | accepted | answered | open |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
			for _, rv := range rep.Convergence.Reviewers {
				fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %d | %d | %d | %d | %d |\n", cell(rv.Reviewer), rv.Findings, rv.Fixed, rv.Rejected, rv.Deferred, rv.AutoDeferred, rv.Duplicate, rv.Accepted, rv.Answered, rv.Open)
			}
		}
	}
	b.WriteString("\n## Growth of the code rounds\n\n")
	if len(rep.Growth) == 0 {
		b.WriteString("None.\n")
	} else {
		b.WriteString("| round | from | check paths: files | added | deleted | other: files | added | deleted |\n| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n")
		prev := ""
		for _, g := range rep.Growth {
			// The first code round grows from its base, each later one from
			// the previous code round's head (the JSON keeps the commits).
			from := "its base"
			if prev != "" {
				from = "head of " + prev
			}
			prev = g.Round
			if g.Error != "" {
				fmt.Fprintf(&b, "| %s | %s | not measured: %s ||||||\n", cell(g.Round), cell(from), cell(g.Error))
				continue
			}
			fmt.Fprintf(&b, "| %s | %s | %d | %d | %d | %d | %d | %d |\n", cell(g.Round), cell(from),
				g.CheckPaths.Files, g.CheckPaths.Added, g.CheckPaths.Deleted, g.Other.Files, g.Other.Added, g.Other.Deleted)
		}
	}
	return b.String()
}

func intp(p *int) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprint(*p)
}

func orDash(s string) string {
	if strings.TrimSpace(s) == "" {
		return "-"
	}
	return s
}

// cell keeps a value on one Markdown table row; any other control
// character is shown as its Go escape (escape.Controls).
func cell(s string) string {
	s = strings.ReplaceAll(s, "\\", "\\\\")
	s = strings.ReplaceAll(s, "|", "\\|")
	s = strings.ReplaceAll(s, "\r", " ")
	return escape.Controls(strings.ReplaceAll(s, "\n", " "))
}

func isFile(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.Mode().IsRegular()
}
