package sparclassify

// The harness the form tests share: it builds the small git repository
// each form needs (base and head commits written straight into the object
// store, so symbolic links and submodules are exact), writes an envelope by
// hand (spar-packet's run, spar-check's results) and runs spar-classify's
// Main on it, in this process.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/gitx"
	"github.com/jaekit/spar/lib/pipe"
)

// fileSpec is one entry of a commit's tree.
type fileSpec struct {
	Text       string `json:"text"`
	Executable bool   `json:"executable"`
	Symlink    string `json:"symlink"`   // a symbolic link to this target
	Submodule  bool   `json:"submodule"` // a gitlink
}

// docSpec is one round document (G26), inside the repository's working
// tree or in a folder outside it.
type docSpec struct {
	Role  string `json:"role"`
	Place string `json:"place"` // repository, outside
	Name  string `json:"name"`  // repository path, or a path under a folder outside the repository
	Text  string `json:"text"`
}

type repoSpec struct {
	Base      map[string]fileSpec `json:"base"`
	Head      map[string]fileSpec `json:"head"`
	Documents []docSpec           `json:"documents"`
}

type repo struct {
	dir, base, head string
	docs            []envelope.Document
}

func git(t testing.TB, dir, stdin string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.invalid", "GIT_AUTHOR_DATE=2026-01-02T03:04:05Z",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.invalid", "GIT_COMMITTER_DATE=2026-01-02T03:04:05Z")
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, errb.String())
	}
	return strings.TrimSpace(out.String())
}

// commit writes files as one commit's tree without touching the working tree.
func commit(t testing.TB, dir string, files map[string]fileSpec, parent string) string {
	t.Helper()
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	var idx strings.Builder
	for _, n := range names {
		f := files[n]
		switch {
		case f.Submodule:
			fmt.Fprintf(&idx, "160000 %s\t%s\n", strings.Repeat("5", 40), n)
		case f.Symlink != "":
			fmt.Fprintf(&idx, "120000 %s\t%s\n", git(t, dir, f.Symlink, "hash-object", "-w", "--stdin"), n)
		case f.Executable:
			fmt.Fprintf(&idx, "100755 %s\t%s\n", git(t, dir, f.Text, "hash-object", "-w", "--stdin"), n)
		default:
			fmt.Fprintf(&idx, "100644 %s\t%s\n", git(t, dir, f.Text, "hash-object", "-w", "--stdin"), n)
		}
	}
	git(t, dir, "", "read-tree", "--empty")
	git(t, dir, idx.String(), "update-index", "--add", "--index-info")
	tree := git(t, dir, "", "write-tree")
	args := []string{"commit-tree", tree, "-m", "c"}
	if parent != "" {
		args = append(args, "-p", parent)
	}
	return git(t, dir, "", args...)
}

func buildRepo(t testing.TB, spec repoSpec) repo {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, "repo")
	outside := filepath.Join(root, "outside")
	for _, d := range []string{dir, outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	git(t, dir, "", "init", "-q")
	r := repo{dir: dir}
	r.base = commit(t, dir, spec.Base, "")
	r.head = commit(t, dir, spec.Head, r.base)
	for _, d := range spec.Documents {
		p := filepath.Join(dir, filepath.FromSlash(d.Name))
		name := d.Name
		if d.Place == "outside" {
			// Outside the repository the G26 name is the file name.
			p = filepath.Join(outside, filepath.FromSlash(d.Name))
			name = filepath.Base(p)
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(d.Text), 0o644); err != nil {
			t.Fatal(err)
		}
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			t.Fatal(err)
		}
		r.docs = append(r.docs, envelope.Document{
			Role: d.Role, Origin: "argument", Name: name, Path: real, FileName: filepath.Base(p),
			LineCount: gitx.CountLines([]byte(d.Text)), Lines: gitx.Lines([]byte(d.Text)),
		})
	}
	return r
}

// finding is one G5 finding item.
type finding map[string]string

func newFinding(n int, location string, over map[string]string) finding {
	f := finding{
		"id": fmt.Sprintf("own-%d", n), "proposed_class": "note", "angle": "design",
		"location": location, "claim": "c", "failure_scenario": "s", "evidence": "e",
		"link_kind": "none", "link": "", "introduced_by_change": "no", "regression": "no",
		"check_impact": "none", "confidence": "high",
	}
	for k, v := range over {
		f[k] = v
	}
	return f
}

// envelopeFor is a hand-built spar-pipe/v1 envelope: run as spar-packet
// writes it, results as spar-check writes them.
func envelopeFor(r repo, checkPaths, criteriaIDs []string, reviewers map[string][]finding, order []string) []byte {
	run := envelope.Run{Repo: r.dir, Stage: "code", Base: r.base, Head: r.head, CheckPaths: checkPaths,
		Documents: r.docs, CriteriaIDs: criteriaIDs}
	var results []envelope.Result
	for _, name := range order {
		obj := map[string]any{"reviewed_head": r.head[:12], "verdict": "blocking_findings",
			"angles_checked": []any{}, "angles_unchecked": []any{}, "findings": reviewers[name], "limits": ""}
		raw, _ := json.Marshal(obj)
		results = append(results, envelope.Result{Reviewer: name, Status: "completed", Result: raw})
	}
	env := map[string]any{"schema": pipe.Schema, "run": run, "results": results}
	b, _ := json.Marshal(env)
	return b
}

// classifyBin runs spar-classify and returns its findings.
func classifyBin(t testing.TB, env []byte) []envelope.Finding {
	t.Helper()
	out, stderr, code := runBin(env)
	if code != 0 {
		t.Fatalf("spar-classify exited %d: %s", code, stderr)
	}
	var got struct {
		Findings []envelope.Finding `json:"findings"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("spar-classify output: %v\n%s", err, out)
	}
	return got.Findings
}

// runBin runs spar-classify with args on stdin: its stdout, stderr and
// exit code.
func runBin(stdin []byte, args ...string) ([]byte, string, int) {
	var out, errb bytes.Buffer
	code := Main(args, bytes.NewReader(stdin), &out, &errb)
	return out.Bytes(), errb.String(), code
}

func loadForms(t *testing.T, key string, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "input-forms.json"))
	if err != nil {
		t.Fatal(err)
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(b, &all); err != nil {
		t.Fatal(err)
	}
	raw, ok := all[key]
	if !ok {
		t.Fatalf("testdata/input-forms.json has no %q", key)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("input-forms.json %s: %v", key, err)
	}
}

func intp(p *int) string {
	if p == nil {
		return "null"
	}
	return fmt.Sprint(*p)
}
