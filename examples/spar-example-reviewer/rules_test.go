package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/jaekit/spar/lib/envelope"
	sparpacket "github.com/jaekit/spar/lib/packet"
)

func TestWords(t *testing.T) {
	for name, want := range map[string]string{
		"kubernetesSecretClient": "kubernetes secret client",
		"APIKey":                 "api key",
		"userJWTToken":           "user jwt token",
		"api_key":                "api key",
		"csrftoken":              "csrftoken",
		"token2":                 "token",
		"HTTPServer":             "http server",
	} {
		if got := strings.Join(words(name), " "); got != want {
			t.Errorf("words(%q) = %q, want %q", name, got, want)
		}
	}
}

// A secret is a value whose name ends in a secret word.
func TestSecretWord(t *testing.T) {
	for name, want := range map[string]bool{
		"token": true, "Token": true, "accessToken": true, "csrftoken": true, "clientSecret": true,
		"password": true, "newPasswd": true, "apiKey": true, "APIKey": true, "signingKey": true, "hmac_key": true,
		"kubernetesSecretClient": false, "tokenType": false, "secretName": false, "passwordHash": false,
		"tokenCount": false, "tokens": false, "secrets": false, "key": false, "mapKey": false, "tokenizer": false,
		"TokenURL": false, "": false,
	} {
		if got := secretWord(name); got != want {
			t.Errorf("secretWord(%q) = %v, want %v", name, got, want)
		}
	}
}

// A secret comparison compares a secret's value with another value: not
// with nil, a literal or a length, and not a client or a type.
func TestSecretComparison(t *testing.T) {
	for src, want := range map[string]string{
		"l.Token != token":              "l.Token",
		"token == l.Token":              "token",
		"string(got) == expectedToken":  "expectedToken",
		"[]byte(a) == secret":           "secret",
		"a.Password == b":               "a.Password",
		"(apiKey) != key":               "apiKey",
		"*secret == x":                  "secret",
		"kubernetesSecretClient != nil": "",
		"nil == token":                  "",
		`token == ""`:                   "",
		`tokenType == "Bearer"`:         "",
		`password == "changeme"`:        "",
		"len(token) == 0":               "",
		"0 != len(secret)":              "",
		"cap(token) == n":               "",
		"tokens == nil":                 "",
		"secretName == name":            "",
		"count == tokenCount":           "",
		"token < other":                 "",
		"hasToken == true":              "",
		"tok.Kind == token.EOF":         "",
	} {
		e, err := parser.ParseExpr(src)
		if err != nil {
			t.Fatal(err)
		}
		b, ok := e.(*ast.BinaryExpr)
		if !ok {
			t.Fatalf("%s: not a binary expression", src)
		}
		if got := secretComparison(b); got != want {
			t.Errorf("secretComparison(%s) = %q, want %q", src, got, want)
		}
	}
}

