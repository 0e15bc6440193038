package script

// Script commands of the exec scripts (registered in cmds_test.go): a repository
// with two commits and a hand-written spar-exec input envelope.

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// execenv [-series S] [-out NAME] [-stage ST] [-cap N] [-dry] [-packet TEXT] ENV REVIEWERS
//
// Builds $WORK/repo (once) with a base and a head commit (its ID also in
// $WORK/repo.head, for FAKE_HEAD_FILE), then writes ENV:
// a spar-pipe/v1 envelope with config (reviewers from the JSON array in the
// file REVIEWERS, $WORK and $FAKEBIN expanded; timeout_seconds defaults to 30), run
// (out $WORK/SERIES/NAME) and packet (one input per reviewer).
func cmdExecEnv(ts *testscript.TestScript, neg bool, args []string) {
	fs := flag.NewFlagSet("execenv", flag.ContinueOnError)
	seriesName := fs.String("series", "reviews", "")
	out := fs.String("out", "code-1", "")
	stage := fs.String("stage", "code", "")
	capN := fs.Int("cap", 3, "")
	dry := fs.Bool("dry", false, "")
	packetText := fs.String("packet", "# Packet\n\nReview the change.\n", "")
	if err := fs.Parse(args); err != nil || fs.NArg() != 2 {
		ts.Fatalf("usage: execenv [flags] ENV REVIEWERS")
	}
	work := ts.Getenv("WORK")
	repo := filepath.Join(work, "repo")
	git := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL="+ts.Getenv("GIT_CONFIG_GLOBAL"), "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_DATE=2026-01-02T03:04:05Z", "GIT_COMMITTER_DATE=2026-01-02T03:04:05Z")
		b, err := cmd.CombinedOutput()
		if err != nil {
			ts.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, b)
		}
		return strings.TrimSpace(string(b))
	}
	if _, err := os.Stat(repo); err != nil {
		put := func(p, text string) {
			p = filepath.Join(repo, p)
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
				ts.Fatalf("%v", err)
			}
		}
		os.MkdirAll(repo, 0o755)
		git("init", "-q", "-b", "main")
		put("app/main.go", "package main\n\nfunc greet(name string) string { return \"hello \" + name }\n")
		put("README.md", "# app\n")
		git("add", "-A")
		git("commit", "-q", "-m", "base")
		git("tag", "base")
		put("app/main.go", "package main\n\nfunc greet(name string) string { return \"hello\" }\n")
		put("app/new.go", "package main\n")
		git("add", "-A")
		git("commit", "-q", "-m", "head")
		git("tag", "head")
	}
	base, head := git("rev-parse", "base"), git("rev-parse", "head")
	if err := os.WriteFile(filepath.Join(work, "repo.head"), []byte(head+"\n"), 0o644); err != nil {
		ts.Fatalf("%v", err)
	}

	var reviewers []map[string]any
	raw := strings.NewReplacer("$WORK", work, "$FAKEBIN", ts.Getenv("FAKEBIN")).Replace(ts.ReadFile(fs.Arg(1)))
	if err := json.Unmarshal([]byte(raw), &reviewers); err != nil {
		ts.Fatalf("%s: %v", fs.Arg(1), err)
	}
	var inputs []map[string]any
	for _, r := range reviewers {
		for _, k := range []string{"model", "fallback_model", "effort", "binary", "argv"} {
			if _, ok := r[k]; !ok {
				r[k] = nil
			}
		}
		if _, ok := r["timeout_seconds"]; !ok {
			r["timeout_seconds"] = 30
		}
		preset := r["preset"].(string)
		r["isolation"] = map[string]string{"native": "host", "command": "unverified"}[preset]
		if r["isolation"] == "" {
			r["isolation"] = "verified"
		}
		r["required"] = preset != "command"
		name := r["name"].(string)
		in := map[string]any{"reviewer": name, "preset": preset, "text": "Review for " + name + ".\n\n" + *packetText, "files": []any{}, "prompt_file": "packet.md"}
		if preset == "native" {
			in["files"] = []any{map[string]string{"name": "prompt.md", "text": "Native prompt for " + name + ".\n"}}
		}
		if preset == "command" {
			in["files"] = []any{map[string]string{"name": "input.md", "text": "Command input for " + name + ".\n"}}
			in["prompt_file"] = name + "/input.md"
		}
		inputs = append(inputs, in)
	}
	sum := sha256.Sum256([]byte(*packetText))
	seriesDir := filepath.Join(work, *seriesName)
	env := map[string]any{
		"schema": "spar-pipe/v1",
		"config": map[string]any{
			"source":   map[string]any{"kind": "default", "path": "", "skipped": []string{}, "note": ""},
			"override": nil, "choices": []any{}, "configured_required": []any{}, "files": []any{},
			"reviewers":   reviewers,
			"angles":      []string{"requirement-counterexample", "side-effects", "design", "premises", "check-validity"},
			"caps":        map[string]int{"plan": 1, "plan_delta": 1, "code": *capN},
			"check_paths": []string{}, "rules": []string{}, "digest": strings.Repeat("0", 64),
		},
		"run": map[string]any{
			"repo": repo, "stage": *stage, "base": base, "head": head,
			"out": filepath.Join(seriesDir, *out), "series": seriesDir, "name": *out, "dry_run": *dry,
			"check_paths": []string{}, "documents": []any{}, "criteria_ids": []string{}, "criteria_digest": "",
			"decisions": []any{}, "standpoints": []any{}, "changes": []any{},
		},
		"packet": map[string]any{
			"markdown": *packetText, "sha256": hex.EncodeToString(sum[:]),
			"schema": `{"type":"object"}` + "\n", "inputs": inputs,
		},
	}
	b, _ := json.MarshalIndent(env, "", "  ")
	if err := os.WriteFile(ts.MkAbs(fs.Arg(0)), append(b, '\n'), 0o644); err != nil {
		ts.Fatalf("%v", err)
	}
}

// gone PIDFILE: the process whose ID the file holds no longer runs (a
// zombie waiting for its reaper counts as gone: it runs nothing).
func cmdGone(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: gone PIDFILE")
	}
	pid := strings.TrimSpace(ts.ReadFile(args[0]))
	if pid == "" {
		ts.Fatalf("%s is empty", args[0])
	}
	running := true
	// A loaded machine delivers the kill late: look for up to 2 s.
	for i := 0; i < 40 && running; i++ {
		st, err := os.ReadFile("/proc/" + pid + "/stat")
		running = err == nil && !strings.Contains(string(st), ") Z ")
		if running && !neg {
			time.Sleep(50 * time.Millisecond)
		} else {
			break
		}
	}
	if running != neg {
		ts.Fatalf("process %s running=%v", pid, running)
	}
}

// waitfor FILE: wait up to 20 s until FILE exists and is not empty.
func cmdWaitFor(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 || neg {
		ts.Fatalf("usage: waitfor FILE")
	}
	for i := 0; i < 400; i++ {
		if fi, err := os.Stat(ts.MkAbs(args[0])); err == nil && fi.Size() > 0 {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	ts.Fatalf("%s did not appear", args[0])
}
