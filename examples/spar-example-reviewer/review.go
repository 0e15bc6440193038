package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
)

// result is the reviewer result of G1.
//
// The result types stay a standalone copy here on purpose: this program is
// an example of a reviewer written outside spar, which speaks to spar only
// through the JSON contract (G1–G6). It imports nothing of spar's lib/, so
// a reader can copy it out as it is; spar's own reading of the result is
// lib/resultcheck's and lib/classify's.
type result struct {
	ReviewedHead    string      `json:"reviewed_head"`
	Verdict         string      `json:"verdict"`
	AnglesChecked   []angleItem `json:"angles_checked"`
	AnglesUnchecked []angleItem `json:"angles_unchecked"`
	Findings        []finding   `json:"findings"`
	Limits          string      `json:"limits"`
}

type angleItem struct {
	Angle  string `json:"angle"`
	Result string `json:"result,omitempty"`
	Reason string `json:"reason,omitempty"`
}

type finding struct {
	ID                 string `json:"id"`
	ProposedClass      string `json:"proposed_class"`
	Angle              string `json:"angle"`
	Location           string `json:"location"`
	Claim              string `json:"claim"`
	FailureScenario    string `json:"failure_scenario"`
	Evidence           string `json:"evidence"`
	LinkKind           string `json:"link_kind"`
	Link               string `json:"link"`
	IntroducedByChange string `json:"introduced_by_change"`
	Regression         string `json:"regression"`
	CheckImpact        string `json:"check_impact"`
	Confidence         string `json:"confidence"`
	SmallestFix        string `json:"smallest_fix"`
}

// Which angle each kind of check answers.
const (
	rulesAngle  = "requirement-counterexample"
	checksAngle = "check-validity"
)

func review(p *packet, workspace, focus string) (*result, error) {
	head := filepath.Join(workspace, "head")
	base := filepath.Join(workspace, "base")
	if fi, err := os.Stat(head); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("workspace %s has no head/ copy", workspace)
	}
	res := &result{ReviewedHead: p.head, AnglesChecked: []angleItem{}, AnglesUnchecked: []angleItem{}, Findings: []finding{}}
	var goFiles, testFiles []changed
	for _, c := range p.changed {
		if c.status == "deleted" || !strings.HasSuffix(c.path, ".go") {
			continue
		}
		if strings.HasSuffix(c.path, "_test.go") && c.check {
			testFiles = append(testFiles, c)
		} else if !strings.HasSuffix(c.path, "_test.go") {
			goFiles = append(goFiles, c)
		}
	}
	did := map[string]string{}
	// An angle looked at no file is not checked: on a change without Go
	// files (a Python project) the reviewer says it read nothing, never
	// that it checked (angles_unchecked).
	skipped := map[string]string{}
	other := 0
	for _, c := range p.changed {
		if c.status != "deleted" && !strings.HasSuffix(c.path, ".go") {
			other++
		}
	}
	if (focus == "rules" || focus == "all") && len(goFiles) == 0 {
		skipped[rulesAngle] = fmt.Sprintf("The change holds no Go file outside the tests (it changes %d other file(s)): this example reviewer reads Go only, so it checked nothing here.", other)
	}
	if (focus == "checks" || focus == "all") && len(testFiles) == 0 {
		skipped[checksAngle] = "The change holds no Go test file in the check paths: this example reviewer reads Go tests only, so it checked nothing here."
	}
	if (focus == "rules" || focus == "all") && len(goFiles) > 0 {
		for _, c := range goFiles {
			f, err := load(head, base, c)
			if err != nil {
				return nil, err
			}
			res.Findings = append(res.Findings, secretFindings(p, f)...)
		}
		did[rulesAngle] = fmt.Sprintf("Looked for secret values compared with == or != and secrets written to log lines, on the lines the change adds or modifies in %d changed Go file(s).", len(goFiles))
	}
	if (focus == "checks" || focus == "all") && len(testFiles) > 0 {
		for _, c := range testFiles {
			f, err := load(head, base, c)
			if err != nil {
				return nil, err
			}
			res.Findings = append(res.Findings, testFindings(p, f)...)
		}
		did[checksAngle] = fmt.Sprintf("Looked for test functions that assert nothing (only a panic can fail them) among those the change adds or modifies in %d changed test file(s) in the check paths.", len(testFiles))
	}
	for i := range res.Findings {
		res.Findings[i].ID = fmt.Sprintf("X%d", i+1)
	}
	for _, a := range p.angles {
		if r, ok := did[a]; ok {
			res.AnglesChecked = append(res.AnglesChecked, angleItem{Angle: a, Result: r})
		} else if why, ok := skipped[a]; ok {
			res.AnglesUnchecked = append(res.AnglesUnchecked, angleItem{Angle: a, Reason: why})
		} else {
			res.AnglesUnchecked = append(res.AnglesUnchecked, angleItem{Angle: a, Reason: "This example reviewer runs pattern checks only; it does not judge this angle."})
		}
	}
	res.Verdict = "no_blocking_findings"
	for _, f := range res.Findings {
		if f.ProposedClass == "defect" {
			res.Verdict = "blocking_findings"
		}
	}
	res.Limits = "Static pattern checks on the lines the change adds or modifies in its Go files, by name and syntax only (no type information): a secret is a value whose name says so; a test that hands its *testing.T to any function counts as one that can fail, and one that asserts nothing is reported although a panic in the code it calls would fail it (a no-panic regression test reads so). Generated files are skipped; nothing was built or run."
	return res, nil
}

