package packet

import (
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/jaekit/spar/lib/envelope"
)

// The packet travels in the envelope from the stage that builds it to the
// stage that hands it to the reviewers, and the agent under review can edit
// it on the way (docs/trust.md "Follow-up rounds and repeats"). The stage
// that writes the round builds it again from the envelope's run and
// configuration with Build, and refuses any difference (Verify); what run
// itself holds that the repository gives is taken again first (CheckRun).

// JSONText is s as it reads after a trip through JSON (encoding/json, which
// the envelope and every record use): each byte that is not part of valid
// UTF-8 becomes U+FFFD. A path from git may hold such bytes; the packet's
// text is JSONText throughout, so that the text a later stage reads (and
// packet.md, written from it) has the sha256 Build gave it.
func JSONText(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// CheckRun holds the parts of run that follow from other parts of it, or
// from the repository, to what they follow from: the series and the round's
// name are run.out's parent folder and base name, and the changed files
// (run.changes, run.excluded) are what git gives from base to head with
// run's check paths and exclude, the configuration's exclude globs
// (Changes). The packet shows each of them; an error says which differs.
func CheckRun(run *envelope.Run, exclude []string) error {
	const edited = ": the envelope's run was edited after it was built; run the round again"
	if filepath.Dir(run.Out) != run.Series || filepath.Base(run.Out) != run.Name {
		return fmt.Errorf("run.series %q and run.name %q are not the parent folder and the name of run.out %q"+edited, run.Series, run.Name, run.Out)
	}
	changes, excluded, err := Changes(run.Repo, run.Base, run.Head, run.CheckPaths, exclude)
	if err != nil {
		var rf *Refusal
		if errors.As(err, &rf) {
			return err
		}
		return fmt.Errorf("the changed files cannot be taken again from git: %w", err)
	}
	for i := range changes {
		changes[i].Path, changes[i].OldPath = JSONText(changes[i].Path), JSONText(changes[i].OldPath)
	}
	for i := range excluded {
		excluded[i] = JSONText(excluded[i])
	}
	if d := changesDiffer(run.Changes, changes); d != "" {
		return fmt.Errorf("run.changes is not the change git gives from base to head (%s)"+edited, d)
	}
	if d := pathsDiffer(run.Excluded, excluded); d != "" {
		return fmt.Errorf("run.excluded is not what the exclude globs leave out of the change from base to head (%s)"+edited, d)
	}
	// The packet's "## The base of this round" is git's, never the
	// envelope's: a replay section written into run would put the
	// agent's words before the reviewers.
	if want := ReplayOf(run.Repo, run.Stage, run.Base); !reflect.DeepEqual(run.Replay, want) {
		return fmt.Errorf("run.replay is not what git gives for the base %s (%s)"+edited, run.Base, replayWords(want))
	}
	return nil
}

func replayWords(r *envelope.ReplayBase) string {
	if r == nil {
		return "no replay commit"
	}
	return fmt.Sprintf("the replay of %s onto %s, conflicts %q", r.Reviewed, r.Onto, r.Conflicts)
}

// changesDiffer names the first difference between the changes run lists
// (got) and the ones git gives (want); "" when they are the same.
func changesDiffer(got, want []envelope.Change) string {
	for i := 0; i < len(got) || i < len(want); i++ {
		switch {
		case i >= len(got):
			return fmt.Sprintf("%d changed files listed, git gives %d: %s is missing", len(got), len(want), showChange(want[i]))
		case i >= len(want):
			return fmt.Sprintf("%d changed files listed, git gives %d: %s is not changed", len(got), len(want), showChange(got[i]))
		case got[i] != want[i]:
			return fmt.Sprintf("item %d is %s, git gives %s", i, showChange(got[i]), showChange(want[i]))
		}
	}
	return ""
}

func showChange(c envelope.Change) string {
	s := fmt.Sprintf("%s %q +%d -%d", c.Status, c.Path, c.Added, c.Deleted)
	if c.OldPath != "" {
		s += fmt.Sprintf(" from %q", c.OldPath)
	}
	if c.CheckPath {
		s += " in check paths"
	}
	return s
}

func pathsDiffer(got, want []string) string {
	for i := 0; i < len(got) || i < len(want); i++ {
		switch {
		case i >= len(got):
			return fmt.Sprintf("%q is missing", want[i])
		case i >= len(want):
			return fmt.Sprintf("%q is not left out", got[i])
		case got[i] != want[i]:
			return fmt.Sprintf("item %d is %q, not %q", i, got[i], want[i])
		}
	}
	return ""
}

// Verify builds the packet again from run and cfg with Build and returns
// an error naming the first part of pkt that differs: packet.markdown (its
// first line that differs), packet.sha256, packet.schema, packet.inputs
// (one per reviewer of cfg: reviewer, preset, text, files, prompt_file).
// run must hold what packet.md shows of a follow-up beside run.follow_up,
// which the envelope does not carry (the earlier findings with their
// decisions, the diff since the last reviewed head): lib/followup.Check
// fills them in from the series.
func Verify(pkt *envelope.Packet, run *envelope.Run, cfg *envelope.Config) error {
	if err := verify(pkt, run, cfg); err != nil {
		if run.FollowUp != nil && !run.FollowUp.Full {
			return fmt.Errorf("%w: the envelope's packet was edited after it was built, or a decision of an earlier round was recorded since; run the round again", err)
		}
		return fmt.Errorf("%w: the envelope's packet was edited after it was built; run the round again", err)
	}
	return nil
}

func verify(pkt *envelope.Packet, run *envelope.Run, cfg *envelope.Config) error {
	want := Build(run, cfg)
	if pkt.Markdown != want.Markdown {
		return fmt.Errorf("packet.markdown is not the text run and config build (%s)", textDiffer(pkt.Markdown, want.Markdown))
	}
	if pkt.SHA256 != want.SHA256 {
		return fmt.Errorf("packet.sha256 %q is not the sha256 of packet.markdown (%s)", clip(pkt.SHA256, 80), want.SHA256)
	}
	if pkt.Schema != want.Schema {
		kind := "without"
		if len(run.Standpoints) > 0 {
			kind = "with"
		}
		return fmt.Errorf("packet.schema is not the result schema of a round %s standpoints (%s)", kind, textDiffer(pkt.Schema, want.Schema))
	}
	if len(pkt.Inputs) != len(want.Inputs) {
		return fmt.Errorf("packet.inputs holds %d inputs, not one for each of the %d reviewers of config.reviewers", len(pkt.Inputs), len(want.Inputs))
	}
	for i := range want.Inputs {
		if d := inputDiffers(pkt.Inputs[i], want.Inputs[i]); d != "" {
			return fmt.Errorf("packet.inputs[%d] (reviewer %q) is not the input run and config build: %s", i, want.Inputs[i].Reviewer, d)
		}
	}
	return nil
}

func inputDiffers(got, want envelope.Input) string {
	switch {
	case got.Reviewer != want.Reviewer:
		return fmt.Sprintf("it is for the reviewer %q", clip(got.Reviewer, 80))
	case got.Preset != want.Preset:
		return fmt.Sprintf("its preset is %q, not %q", clip(got.Preset, 80), want.Preset)
	case got.Text != want.Text:
		return "its text differs (" + textDiffer(got.Text, want.Text) + ")"
	case got.PromptFile != want.PromptFile:
		return fmt.Sprintf("its prompt_file is %q, not %q", clip(got.PromptFile, 200), want.PromptFile)
	case len(got.Files) != len(want.Files):
		return fmt.Sprintf("it has %d files, not %d", len(got.Files), len(want.Files))
	}
	for j := range want.Files {
		g, w := got.Files[j], want.Files[j]
		if g.Name != w.Name {
			return fmt.Sprintf("its file %d is %q, not %q", j, clip(g.Name, 80), w.Name)
		}
		if g.Text != w.Text {
			return fmt.Sprintf("its file %s differs (%s)", w.Name, textDiffer(g.Text, w.Text))
		}
	}
	return ""
}

// lineShown bounds each line a difference quotes.
const lineShown = 120

// textDiffer names the first line where got and want differ, quoting both
// (each without its newline, cut at lineShown bytes; with it when only the
// newline differs).
func textDiffer(got, want string) string {
	g, w := strings.SplitAfter(got, "\n"), strings.SplitAfter(want, "\n")
	show := func(a, b string) (string, string) {
		sa, sb := clip(strings.TrimSuffix(a, "\n"), lineShown), clip(strings.TrimSuffix(b, "\n"), lineShown)
		if sa == sb {
			return clip(a, lineShown), clip(b, lineShown)
		}
		return sa, sb
	}
	for i := 0; ; i++ {
		switch {
		case i >= len(g) && i >= len(w):
			return "the same lines"
		case i >= len(g):
			_, sw := show("", w[i])
			return fmt.Sprintf("it ends after line %d, the rebuilt text has line %d %q", len(g), i+1, sw)
		case i >= len(w):
			sg, _ := show(g[i], "")
			return fmt.Sprintf("line %d is %q, the rebuilt text ends after line %d", i+1, sg, len(w))
		case g[i] != w[i]:
			sg, sw := show(g[i], w[i])
			return fmt.Sprintf("line %d is %q, the rebuilt text has %q", i+1, sg, sw)
		}
	}
}
