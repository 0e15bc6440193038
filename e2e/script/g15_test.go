package script

// Audit of row G15 (native transcript) through its
// consumers: spar record --transcript and the warnings in round.json (and
// summary.md, which shows them). Every warning kind, paths resolved against
// the entry's cwd, an entry without cwd, and every unreadable transcript
// (refused, nothing written).

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestG15_Transcript_SparRecord(t *testing.T) {
	t.Parallel()
	a := auditBaseRepo(t)
	res := auditResultWith(a.head7, nil)
	out := filepath.Join(a.root, "reviews", "g15", "code-1")
	ws := filepath.Join(out, "workspace")
	secret := "/etc/audit-secret-path"

	type ev = map[string]any
	cwd := func(e ev, dir string) ev { e["cwd"] = dir; return e }
	tool := func(name string, input ev) ev {
		return ev{"type": "assistant", "message": ev{"id": "m-" + name, "role": "assistant", "model": "claude-native",
			"content": []any{ev{"type": "tool_use", "name": name, "input": input}}}}
	}
	final := ev{"type": "assistant", "cwd": ws, "message": ev{"id": "fin", "role": "assistant", "model": "claude-native",
		"content": []any{ev{"type": "text", "text": res}}}}
	readPrompt := func(name string) ev {
		return cwd(tool("Read", ev{"file_path": filepath.Join(out, name, "prompt.md")}), ws)
	}
	type warn struct {
		Kind string `json:"kind"`
		Tool string `json:"tool,omitempty"`
	}
	cases := []struct {
		name    string
		entries func(name string) []ev
		want    []warn
	}{
		{"clean", func(n string) []ev {
			return []ev{readPrompt(n),
				cwd(tool("Read", ev{"file_path": "head/app/main.go"}), ws),                    // relative: against cwd
				cwd(tool("Grep", ev{"pattern": "x", "path": "head"}), ws),                     // relative
				cwd(tool("Glob", ev{"pattern": "*.go"}), ws),                                  // no path: the cwd
				cwd(tool("Read", ev{"file_path": filepath.Join(ws, "base/app/main.go")}), ""), // absolute needs no cwd
				final}
		}, []warn{}},
		{"prompt-relative", func(n string) []ev {
			return []ev{cwd(tool("Read", ev{"file_path": "../" + n + "/prompt.md"}), ws), final}
		}, []warn{}},
		{"tool-not-allowed", func(n string) []ev {
			return []ev{readPrompt(n), cwd(tool("Bash", ev{"command": "cat " + secret}), ws), cwd(tool("Write", ev{"file_path": "x"}), ws), final}
		}, []warn{{"tool_not_allowed", "Bash"}, {"tool_not_allowed", "Write"}}},
		{"host-tool", func(n string) []ev {
			return []ev{readPrompt(n), cwd(tool("mcp__host__search", ev{"q": "SECRET-CONTENT"}), ws), final}
		}, []warn{{"host_tool", "mcp__host__search"}}},
		{"host-context-system", func(n string) []ev {
			return []ev{{"type": "system", "subtype": "hook", "content": "SECRET-CONTENT"}, readPrompt(n), final}
		}, []warn{{"host_context", ""}}},
		{"host-context-meta", func(n string) []ev {
			return []ev{{"type": "user", "isMeta": true, "cwd": ws, "message": ev{"role": "user", "content": "SECRET-CONTENT"}}, readPrompt(n), final}
		}, []warn{{"host_context", ""}}},
		{"host-context-reminder", func(n string) []ev {
			return []ev{{"type": "user", "cwd": ws, "message": ev{"role": "user", "content": "<system-reminder>SECRET-CONTENT</system-reminder>"}}, readPrompt(n), final}
		}, []warn{{"host_context", ""}}},
		{"prompt-not-read", func(n string) []ev {
			return []ev{cwd(tool("Read", ev{"file_path": "head/app/main.go"}), ws), final}
		}, []warn{{"prompt_not_read", ""}}},
		{"outside-absolute", func(n string) []ev {
			return []ev{readPrompt(n), cwd(tool("Read", ev{"file_path": secret}), ws), cwd(tool("Grep", ev{"pattern": "x", "path": "/"}), ws), final}
		}, []warn{{"outside_workspace", "Read"}, {"outside_workspace", "Grep"}}},
		{"outside-relative", func(n string) []ev {
			return []ev{readPrompt(n), cwd(tool("Glob", ev{"pattern": "*", "path": "../.."}), ws), final}
		}, []warn{{"outside_workspace", "Glob"}}},
		{"outside-cwd", func(n string) []ev {
			// No path: the cwd, here outside the workspace.
			return []ev{readPrompt(n), cwd(tool("Grep", ev{"pattern": "x"}), a.repo), final}
		}, []warn{{"outside_workspace", "Grep"}}},
		{"no-cwd-relative", func(n string) []ev {
			return []ev{readPrompt(n), tool("Read", ev{"file_path": "head/app/main.go"}), final}
		}, []warn{{"outside_workspace", "Read"}}},
		{"no-cwd-no-path", func(n string) []ev {
			return []ev{readPrompt(n), tool("Glob", ev{"pattern": "*.go"}), final}
		}, []warn{{"outside_workspace", "Glob"}}},
	}
	var toml strings.Builder
	for _, c := range cases {
		toml.WriteString(auditReviewerTOML(c.name, "native", ""))
	}
	a.auditRun("g15", toml.String())
	roundPath := filepath.Join(out, "round.json")

	// Unreadable transcripts: refused (65), nothing written.
	before, err := os.ReadFile(roundPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(a.root, "t-folder.jsonl"), 0o755); err != nil {
		t.Fatal(err)
	}
	unreadable := map[string]string{
		"t-missing.jsonl":    "",
		"t-folder.jsonl":     "",
		"t-notjson.jsonl":    jsonLine(readPrompt("clean")) + "not json\n",
		"t-array.jsonl":      "[1, 2]\n",
		"t-string.jsonl":     "\"text\"\n",
		"t-null.jsonl":       "null\n",
		"t-nofinal.jsonl":    jsonLine(readPrompt("clean")),
		"t-badmessage.jsonl": `{"type":"assistant","message":"not a message"}` + "\n",
	}
	for f, text := range unreadable {
		p := filepath.Join(a.root, f)
		if text != "" {
			a.write(f, text, 0o644)
		}
		_, errs, code := a.spar("record", out, "--reviewer", "clean", "--transcript", p)
		if code != 65 || !strings.Contains(errs, fmt.Sprintf("refused: transcript %q cannot be read", p)) {
			t.Errorf("G15 unreadable %s: exit %d, stderr %q; want 65 and the refusal", f, code, errs)
		}
		if after, _ := os.ReadFile(roundPath); !bytes.Equal(before, after) {
			t.Errorf("G15 unreadable %s: round.json changed", f)
		}
	}

	for _, c := range cases {
		var b strings.Builder
		for _, e := range c.entries(c.name) {
			b.WriteString(jsonLine(e))
		}
		p := a.write(filepath.Join("transcripts", c.name+".jsonl"), b.String(), 0o644)
		a.mustSpar("record", out, "--reviewer", c.name, "--transcript", p)
	}
	var rec struct {
		Reviewers []struct {
			Name     string          `json:"name"`
			Status   string          `json:"status"`
			Warnings json.RawMessage `json:"warnings"`
		} `json:"reviewers"`
	}
	readJSON(t, roundPath, &rec)
	got := map[string]json.RawMessage{}
	for _, r := range rec.Reviewers {
		if r.Status != "completed" {
			t.Errorf("G15 %s: status %s", r.Name, r.Status)
		}
		got[r.Name] = r.Warnings
	}
	summary, err := os.ReadFile(filepath.Join(out, "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if w := auditJSON(c.want); compact(string(got[c.name])) != w {
			t.Errorf("G15 %s: round.json warnings %s, want %s", c.name, got[c.name], w)
		}
		sec := summarySection(string(summary), c.name)
		for _, w := range c.want {
			s := w.Kind
			if w.Tool != "" {
				s += " (" + w.Tool + ")"
			}
			if !strings.Contains(sec, s) {
				t.Errorf("G15 %s: summary.md does not show the warning %s:\n%s", c.name, s, sec)
			}
		}
	}
	// A warning keeps only its kind and the tool name, never a path or
	// content: nothing of the transcripts' inputs is in any record.
	for _, f := range []string{"round.json", "summary.md", "findings.json"} {
		b, err := os.ReadFile(filepath.Join(out, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []string{secret, "SECRET-CONTENT", "system-reminder"} {
			if bytes.Contains(b, []byte(s)) {
				t.Errorf("G15: %s holds %q from a transcript", f, s)
			}
		}
	}
}
