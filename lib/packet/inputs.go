package packet

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/standpoint"
)

// AgyArgLimit is the largest -p text (command note, instructions and the
// packet, in bytes) that agy receives with the packet inside it. Linux
// refuses a single argument over 128 KiB (MAX_ARG_STRLEN); 96 KiB leaves a
// margin. Over it the packet goes to <round>/<reviewer>/PACKET.md and -p
// names that file instead.
const AgyArgLimit = 96 * 1024

// File names written into <round>/<reviewer>/.
const (
	InputFile     = "input.md"  // standpoint rounds: exactly what the reviewer receives
	PromptFile    = "prompt.md" // native: the host subagent's instructions
	AgyPacketFile = "PACKET.md" // agy with a packet over AgyArgLimit
)

// Instruction is the preface claude, codex and agy get before the packet.
const Instruction = "You are a reviewer for spar. Review the change described in the packet below. The workspace holds read-only copies of the head commit (`head/`) and the base commit (`base/`): read them, change nothing. Answer with exactly one JSON object as the packet's \"How to report\" section says, and nothing else.\n"

// AgyNote is the command note at the front of agy's -p text (G10, G11).
const AgyNote = "Command note: you may only read files (read_file) and run read-only shell commands: ls, pwd, cat, head, tail, wc, stat, file, true, uniq, cut, tr, nl, grep, egrep, fgrep, rg, find, diff, sort and `sed -n`, joined only by |, &&, || and ;. No redirection (except 2>/dev/null and 2>&1), no command substitution, no variable or brace expansion, no other program. Any other tool or command ends your review as a tool violation.\n"

// StandpointInstruction is what a reviewer of a standpoint round gets
// about its own standpoint ("Standpoint delivery"): an assigned reviewer is
// told its standpoint and to attack that risk while still checking every
// angle; an unassigned reviewer is told to review the whole change.
func StandpointInstruction(text *string) string {
	if text == nil {
		return "You have no standpoint in this round: review the whole change, checking every angle the packet asks for. Give `standpoint_report` as null.\n"
	}
	var b strings.Builder
	b.WriteString("Your standpoint for this round is the risk below. Attack that risk in particular, while still checking every angle the packet asks for, and say in `standpoint_report` whether you could check it (`checked`) and what you checked or why you could not (`detail`).\n\n")
	fenced(&b, "text", verbatim(*text))
	return strings.TrimSuffix(b.String(), "\n")
}

// Inputs builds every reviewer's input, one per reviewer of the run in the
// applied order (config.reviewers). Without standpoints nothing depends on
// the standpoint feature: no input.md, no standpoint instruction.
func Inputs(run *envelope.Run, reviewers []envelope.Reviewer, md string) []envelope.Input {
	sp := len(run.Standpoints) > 0
	out := make([]envelope.Input, 0, len(reviewers))
	for _, r := range reviewers {
		in := envelope.Input{Reviewer: r.Name, Preset: r.Preset, Files: []envelope.NamedText{}, PromptFile: "packet.md"}
		// own is the standpoint instruction, set off by a blank line.
		own, spText := "", ""
		if sp {
			spText = StandpointInstruction(standpoint.For(run.Standpoints, r.Name))
			own = "\n" + spText
		}
		switch r.Preset {
		case envelope.PresetClaude, envelope.PresetCodex:
			in.Text = Instruction + own + "\n" + md
		case envelope.PresetAgy:
			inline := AgyNote + "\n" + Instruction + own + "\n" + md
			if len(inline) > AgyArgLimit {
				rel := r.Name + "/" + AgyPacketFile
				in.PromptFile = rel
				in.Text = AgyNote + "\n" + Instruction + own + "\n" +
					fmt.Sprintf("The packet is too large for this argument. Read it from the file `%s` before you review; it is the whole packet.\n", filepath.Join(run.Out, r.Name, AgyPacketFile))
				in.Files = append(in.Files, envelope.NamedText{Name: AgyPacketFile, Text: md})
			} else {
				in.Text = inline
			}
		case envelope.PresetNative:
			in.Text = NativePrompt(run) + own
			in.Files = append(in.Files, envelope.NamedText{Name: PromptFile, Text: in.Text})
		default: // command: the prompt file is the packet, or input.md in a standpoint round
			if sp {
				in.Text = spText + "\n" + md
				in.PromptFile = r.Name + "/" + InputFile
			} else {
				in.Text = md
			}
		}
		if sp {
			in.Files = append(in.Files, envelope.NamedText{Name: InputFile, Text: in.Text})
		}
		out = append(out, in)
	}
	return out
}

// NativePrompt is the fixed part of prompt.md for the host's subagent. It
// names the round's files by absolute path: the subagent reads packet.md
// and the two read-only copies, and answers with one JSON object. The
// copies are named under <round>/workspace here; spar-exec, which places
// the workspace (docs/review-round.md "The workspace"), writes prompt.md with NativePromptIn and
// the workspace's real path instead.
func NativePrompt(run *envelope.Run) string {
	return NativePromptIn(run, filepath.Join(run.Out, "workspace"))
}

// NativePromptIn is NativePrompt with the workspace at ws.
func NativePromptIn(run *envelope.Run, ws string) string {
	var b strings.Builder
	b.WriteString("# spar review\n\n")
	b.WriteString("You are the host's review subagent for spar. Do exactly this, and nothing else:\n\n")
	fmt.Fprintf(&b, "1. Read the packet %s.\n", code(filepath.Join(run.Out, "packet.md")))
	fmt.Fprintf(&b, "2. Inspect the head copy %s and the base copy %s read-only, with Read, Grep and Glob only. Change nothing, run nothing, and read nothing but this file, the packet, the schema and these two copies.\n", code(filepath.Join(ws, "head")), code(filepath.Join(ws, "base")))
	fmt.Fprintf(&b, "3. Answer with exactly one JSON object that follows %s and the packet's \"How to report\" section, and nothing else.\n", code(filepath.Join(run.Out, "schema.json")))
	return b.String()
}
