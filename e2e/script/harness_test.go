package script

// The harness of the audit tests of rows G1–G17
// (g*_test.go): a small repository with a base and a head commit, a
// user configuration, and the real driver `spar` (built by TestMain) run
// from the repository. The tests go through every command-line consumer a
// row names (spar run with each preset, spar record --result and
// --transcript) and compare what they recorded.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// auditRepo is a repository under review plus the folders around it.
type auditRepo struct {
	t                 *testing.T
	root, repo        string
	base, head, head7 string
	env               []string
}

// newAuditRepo commits baseFiles, then headFiles over them, in a new
// repository under a temporary root. The user configuration is
// root/spar.toml (SPAR_CONFIG); HOME and XDG_CONFIG_HOME point inside root.
func newAuditRepo(t *testing.T, baseFiles, headFiles map[string]string) *auditRepo {
	t.Helper()
	root := t.TempDir()
	a := &auditRepo{t: t, root: root, repo: filepath.Join(root, "repo")}
	a.env = append(os.Environ(),
		"PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"),
		"HOME="+filepath.Join(root, "home"),
		"XDG_CONFIG_HOME="+filepath.Join(root, "xdg"),
		"SPAR_CONFIG="+filepath.Join(root, "spar.toml"),
		"CLEAN_REVIEW_CONFIG=",
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.invalid", "GIT_AUTHOR_DATE=2026-01-02T03:04:05Z",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.invalid", "GIT_COMMITTER_DATE=2026-01-02T03:04:05Z")
	if err := os.MkdirAll(a.repo, 0o755); err != nil {
		t.Fatal(err)
	}
	a.git("init", "-q", "-b", "main")
	a.writeFiles(baseFiles)
	a.git("add", "-A")
	a.git("commit", "-q", "-m", "base")
	a.base = a.git("rev-parse", "HEAD")
	a.writeFiles(headFiles)
	a.git("add", "-A")
	a.git("commit", "-q", "-m", "head")
	a.head = a.git("rev-parse", "HEAD")
	a.head7 = a.head[:7]
	return a
}

func (a *auditRepo) writeFiles(files map[string]string) {
	for name, text := range files {
		p := filepath.Join(a.repo, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			a.t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			a.t.Fatal(err)
		}
	}
}

func (a *auditRepo) git(args ...string) string {
	a.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = a.repo
	cmd.Env = a.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		a.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// write writes text to root/name and returns its absolute path.
func (a *auditRepo) write(name, text string, mode os.FileMode) string {
	a.t.Helper()
	p := filepath.Join(a.root, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		a.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), mode); err != nil {
		a.t.Fatal(err)
	}
	return p
}

// spar runs the driver in the repository and returns stdout, stderr and
// the exit code.
func (a *auditRepo) spar(args ...string) (string, string, int) {
	a.t.Helper()
	cmd := exec.Command(filepath.Join(binDir, "spar"), args...)
	cmd.Dir = a.repo
	cmd.Env = a.env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			a.t.Fatalf("spar %v: %v", args, err)
		}
		code = ee.ExitCode()
	}
	return out.String(), errb.String(), code
}

// mustSpar runs the driver and fails the test unless it exits 0.
func (a *auditRepo) mustSpar(args ...string) string {
	a.t.Helper()
	out, errs, code := a.spar(args...)
	if code != 0 {
		a.t.Fatalf("spar %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errs)
	}
	return out
}

// fakeWrapper writes an executable that runs the fake CLI preset (claude,
// codex, agy from testdata/fake) with the result text in resultFile, so
// that each configured reviewer of one run can give its own result.
func (a *auditRepo) fakeWrapper(name, preset, resultFile string) string {
	fake, err := filepath.Abs(filepath.Join(repoRoot, "testdata", "fake", preset))
	if err != nil {
		a.t.Fatal(err)
	}
	return a.write(filepath.Join("bin", name), fmt.Sprintf("#!/bin/sh\nFAKE_RESULT_FILE=%q FAKE_HEAD=%q exec %q \"$@\"\n", resultFile, a.head7, fake), 0o755)
}

// roundReviewer is one reviewer of round.json, as the audit tests read it.
type roundReviewer struct {
	Name          string          `json:"name"`
	Preset        string          `json:"preset"`
	Status        string          `json:"status"`
	Reason        string          `json:"reason"`
	ObservedModel *string         `json:"observed_model"`
	Angles        json.RawMessage `json:"angles_checked"`
	Standpoint    *string         `json:"standpoint"`
	Report        json.RawMessage `json:"standpoint_report"`
}

// readJSON decodes root-relative or absolute file p into v.
func readJSON(t *testing.T, p string, v any) {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", p, err)
	}
}

// roundReviewers maps each reviewer name of round dir to its record.
func roundReviewers(t *testing.T, dir string) map[string]roundReviewer {
	t.Helper()
	var rec struct {
		Reviewers []roundReviewer `json:"reviewers"`
	}
	readJSON(t, filepath.Join(dir, "round.json"), &rec)
	m := map[string]roundReviewer{}
	for _, r := range rec.Reviewers {
		m[r.Name] = r
	}
	return m
}