// file is one changed Go file: its head source parsed, its base source (nil
// when the file is new) and what the change did to its lines.
type file struct {
	path    string
	src     []byte
	fset    *token.FileSet
	ast     *ast.File
	baseSrc []byte
	diff    lineDiff
}

// load reads and parses a changed file. A file that does not parse, or is
// generated ("Code generated … DO NOT EDIT."), gives nil: nothing to say.
func load(head, base string, c changed) (*file, error) {
	src, err := os.ReadFile(filepath.Join(head, c.path))
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	af, err := parser.ParseFile(fset, c.path, src, parser.SkipObjectResolution|parser.ParseComments)
	if err != nil || ast.IsGenerated(af) {
		return nil, nil
	}
	baseSrc, err := os.ReadFile(filepath.Join(base, c.basePath()))
	if err != nil {
		baseSrc = nil // added (or copied from nowhere readable): every line is new
	}
	return &file{path: c.path, src: src, fset: fset, ast: af, baseSrc: baseSrc, diff: diffLines(baseSrc, src)}, nil
}

func (f *file) lines(n ast.Node) (int, int) {
	return f.fset.Position(n.Pos()).Line, f.fset.Position(n.End()).Line
}

func (f *file) text(n ast.Node) string {
	return string(f.src[f.fset.Position(n.Pos()).Offset:f.fset.Position(n.End()).Offset])
}

// secretFindings reports, on the lines the change adds or modifies, a
// secret's value compared with == or != (secretComparison) and a secret
// handed to a log call.
func secretFindings(p *packet, f *file) []finding {
	if f == nil {
		return nil
	}
	var out []finding
	ast.Inspect(f.ast, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BinaryExpr:
			name := secretComparison(n)
			if name == "" {
				return true
			}
			start, end := f.lines(n)
			if !f.diff.touches(start, end) {
				return true
			}
			expr := f.text(n)
			// A regression when the change took out a constant-time
			// comparison from this file.
			regression := "no"
			if f.diff.removedContains("ConstantTimeCompare") {
				regression = "yes"
			}
			out = append(out, withLink(finding{
				ProposedClass:      "defect",
				Angle:              rulesAngle,
				Location:           fmt.Sprintf("head/%s:%d", f.path, start),
				Claim:              fmt.Sprintf("The secret %s is compared with %s, which is not constant-time.", name, n.Op),
				FailureScenario:    "An attacker who can time responses guesses the secret byte by byte: the comparison returns sooner the earlier the first differing byte is, so each guess tells how much of it was right.",
				Evidence:           fmt.Sprintf("%s:%d (a line this change adds or modifies): %s", f.path, start, expr),
				IntroducedByChange: "yes",
				Regression:         regression,
				CheckImpact:        "none",
				Confidence:         "high",
				SmallestFix:        "Compare with subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1.",
			}, p.ruleLine("ConstantTimeCompare")))
		case *ast.CallExpr:
			sel, ok := n.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); !ok || (x.Name != "log" && x.Name != "slog") {
				return true
			}
			start, end := f.lines(n)
			if !f.diff.touches(start, end) {
				return true
			}
			for _, a := range n.Args {
				name := secretValue(a)
				if name == "" {
					continue
				}
				out = append(out, withLink(finding{
					ProposedClass:      "defect",
					Angle:              rulesAngle,
					Location:           fmt.Sprintf("head/%s:%d", f.path, start),
					Claim:              fmt.Sprintf("The secret %s is written to a log line.", name),
					FailureScenario:    "Anyone who can read the logs can use the secret.",
					Evidence:           fmt.Sprintf("%s:%d (a line this change adds or modifies): %s.%s call with argument %s", f.path, start, sel.X.(*ast.Ident).Name, sel.Sel.Name, name),
					IntroducedByChange: "yes",
					Regression:         "no",
					CheckImpact:        "none",
					Confidence:         "medium",
					SmallestFix:        "Leave the secret out of the log line.",
				}, p.ruleLine("token", "log")))
			}
		}
		return true
	})
	return out
}

