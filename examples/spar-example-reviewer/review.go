package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// result is the reviewer result of spar-input.en.md G1.
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

var secretName = regexp.MustCompile(`(?i)token|secret|password|passwd|apikey|api_key`)

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
	if focus == "rules" || focus == "all" {
		for _, c := range goFiles {
			fs, err := secretFindings(p, head, base, c.path)
			if err != nil {
				return nil, err
			}
			res.Findings = append(res.Findings, fs...)
		}
		did[rulesAngle] = fmt.Sprintf("Looked for secrets compared with == or != and secrets written to log lines in %d changed Go file(s).", len(goFiles))
	}
	if focus == "checks" || focus == "all" {
		for _, c := range testFiles {
			fs, err := testFindings(p, head, base, c.path)
			if err != nil {
				return nil, err
			}
			res.Findings = append(res.Findings, fs...)
		}
		did[checksAngle] = fmt.Sprintf("Looked for test functions that can never fail in %d changed test file(s) in the check paths.", len(testFiles))
	}
	for i := range res.Findings {
		res.Findings[i].ID = fmt.Sprintf("X%d", i+1)
	}
	for _, a := range p.angles {
		if r, ok := did[a]; ok {
			res.AnglesChecked = append(res.AnglesChecked, angleItem{Angle: a, Result: r})
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
	res.Limits = "Static pattern checks on the changed Go files only; nothing was built or run."
	return res, nil
}

// secretFindings reports secrets compared with ==/!= and secrets logged.
func secretFindings(p *packet, head, base, path string) ([]finding, error) {
	fset := token.NewFileSet()
	src, err := os.ReadFile(filepath.Join(head, path))
	if err != nil {
		return nil, err
	}
	file, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, nil // not Go this reviewer can read: nothing to say
	}
	baseSrc, _ := os.ReadFile(filepath.Join(base, path))
	constantTimeBefore := strings.Contains(string(baseSrc), "ConstantTimeCompare")
	var out []finding
	ast.Inspect(file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BinaryExpr:
			if n.Op != token.EQL && n.Op != token.NEQ {
				return true
			}
			name := secretOperand(n.X)
			if name == "" {
				name = secretOperand(n.Y)
			}
			if name == "" || isEmptyString(n.X) || isEmptyString(n.Y) {
				return true
			}
			line := fset.Position(n.Pos()).Line
			expr := string(src[fset.Position(n.Pos()).Offset:fset.Position(n.End()).Offset])
			introduced := "yes"
			if strings.Contains(string(baseSrc), expr) {
				introduced = "no"
			}
			regression := "no"
			if constantTimeBefore && introduced == "yes" {
				regression = "yes"
			}
			link := p.ruleLine("ConstantTimeCompare")
			out = append(out, withLink(finding{
				ProposedClass:      "defect",
				Angle:              rulesAngle,
				Location:           fmt.Sprintf("head/%s:%d", path, line),
				Claim:              fmt.Sprintf("The secret %s is compared with %s, which is not constant-time.", name, n.Op),
				FailureScenario:    "An attacker who can time responses guesses the secret byte by byte: the comparison returns sooner the earlier the first differing byte is, so each guess tells how much of it was right.",
				Evidence:           fmt.Sprintf("%s:%d: %s", path, line, expr),
				IntroducedByChange: introduced,
				Regression:         regression,
				CheckImpact:        "none",
				Confidence:         "high",
				SmallestFix:        "Compare with subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1.",
			}, link))
		case *ast.CallExpr:
			sel, ok := n.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); !ok || (x.Name != "log" && x.Name != "slog") {
				return true
			}
			for _, a := range n.Args {
				if name := secretOperand(a); name != "" {
					line := fset.Position(n.Pos()).Line
					out = append(out, withLink(finding{
						ProposedClass:      "defect",
						Angle:              rulesAngle,
						Location:           fmt.Sprintf("head/%s:%d", path, line),
						Claim:              fmt.Sprintf("The secret %s is written to a log line.", name),
						FailureScenario:    "Anyone who can read the logs can use the secret.",
						Evidence:           fmt.Sprintf("%s:%d: log call with argument %s", path, line, name),
						IntroducedByChange: "unknown",
						Regression:         "unknown",
						CheckImpact:        "none",
						Confidence:         "medium",
						SmallestFix:        "Leave the secret out of the log line.",
					}, p.ruleLine("token", "log")))
				}
			}
		}
		return true
	})
	return out, nil
}