// auditFinding is one finding of findings.json, as the audit tests read it.
type auditFinding struct {
	ID                 string  `json:"id"`
	Reviewer           string  `json:"reviewer"`
	ReviewerID         string  `json:"reviewer_id"`
	Location           string  `json:"location"`
	Path               string  `json:"path"`
	LineStart          *int    `json:"line_start"`
	LineEnd            *int    `json:"line_end"`
	InCheckPaths       bool    `json:"in_check_paths"`
	LocationUnreadable bool    `json:"location_unreadable"`
	Class              string  `json:"class"`
	ClassReason        string  `json:"class_reason"`
	LinkKind           string  `json:"link_kind"`
	Link               string  `json:"link"`
	ClaimedLinkKind    *string `json:"claimed_link_kind"`
	ClaimedLink        *string `json:"claimed_link"`
	SmallestFix        *string `json:"smallest_fix"`
	Disposition        *string `json:"disposition"`
}

func roundFindings(t *testing.T, dir string) []auditFinding {
	t.Helper()
	var f struct {
		Findings []auditFinding `json:"findings"`
	}
	readJSON(t, filepath.Join(dir, "findings.json"), &f)
	return f.Findings
}

// transcriptFor is a Claude Code transcript of a native reviewer of round
// dir whose final message is text, read prompt.md first.
func transcriptFor(dir, reviewer, text string) string {
	ws := filepath.Join(dir, "workspace")
	line := func(v any) string {
		b, _ := json.Marshal(v)
		return string(b) + "\n"
	}
	return line(map[string]any{"type": "user", "cwd": ws, "message": map[string]any{"role": "user", "content": "Review as prompt.md says."}}) +
		line(map[string]any{"type": "assistant", "cwd": ws, "message": map[string]any{"id": "m1", "role": "assistant", "model": "claude-audit",
			"content": []any{map[string]any{"type": "tool_use", "name": "Read", "input": map[string]any{"file_path": filepath.Join(dir, reviewer, "prompt.md")}}}}}) +
		line(map[string]any{"type": "assistant", "cwd": ws, "message": map[string]any{"id": "m2", "role": "assistant", "model": "claude-audit",
			"content": []any{map[string]any{"type": "text", "text": text}}}})
}

// with is a copy of a that reports to t and runs with env added (later
// entries win, so SPAR_CONFIG=… picks another user configuration).
func (a *auditRepo) with(t *testing.T, env ...string) *auditRepo {
	b := *a
	b.t = t
	b.env = append(append([]string{}, a.env...), env...)
	return &b
}

// auditFile is one entry of a commit's tree (testdata/input-forms.json).
type auditFile struct {
	Text       string `json:"text"`
	Executable bool   `json:"executable"`
	Symlink    string `json:"symlink"`
	Submodule  bool   `json:"submodule"`
}

// auditDoc is one round document: in the repository's working tree or in
// a folder outside it.
type auditDoc struct {
	Role  string `json:"role"`
	Place string `json:"place"`
	Name  string `json:"name"`
	Text  string `json:"text"`
}

type auditRepoSpec struct {
	Base      map[string]auditFile `json:"base"`
	Head      map[string]auditFile `json:"head"`
	Documents []auditDoc           `json:"documents"`
}

// newAuditRepoSpec builds the repository of spec: its base and head trees
// written straight into the object store (symbolic links and submodules
// exact), HEAD at the head commit, the documents written as files. It
// returns the repository and the run arguments and project rules that
// make the documents round documents.
func newAuditRepoSpec(t *testing.T, spec auditRepoSpec) (a *auditRepo, args, rules []string) {
	t.Helper()
	a = newAuditRepo(t, map[string]string{".keep": ""}, map[string]string{".keep": "x"})
	a.git("update-ref", "-d", "HEAD")
	a.base = a.commitTree(spec.Base, "")
	a.head = a.commitTree(spec.Head, a.base)
	a.head7 = a.head[:7]
	a.git("update-ref", "HEAD", a.head)
	if err := os.Remove(filepath.Join(a.repo, ".keep")); err != nil {
		t.Fatal(err)
	}
	for _, d := range spec.Documents {
		p := filepath.Join(a.repo, filepath.FromSlash(d.Name))
		if d.Place == "outside" {
			p = filepath.Join(a.root, "outside", filepath.FromSlash(d.Name))
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(d.Text), 0o644); err != nil {
			t.Fatal(err)
		}
		switch {
		case d.Role == "rule" && d.Place != "outside":
			rules = append(rules, d.Name)
		case d.Role == "rule":
			args = append(args, "--rules", p)
		case d.Role == "criteria":
			args = append(args, "--criteria", p)
		case d.Role == "subject":
			args = append(args, "--subject", p)
		}
	}
	return a, args, rules
}