func withLink(f finding, link string) finding {
	if link == "" {
		f.LinkKind, f.Link = "none", ""
	} else {
		f.LinkKind, f.Link = "rule", link
	}
	return f
}

// testFindings reports the test functions the change adds or modifies (a
// line of the function is one the change adds or modifies) that can never
// fail (neverFails). introduced_by_change follows the base: yes when the
// function is new or could fail in base (then the change weakened a check:
// a regression), no when it could not fail in base either.
func testFindings(p *packet, f *file) []finding {
	if f == nil {
		return nil
	}
	baseFns := map[string]*ast.FuncDecl{}
	if f.baseSrc != nil {
		if bf, err := parser.ParseFile(token.NewFileSet(), f.path, f.baseSrc, parser.SkipObjectResolution); err == nil {
			for _, d := range bf.Decls {
				if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil {
					baseFns[fn.Name.Name] = fn
				}
			}
		}
	}
	var out []finding
	for _, d := range f.ast.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || !neverFails(fn) {
			continue
		}
		start, end := f.lines(fn)
		if !f.diff.touches(start, end) {
			continue
		}
		t := testParam(fn)
		introduced, regression, before := "yes", "no", "is new in this change"
		if b, ok := baseFns[fn.Name.Name]; ok {
			if bt := testParam(b); bt != "" && !neverFails(b) {
				regression, before = "yes", "could fail in base; this change took its failure out"
			} else {
				introduced, before = "no", "could not fail in base either; this change modifies it"
			}
		}
		discarded := discardedCalls(fn.Body, f)
		evidence := fmt.Sprintf("%s:%d-%d: %s calls none of %s.Error, Errorf, Fatal, Fatalf, Fail, FailNow, Run, hands %s to no function, holds no compile-time assertion and starts no goroutine; it %s", f.path, start, end, fn.Name.Name, t, t, before)
		if len(discarded) > 0 {
			evidence += "; results thrown away: " + strings.Join(discarded, ", ")
		}
		out = append(out, withLink(finding{
			ProposedClass:      "defect",
			Angle:              checksAngle,
			Location:           fmt.Sprintf("head/%s:%d-%d", f.path, start, end),
			Claim:              fmt.Sprintf("%s asserts nothing: only a panic can make it fail.", fn.Name.Name),
			FailureScenario:    fmt.Sprintf("Break the behaviour %s names without making it panic: the test still passes, so the check reports success for broken code.", fn.Name.Name),
			Evidence:           evidence,
			IntroducedByChange: introduced,
			Regression:         regression,
			CheckImpact:        "false_pass",
			Confidence:         "high",
			SmallestFix:        fmt.Sprintf("Assert on the result in %s and call %s.Fatalf when it is wrong.", fn.Name.Name, t),
		}, p.ruleLine("checks", "fail")))
	}
	return out
}

// discardedCalls lists calls made as bare statements: their results, errors
// included, are thrown away.
func discardedCalls(body *ast.BlockStmt, f *file) []string {
	var out []string
	for _, s := range body.List {
		if es, ok := s.(*ast.ExprStmt); ok {
			if c, ok := es.X.(*ast.CallExpr); ok {
				out = append(out, f.text(c.Fun)+"(…)")
			}
		}
	}
	return out
}
