// Package transcript reads a Claude Code transcript (JSON Lines) of the
// host's native reviewer for `spar record --transcript` (G15): the final
// message (the result), the model the output states (G12) and the warnings.
// A warning keeps only its kind and the tool name, never a path or content.
package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/jaekit/spar/lib/envelope"
)

// Warning kinds (G15).
const (
	// KindToolNotAllowed: a tool outside the allowed ones (Read, Grep, Glob).
	KindToolNotAllowed = "tool_not_allowed"
	// KindHostTool: a tool the host added (an MCP tool, mcp__*).
	KindHostTool = "host_tool"
	// KindHostContext: context the host added (system entries, attachments,
	// meta user entries, <system-reminder> text).
	KindHostContext = "host_context"
	// KindPromptNotRead: no Read of the reviewer's prompt.md.
	KindPromptNotRead = "prompt_not_read"
	// KindOutsideWorkspace: Read file_path, Grep or Glob path outside the
	// native workspace and prompt.md ("the subagent read outside the native
	// workspace with <tool>").
	KindOutsideWorkspace = "outside_workspace"
)

// Allowed are the tools a native reviewer may use: read and search only.
var Allowed = []string{"Read", "Grep", "Glob"}

// Transcript is what spar keeps of a transcript.
type Transcript struct {
	// Final is the text of the last assistant message; HasFinal is false
	// when the transcript has none.
	Final    string
	HasFinal bool
	// Model is the model the last assistant message states, or nil (G12).
	Model    *string
	Warnings []envelope.Warning
}

type entry struct {
	Type       string          `json:"type"`
	Cwd        *string         `json:"cwd"`
	IsMeta     bool            `json:"isMeta"`
	Message    json.RawMessage `json:"message"`
	Subtype    string          `json:"subtype"`
	Attachment *struct {
		Type string `json:"type"`
	} `json:"attachment"`
}

// framing are the attachment types Claude Code (2.1.328) writes into every
// subagent's transcript whatever the host's configuration: the CLI's own
// description of the session (environment, date, model, the system prompt
// it sent, the lists of its built-in tools, agents and skills, and in a Git
// repository its git status: branch, clean or not, recent commits). They
// are not context the host's configuration added (G15): a warning on every
// native review would say nothing, so they are none. Any other attachment
// is one: the host's CLAUDE.md files (instructions, nested_memory), hook
// output, and every type this list does not know.
var framing = map[string]bool{
	"environment":           true,
	"date":                  true,
	"model":                 true,
	"prompt_snapshot":       true,
	"deferred_tools_delta":  true,
	"agent_listing_delta":   true,
	"skill_listing":         true,
	"remote_session_change": true,
	"session_context":       true,
}

type message struct {
	ID      string          `json:"id"`
	Role    string          `json:"role"`
	Model   string          `json:"model"`
	Content json.RawMessage `json:"content"`
}