func withLink(f finding, link string) finding {
	if link == "" {
		f.LinkKind, f.Link = "none", ""
	} else {
		f.LinkKind, f.Link = "rule", link
	}
	return f
}

// secretOperand returns the name of an identifier or field whose name says
// it holds a secret, or "".
func secretOperand(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		if secretName.MatchString(e.Name) {
			return e.Name
		}
	case *ast.SelectorExpr:
		if secretName.MatchString(e.Sel.Name) {
			if x, ok := e.X.(*ast.Ident); ok {
				return x.Name + "." + e.Sel.Name
			}
			return e.Sel.Name
		}
	}
	return ""
}

func isEmptyString(e ast.Expr) bool {
	b, ok := e.(*ast.BasicLit)
	return ok && b.Kind == token.STRING && (b.Value == `""` || b.Value == "``")
}

// testFindings reports test functions that call no failure method of *testing.T.
func testFindings(p *packet, head, base, path string) ([]finding, error) {
	fset := token.NewFileSet()
	src, err := os.ReadFile(filepath.Join(head, path))
	if err != nil {
		return nil, err
	}
	file, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, nil
	}
	baseSrc, _ := os.ReadFile(filepath.Join(base, path))
	var out []finding
	for _, d := range file.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Body == nil || !strings.HasPrefix(fn.Name.Name, "Test") {
			continue
		}
		t := testingParam(fn)
		if t == "" || canFail(fn.Body, t) {
			continue
		}
		start, end := fset.Position(fn.Pos()).Line, fset.Position(fn.End()).Line
		introduced := "yes"
		if strings.Contains(string(baseSrc), "func "+fn.Name.Name+"(") {
			introduced = "unknown"
		}
		discarded := discardedCalls(fn.Body, src, fset)
		evidence := fmt.Sprintf("%s:%d-%d: %s calls none of %s.Error, Errorf, Fatal, Fatalf, Fail, FailNow", path, start, end, fn.Name.Name, t)
		if len(discarded) > 0 {
			evidence += "; results thrown away: " + strings.Join(discarded, ", ")
		}
		out = append(out, withLink(finding{
			ProposedClass:      "defect",
			Angle:              checksAngle,
			Location:           fmt.Sprintf("head/%s:%d-%d", path, start, end),
			Claim:              fmt.Sprintf("%s can never fail: it checks nothing.", fn.Name.Name),
			FailureScenario:    fmt.Sprintf("Break the behaviour %s names: the test still passes, so the check reports success for broken code.", fn.Name.Name),
			Evidence:           evidence,
			IntroducedByChange: introduced,
			Regression:         "no",
			CheckImpact:        "false_pass",
			Confidence:         "high",
			SmallestFix:        fmt.Sprintf("Assert on the result in %s and call %s.Fatalf when it is wrong.", fn.Name.Name, t),
		}, p.ruleLine("checks", "fail")))
	}
	return out, nil
}

// testingParam returns the name of a *testing.T parameter, or "".
func testingParam(fn *ast.FuncDecl) string {
	if fn.Type.Params == nil || len(fn.Type.Params.List) != 1 {
		return ""
	}
	f := fn.Type.Params.List[0]
	star, ok := f.Type.(*ast.StarExpr)
	if !ok || len(f.Names) != 1 {
		return ""
	}
	if sel, ok := star.X.(*ast.SelectorExpr); ok && sel.Sel.Name == "T" {
		return f.Names[0].Name
	}
	return ""
}

var failMethods = map[string]bool{"Error": true, "Errorf": true, "Fatal": true, "Fatalf": true, "Fail": true, "FailNow": true}

// canFail reports whether body calls a failure method on t, or hands t to
// another function (which may fail it).
func canFail(body *ast.BlockStmt, t string) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || found {
			return !found
		}
		if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == t && (failMethods[sel.Sel.Name] || sel.Sel.Name == "Run") {
				found = true
			}
		}
		for _, a := range call.Args {
			if id, ok := a.(*ast.Ident); ok && id.Name == t {
				found = true
			}
		}
		return !found
	})
	return found
}

// discardedCalls lists calls made as bare statements: their results, errors
// included, are thrown away.
func discardedCalls(body *ast.BlockStmt, src []byte, fset *token.FileSet) []string {
	var out []string
	for _, s := range body.List {
		if es, ok := s.(*ast.ExprStmt); ok {
			if c, ok := es.X.(*ast.CallExpr); ok {
				out = append(out, string(src[fset.Position(c.Fun.Pos()).Offset:fset.Position(c.Fun.End()).Offset])+"(…)")
			}
		}
	}
	return out
}