// commitTree writes files as one commit's tree without the working tree.
func (a *auditRepo) commitTree(files map[string]auditFile, parent string) string {
	a.t.Helper()
	hash := func(text string) string {
		cmd := exec.Command("git", "hash-object", "-w", "--stdin")
		cmd.Dir, cmd.Env, cmd.Stdin = a.repo, a.env, strings.NewReader(text)
		out, err := cmd.Output()
		if err != nil {
			a.t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	var idx strings.Builder
	for n, f := range files {
		switch {
		case f.Submodule:
			fmt.Fprintf(&idx, "160000 %s\t%s\n", strings.Repeat("5", 40), n)
		case f.Symlink != "":
			fmt.Fprintf(&idx, "120000 %s\t%s\n", hash(f.Symlink), n)
		case f.Executable:
			fmt.Fprintf(&idx, "100755 %s\t%s\n", hash(f.Text), n)
		default:
			fmt.Fprintf(&idx, "100644 %s\t%s\n", hash(f.Text), n)
		}
	}
	a.git("read-tree", "--empty")
	cmd := exec.Command("git", "update-index", "--add", "--index-info")
	cmd.Dir, cmd.Env, cmd.Stdin = a.repo, a.env, strings.NewReader(idx.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		a.t.Fatalf("update-index: %v\n%s", err, out)
	}
	tree := a.git("write-tree")
	args := []string{"commit-tree", tree, "-m", "c"}
	if parent != "" {
		args = append(args, "-p", parent)
	}
	return a.git(args...)
}

// loadInputForms decodes key of testdata/input-forms.json into v.
func loadInputForms(t *testing.T, key string, v any) {
	t.Helper()
	var all map[string]json.RawMessage
	readJSON(t, filepath.Join(repoRoot, "testdata", "input-forms.json"), &all)
	raw, ok := all[key]
	if !ok {
		t.Fatalf("testdata/input-forms.json has no %q", key)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("input-forms.json %s: %v", key, err)
	}
}

// auditRecordedRound runs one round whose reviewers c (command preset,
// spar run), r (native, spar record --result) and t (native, spar record
// --transcript) all give resultText, in the project configuration that
// has rules and checkPaths. It returns the round folder.
func (a *auditRepo) auditRecordedRound(name string, args, rules, checkPaths []string, resultText string) string {
	a.t.Helper()
	q := func(xs []string) string {
		b, _ := json.Marshal(append([]string{}, xs...))
		return string(b)
	}
	if err := os.MkdirAll(filepath.Join(a.repo, ".jaekit"), 0o755); err != nil {
		a.t.Fatal(err)
	}
	cfg := fmt.Sprintf("rules = %s\ncheck_paths = %s\n", q(rules), q(checkPaths))
	if err := os.WriteFile(filepath.Join(a.repo, ".jaekit", "spar.toml"), []byte(cfg), 0o644); err != nil {
		a.t.Fatal(err)
	}
	// docs/trust.md "Inputs the agent can edit": the project configuration
	// is the head commit's, as a project commits it. It is committed on top
	// of the head (its tree plus .jaekit/spar.toml), and the result names
	// that head.
	hash := exec.Command("git", "hash-object", "-w", "--stdin")
	hash.Dir, hash.Env, hash.Stdin = a.repo, a.env, strings.NewReader(cfg)
	blob, err := hash.Output()
	if err != nil {
		a.t.Fatal(err)
	}
	a.git("read-tree", a.head)
	a.git("update-index", "--add", "--cacheinfo", "100644,"+strings.TrimSpace(string(blob))+",.jaekit/spar.toml")
	head := a.git("commit-tree", a.git("write-tree"), "-p", a.head, "-m", "project configuration")
	a.git("update-ref", "HEAD", head)
	resultText = strings.Replace(resultText, `"reviewed_head":"`+a.head7+`"`, `"reviewed_head":"`+head[:7]+`"`, 1)
	a.head, a.head7 = head, head[:7]
	res := a.write(name+"/result.json", resultText, 0o644)
	a.write("spar.toml", fmt.Sprintf("[[reviewers]]\nname = \"c\"\npreset = \"command\"\nargv = [\"cat\", %q]\n\n[[reviewers]]\nname = \"r\"\npreset = \"native\"\n\n[[reviewers]]\nname = \"t\"\npreset = \"native\"\n", res), 0o644)
	out := filepath.Join(a.root, "reviews", name, "code-1")
	a.mustSpar(append([]string{"run", "--stage", "code", "--base", a.base, "--head", a.head, "--out", out}, args...)...)
	a.mustSpar("record", out, "--reviewer", "r", "--result", res)
	tr := a.write(name+"/transcript.jsonl", transcriptFor(out, "t", resultText), 0o644)
	a.mustSpar("record", out, "--reviewer", "t", "--transcript", tr)
	return out
}

// auditResultWith is a result passing G1–G6 whose findings are fs.
func auditResultWith(head7 string, fs []map[string]any) string {
	r := auditResultMap()
	r["reviewed_head"] = head7
	items := make([]any, len(fs))
	for i, f := range fs {
		items[i] = f
	}
	r["findings"] = items
	return auditJSON(r)
}
