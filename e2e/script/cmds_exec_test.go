package script

// Script commands of the exec scripts (registered in cmds_test.go): a repository
// with two commits and a hand-written spar-exec input envelope.

import (
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/packet"
	"github.com/rogpeppe/go-internal/testscript"
)

// execenv [-series S] [-out NAME] [-stage ST] [-cap N] [-dry] [-decision TEXT] ENV REVIEWERS
//
// Builds $WORK/repo (once) with a base and a head commit (its ID also in
// $WORK/repo.head, for FAKE_HEAD_FILE), then writes ENV:
// a spar-pipe/v1 envelope with config (reviewers from the JSON array in the
// file REVIEWERS, $WORK and $FAKEBIN expanded; timeout_seconds defaults to 30), run
// (out $WORK/SERIES/NAME, the changes from base to head; with -decision, a
// decision of that text, which makes another packet) and packet: the one
// spar-packet builds from them (lib/packet Build), since spar-exec builds
// it again and refuses any other (docs/trust.md).
func cmdExecEnv(ts *testscript.TestScript, neg bool, args []string) {
	fs := flag.NewFlagSet("execenv", flag.ContinueOnError)
	seriesName := fs.String("series", "reviews", "")
	out := fs.String("out", "code-1", "")
	stage := fs.String("stage", "code", "")
	capN := fs.Int("cap", 3, "")
	dry := fs.Bool("dry", false, "")
	decisionText := fs.String("decision", "", "")
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
	}
	seriesDir := filepath.Join(work, *seriesName)
	config := map[string]any{
		"source":   map[string]any{"kind": "default", "path": "", "skipped": []string{}, "note": ""},
		"override": nil, "choices": []any{}, "configured_required": []any{}, "files": []any{},
		"reviewers":   reviewers,
		"angles":      []string{"requirement-counterexample", "side-effects", "design", "premises", "check-validity"},
		"caps":        map[string]int{"plan": 1, "plan_delta": 1, "code": *capN},
		"check_paths": []string{}, "rules": []string{}, "digest": strings.Repeat("0", 64),
	}
	var cfg envelope.Config
	if b, err := json.Marshal(config); err != nil || json.Unmarshal(b, &cfg) != nil {
		ts.Fatalf("execenv: the configuration does not read as envelope.Config: %v", err)
	}
	changes, _, err := packet.Changes(repo, base, head, nil, nil)
	if err != nil {
		ts.Fatalf("execenv: %v", err)
	}
	run := &envelope.Run{
		Repo: repo, Stage: *stage, Base: base, Head: head,
		Out: filepath.Join(seriesDir, *out), Series: seriesDir, Name: *out, DryRun: *dry,
		CheckPaths: []string{}, Documents: []envelope.Document{}, CriteriaIDs: []string{},
		Decisions: []envelope.Decision{}, Standpoints: []envelope.Standpoint{}, Changes: changes,
	}
	if *decisionText != "" {
		run.Decisions = append(run.Decisions, envelope.Decision{Decision: *decisionText, Quote: "as the user said"})
	}
	env := map[string]any{
		"schema": "spar-pipe/v1",
		"config": config,
		"run":    run,
		"packet": packet.Build(run, &cfg),
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