type block struct {
	Type  string          `json:"type"`
	Text  string          `json:"text"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

// Read reads the transcript at path. workspace is the native workspace
// folder and prompt the reviewer's prompt.md, both absolute; asked are the
// other files prompt.md tells the subagent to read (the round's packet.md
// and schema.json): reading them is never a warning (docs/pipeline.md
// §8, G15 warnings). An unreadable transcript (the file cannot be read, or a line is not
// a JSON object) is an error: spar record refuses it.
func Read(path, workspace, prompt string, asked ...string) (*Transcript, error) {
	data, err := ReadFile(path, TranscriptCap)
	if err != nil {
		return nil, err
	}
	t := &Transcript{}
	seen := map[envelope.Warning]bool{}
	warn := func(kind, tool string) {
		w := envelope.Warning{Kind: kind, Tool: tool}
		if !seen[w] {
			seen[w] = true
			t.Warnings = append(t.Warnings, w)
		}
	}
	promptRead := false
	var finalID string
	var finalParts []string
	lines := bytes.Split(data, []byte("\n"))
	for i, l := range lines {
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		var e entry
		if err := json.Unmarshal(l, &e); err != nil {
			return nil, fmt.Errorf("line %d: not a JSON object: %v", i+1, err)
		}
		if !bytes.HasPrefix(bytes.TrimSpace(l), []byte("{")) {
			return nil, fmt.Errorf("line %d: not a JSON object", i+1)
		}
		switch e.Type {
		case "system":
			warn(KindHostContext, "")
			continue
		case "attachment":
			if e.Attachment == nil || !framing[e.Attachment.Type] {
				warn(KindHostContext, "")
			}
			continue
		case "user", "assistant":
		default:
			continue // summaries, file-history snapshots and the like
		}
		var m message
		if len(e.Message) > 0 && string(e.Message) != "null" {
			if err := json.Unmarshal(e.Message, &m); err != nil {
				return nil, fmt.Errorf("line %d: message: %v", i+1, err)
			}
		}
		blocks, text := contentOf(m.Content)
		if e.Type == "user" {
			if e.IsMeta || strings.Contains(text, "<system-reminder>") {
				warn(KindHostContext, "")
			}
			for _, bl := range blocks {
				if bl.Type == "text" && strings.Contains(bl.Text, "<system-reminder>") {
					warn(KindHostContext, "")
				}
			}
			continue
		}
		var texts []string
		for _, bl := range blocks {
			switch bl.Type {
			case "text":
				texts = append(texts, bl.Text)
			case "tool_use":
				if inWorkspaceCheck(bl, e.Cwd, workspace, prompt, asked, &promptRead) {
					warn(KindOutsideWorkspace, bl.Name)
				}
				switch {
				case strings.HasPrefix(bl.Name, "mcp__"):
					warn(KindHostTool, bl.Name)
				case !allowed(bl.Name):
					warn(KindToolNotAllowed, bl.Name)
				}
			}
		}
		if text != "" {
			texts = append(texts, text)
		}
		if len(texts) > 0 {
			// Claude Code writes one line per content block: the final
			// message is every text block of the last assistant message.
			if m.ID == "" || m.ID != finalID {
				finalParts = nil
			}
			finalID = m.ID
			finalParts = append(finalParts, texts...)
			t.HasFinal = true
			if m.Model != "" {
				model := m.Model
				t.Model = &model
			} else {
				t.Model = nil
			}
		}
	}
	if !promptRead {
		warn(KindPromptNotRead, "")
	}
	t.Final = strings.TrimSpace(strings.Join(finalParts, "\n"))
	return t, nil
}

// contentOf splits a message's content: a list of blocks, or a plain string.
func contentOf(raw json.RawMessage) ([]block, string) {
	if len(raw) == 0 {
		return nil, ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return nil, s
	}
	var bs []block
	if json.Unmarshal(raw, &bs) == nil {
		return bs, ""
	}
	return nil, ""
}

func allowed(name string) bool {
	for _, a := range Allowed {
		if a == name {
			return true
		}
	}
	return false
}

// inWorkspaceCheck reports whether a Read, Grep or Glob call points outside
// the workspace, prompt.md and the asked files, and notes a Read of
// prompt.md. A relative
// path or no path is resolved against the entry's cwd; without a cwd it is
// outside (G15).
func inWorkspaceCheck(bl block, cwd *string, workspace, prompt string, asked []string, promptRead *bool) bool {
	var key string
	switch bl.Name {
	case "Read":
		key = "file_path"
	case "Grep", "Glob":
		key = "path"
	default:
		return false
	}
	var in map[string]any
	_ = json.Unmarshal(bl.Input, &in)
	p, _ := in[key].(string)
	if !filepath.IsAbs(p) {
		if cwd == nil || *cwd == "" || !filepath.IsAbs(*cwd) {
			return true
		}
		p = filepath.Join(*cwd, p)
	}
	p = filepath.Clean(p)
	if bl.Name == "Read" && samePath(p, prompt) {
		*promptRead = true
		return false
	}
	if samePath(p, prompt) {
		return false
	}
	for _, a := range asked {
		if samePath(p, a) {
			return false
		}
	}
	return !under(p, workspace)
}

func samePath(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ra == rb
}

// under reports whether p is dir or inside it, also after resolving
// symbolic links of both (a link inside the workspace that leaves it is
// outside).
func under(p, dir string) bool {
	within := func(p, dir string) bool {
		rel, err := filepath.Rel(dir, p)
		return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
	}
	rd, err := filepath.EvalSymlinks(dir)
	if err != nil {
		rd = filepath.Clean(dir)
	}
	if rp, err := filepath.EvalSymlinks(p); err == nil {
		return within(rp, rd)
	}
	return within(filepath.Clean(p), filepath.Clean(dir)) || within(filepath.Clean(p), rd)
}