// A test is reported when it asserts nothing and only a panic can fail it;
// a compile-time interface assertion is a check (it fails the build), and a
// test that starts goroutines may be one for the race detector.
func TestNeverFails(t *testing.T) {
	for _, c := range []struct {
		src  string
		want bool
	}{
		{"func TestBasicGraphBuilder_impl(t *testing.T) { var _ GraphBuilder = new(BasicGraphBuilder) }", false},
		{"func TestProvider(t *testing.T) { var _ providers.Interface = (*Provider)(nil); run() }", false},
		{"func TestBoth(t *testing.T) { var (_ io.Reader = r; _ io.Writer = w) }", false},
		{"func TestUse(t *testing.T) { var _ = run() }", true},
		{"func TestNamed(t *testing.T) { var x io.Reader = r; _ = x }", true},
		{"func TestNothing(t *testing.T) { run() }", true},
		{"func TestEmpty(t *testing.T) {}", true},
		{"func TestFatal(t *testing.T) { if run() != 1 { t.Fatal(\"x\") } }", false},
		{"func TestOtherName(tt *testing.T) { if run() != 1 { tt.Errorf(\"x\") } }", false},
		{"func TestWrongT(tt *testing.T) { if run() != 1 { t.Errorf(\"x\") } }", true},
		{"func TestAssert(t *testing.T) { assert.Equal(t, 1, run()) }", false},
		{"func TestAddr(t *testing.T) { check(&t) }", false},
		{"func TestSub(t *testing.T) { t.Run(\"a\", func(t *testing.T) {}) }", false},
		{"func TestClosure(t *testing.T) { f := func() { t.Error(\"x\") }; f() }", false},
		{"func TestRace(t *testing.T) { go run(); run() }", false},
		{"func TestWaitGroupGo(t *testing.T) { var wg sync.WaitGroup; wg.Go(func() { _ = run() }); wg.Wait() }", false},
		{"func TestPanic(t *testing.T) { if run() != 1 { panic(\"x\") } }", false},
		{"func TestLogFatal(t *testing.T) { if run() != 1 { log.Fatalf(\"x\") } }", false},
		{"func TestExit(t *testing.T) { if run() != 1 { os.Exit(1) } }", false},
		{"func TestSkipOnly(t *testing.T) { t.Skip(\"later\") }", true},
		{"func (s *S) TestMethod(t *testing.T) { run() }", false},
		{"func TestMain(m *testing.M) { m.Run() }", false},
		{"func Testing(t *check.T) { run() }", false},
		{"func helper(t *testing.T) { run() }", false},
	} {
		f, err := parser.ParseFile(token.NewFileSet(), "x_test.go", "package x\n"+c.src, 0)
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		fn := f.Decls[0].(*ast.FuncDecl)
		if got := neverFails(fn); got != c.want {
			t.Errorf("neverFails(%s) = %v, want %v", c.src, got, c.want)
		}
	}
}

// The changed lines are the head lines a line diff of base and head marks
// added; a new file is added whole; removed lines keep their text.
func TestDiffLines(t *testing.T) {
	for _, c := range []struct {
		name, base, head string
		nilBase          bool
		added            []int
		removed          []string
	}{
		{"same", "a\nb\n", "a\nb\n", false, nil, nil},
		{"new file", "", "x\ny\n", true, []int{1, 2}, nil},
		{"line modified", "a\nb\nc\n", "a\nB\nc\n", false, []int{2}, []string{"b"}},
		{"lines added at the end", "a\n", "a\nb\nc\n", false, []int{2, 3}, nil},
		{"header bumped", "// Copyright 2024\npackage p\n\nfunc f() {}\n", "// Copyright 2025\npackage p\n\nfunc f() {}\n", false, []int{1}, []string{"// Copyright 2024"}},
		{"line removed", "a\nb\nc\n", "a\nc\n", false, nil, []string{"b"}},
	} {
		var base []byte
		if !c.nilBase {
			base = []byte(c.base)
		}
		d := diffLines(base, []byte(c.head))
		var added []int
		for l := 1; l <= strings.Count(c.head, "\n")+1; l++ {
			if d.added[l] {
				added = append(added, l)
			}
		}
		if !reflect.DeepEqual(added, c.added) || !reflect.DeepEqual(d.removed, c.removed) {
			t.Errorf("%s: added %v removed %q, want %v %q", c.name, added, d.removed, c.added, c.removed)
		}
	}
}

const baseAuth = `package app

import "crypto/subtle"

// Old compares an old token with != : the change does not touch it.
func Old(a, b string) bool {
	return a != "" && oldToken(a) != b
}

func oldToken(s string) string { return s }

var legacyToken string

func Untouched(token string) bool { return legacyToken == token }

func Check(token, want string) bool {
	return subtle.ConstantTimeCompare([]byte(token), []byte(want)) == 1
}
`

const headAuth = `package app

import "log"

// Old compares an old token with != : the change does not touch it.
func Old(a, b string) bool {
	return a != "" && oldToken(a) != b
}

func oldToken(s string) string { return s }

var legacyToken string

func Untouched(token string) bool { return legacyToken == token }

func Check(token, want string) bool {
	if kubernetesSecretClient != nil && len(token) == 0 {
		return false
	}
	log.Printf("checking %d", len(token))
	return token == want
}

func Added(password string) {
	log.Println("password", password)
}
`

const baseTest = `package checks

import "testing"

var _ Checker = new(BasicChecker)

func TestOld(t *testing.T) {
	run()
}

func TestWeakened(t *testing.T) {
	if run() != 1 {
		t.Fatal("bad")
	}
}

func TestStillWeak(t *testing.T) {
	run()
}
`

const headTest = `package checks

import "testing"

var _ Checker = new(BasicChecker)

func TestOld(t *testing.T) {
	run()
}

func TestWeakened(t *testing.T) {
	run()
}

func TestStillWeak(t *testing.T) {
	run()
	run()
}

func TestImpl(t *testing.T) {
	var _ Checker = new(OtherChecker)
}

func TestNew(t *testing.T) {
	run()
}
`

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// On a change to files that already hold what the rules look for, only the
// lines the change adds or modifies are reported, and introduced_by_change
// and regression follow the diff.
func TestReview_OnlyWhatTheChangeAddsOrModifies(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "workspace")
	writeFile(t, filepath.Join(ws, "base", "app", "auth.go"), baseAuth)
	writeFile(t, filepath.Join(ws, "head", "app", "auth.go"), headAuth)
	writeFile(t, filepath.Join(ws, "base", "checks", "c_test.go"), baseTest)
	writeFile(t, filepath.Join(ws, "head", "checks", "c_test.go"), headTest)
	writeFile(t, filepath.Join(ws, "head", "app", "gen.go"), "// Code generated by x. DO NOT EDIT.\n\npackage app\n\nfunc g(token, b string) bool { return token == b }\n")
	writeFile(t, filepath.Join(ws, "head", "app", "moved.go"), "package app\n\nfunc m(token, b string) bool { return token == b }\n\nfunc n(apiKey, b string) bool { return apiKey == b }\n")
	writeFile(t, filepath.Join(ws, "base", "app", "old.go"), "package app\n\nfunc m(token, b string) bool { return token == b }\n")
	run := &envelope.Run{
		Stage: "code", Base: strings.Repeat("b", 40), Head: strings.Repeat("a", 40), Series: "/x/s",
		CheckPaths: []string{"checks/**"},
		Changes: []envelope.Change{
			{Path: "app/auth.go", Status: "M", Added: 10, Deleted: 2},
			{Path: "app/gen.go", Status: "A", Added: 5},
			{Path: "app/moved.go", OldPath: "app/old.go", Status: "R", Added: 2},
			{Path: "checks/c_test.go", Status: "M", Added: 8, Deleted: 2, CheckPath: true},
		},
	}
	pp := filepath.Join(dir, "packet.md")
	writeFile(t, pp, sparpacket.Markdown(run, sparpacket.Angles))
	p, err := parsePacket(string(mustRead(t, pp)))
	if err != nil {
		t.Fatal(err)
	}
	renamed := false
	for _, c := range p.changed {
		renamed = renamed || (c.path == "app/moved.go" && c.oldPath == "app/old.go" && c.basePath() == "app/old.go")
	}
	if !renamed {
		t.Fatalf("rename not parsed: %+v", p.changed)
	}
	res, err := review(p, ws, "all")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range res.Findings {
		got = append(got, f.Location+" "+f.Claim+" introduced="+f.IntroducedByChange+" regression="+f.Regression)
	}
	want := []string{
		"head/app/auth.go:21 The secret token is compared with ==, which is not constant-time. introduced=yes regression=yes",
		"head/app/auth.go:25 The secret password is written to a log line. introduced=yes regression=no",
		"head/app/moved.go:5 The secret apiKey is compared with ==, which is not constant-time. introduced=yes regression=no",
		"head/checks/c_test.go:11-13 TestWeakened asserts nothing: only a panic can make it fail. introduced=yes regression=yes",
		"head/checks/c_test.go:15-18 TestStillWeak asserts nothing: only a panic can make it fail. introduced=no regression=no",
		"head/checks/c_test.go:24-26 TestNew asserts nothing: only a panic can make it fail. introduced=yes regression=no",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
