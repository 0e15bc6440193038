package main

import (
	"go/ast"
	"go/token"
	"strings"
	"unicode"
)

// The precision rules of this reviewer: each says when a piece of Go code is
// what a finding claims, and each has a table test in rules_test.go. A
// reviewer's findings cost its user time; when a rule cannot tell, it stays
// silent.

// secretWord reports whether an identifier names a secret value: its last
// word is token, secret, password, passwd or passphrase (or ends so, as in
// csrftoken), or is key after api, secret, private, signing or hmac. A
// name whose secret word is followed by another word names something else:
// kubernetesSecretClient (a client), tokenType, secretName, passwordHash,
// tokenCount; a plural (tokens, secrets) is a collection, not a value.
func secretWord(name string) bool {
	w := words(name)
	if len(w) == 0 {
		return false
	}
	last := w[len(w)-1]
	for _, s := range []string{"token", "secret", "password", "passwd", "passphrase", "apikey"} {
		if strings.HasSuffix(last, s) {
			return true
		}
	}
	if last == "key" && len(w) > 1 {
		switch w[len(w)-2] {
		case "api", "secret", "private", "signing", "hmac":
			return true
		}
	}
	return false
}

// words splits an identifier into lower-case words at underscores, digits
// and case changes: APIKey is api key, userJWTToken is user jwt token.
func words(name string) []string {
	var out []string
	var cur []rune
	rs := []rune(name)
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	for i, r := range rs {
		switch {
		case r == '_' || unicode.IsDigit(r):
			flush()
			continue
		case unicode.IsUpper(r) && i > 0:
			prevLower := unicode.IsLower(rs[i-1])
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if prevLower || (unicode.IsUpper(rs[i-1]) && nextLower) {
				flush()
			}
		}
		cur = append(cur, r)
	}
	flush()
	return out
}

// secretValue returns the name of the secret an expression holds: an
// identifier or field whose name is a secret word (secretWord), seen through
// parentheses, a dereference and a string or []byte conversion; else "".
func secretValue(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.ParenExpr:
		return secretValue(e.X)
	case *ast.StarExpr:
		return secretValue(e.X)
	case *ast.Ident:
		if secretWord(e.Name) {
			return e.Name
		}
	case *ast.SelectorExpr:
		if secretWord(e.Sel.Name) {
			if x, ok := e.X.(*ast.Ident); ok {
				return x.Name + "." + e.Sel.Name
			}
			return e.Sel.Name
		}
	case *ast.CallExpr:
		if len(e.Args) == 1 && isConversion(e.Fun) {
			return secretValue(e.Args[0])
		}
	}
	return ""
}

// isConversion reports whether fun is string or []byte: a conversion that
// keeps the secret's value.
func isConversion(fun ast.Expr) bool {
	switch f := fun.(type) {
	case *ast.Ident:
		return f.Name == "string"
	case *ast.ArrayType:
		id, ok := f.Elt.(*ast.Ident)
		return ok && f.Len == nil && id.Name == "byte"
	}
	return false
}

// notAValue reports whether a comparison's operand is something a secret's
// value is not compared with for a timing attack to matter: nil, true or
// false, a literal (the empty string, a number, a fixed string), or a
// length (len or cap). `token != nil` and `len(secret) == 0` ask whether
// there is a secret, not what it is.
func notAValue(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.ParenExpr:
		return notAValue(e.X)
	case *ast.Ident:
		return e.Name == "nil" || e.Name == "true" || e.Name == "false"
	case *ast.BasicLit:
		return true
	case *ast.UnaryExpr:
		return notAValue(e.X)
	case *ast.CallExpr:
		if id, ok := e.Fun.(*ast.Ident); ok && (id.Name == "len" || id.Name == "cap") {
			return true
		}
	}
	return false
}

// secretComparison returns the secret's name when b compares a secret's
// value with == or != against another value; else "".
func secretComparison(b *ast.BinaryExpr) string {
	if b.Op != token.EQL && b.Op != token.NEQ {
		return ""
	}
	if notAValue(b.X) || notAValue(b.Y) {
		return ""
	}
	if name := secretValue(b.X); name != "" {
		return name
	}
	return secretValue(b.Y)
}

// compileTimeAssertion reports whether s is `var _ T = v` (every name _,
// a type given): an assertion the compiler checks, such as
// `var _ GraphBuilder = new(BasicGraphBuilder)`. A test holding one fails
// by not compiling; it is a check, whatever else it does.
func compileTimeAssertion(s ast.Stmt) bool {
	ds, ok := s.(*ast.DeclStmt)
	if !ok {
		return false
	}
	gd, ok := ds.Decl.(*ast.GenDecl)
	if !ok || gd.Tok != token.VAR || len(gd.Specs) == 0 {
		return false
	}
	for _, sp := range gd.Specs {
		vs, ok := sp.(*ast.ValueSpec)
		if !ok || vs.Type == nil || len(vs.Values) == 0 {
			return false
		}
		for _, n := range vs.Names {
			if n.Name != "_" {
				return false
			}
		}
	}
	return true
}

// testParam returns the *testing.T parameter's name when fn is a test
// function (func TestXxx(t *testing.T), not a method), else "".
func testParam(fn *ast.FuncDecl) string {
	if fn.Recv != nil || fn.Body == nil || !strings.HasPrefix(fn.Name.Name, "Test") {
		return ""
	}
	if fn.Type.Params == nil || len(fn.Type.Params.List) != 1 {
		return ""
	}
	f := fn.Type.Params.List[0]
	star, ok := f.Type.(*ast.StarExpr)
	if !ok || len(f.Names) != 1 {
		return ""
	}
	if sel, ok := star.X.(*ast.SelectorExpr); ok && sel.Sel.Name == "T" {
		if x, ok := sel.X.(*ast.Ident); ok && x.Name == "testing" {
			return f.Names[0].Name
		}
	}
	return ""
}

// neverFails reports whether a test function asserts nothing, so that only
// a panic in the code it calls can fail it: it calls no failure method of
// its *testing.T, hands t to nothing that could (a helper, an assertion
// library, t.Run), does not panic or exit, holds no compile-time assertion,
// and starts no goroutine (a test that does may be there for `go test
// -race`, which fails it on a data race).
func neverFails(fn *ast.FuncDecl) bool {
	t := testParam(fn)
	if t == "" {
		return false
	}
	for _, s := range fn.Body.List {
		if compileTimeAssertion(s) {
			return false
		}
	}
	return !canFail(fn.Body, t) && !startsGoroutines(fn.Body)
}

// startsGoroutines reports whether body has a go statement or calls a
// method named Go (sync.WaitGroup.Go, errgroup.Group.Go).
func startsGoroutines(body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.GoStmt:
			found = true
		case *ast.CallExpr:
			if sel, ok := n.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Go" {
				found = true
			}
		}
		return !found
	})
	return found
}

var failMethods = map[string]bool{"Error": true, "Errorf": true, "Fatal": true, "Fatalf": true, "Fail": true, "FailNow": true, "Run": true}

// canFail reports whether body calls a failure method on t (or t.Run),
// hands t (or its address) to another function, which may fail it, or
// panics, calls log.Fatal/Panic or os.Exit, which fail the test too.
func canFail(body *ast.BlockStmt, t string) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if found {
			return false
		}
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		switch f := call.Fun.(type) {
		case *ast.Ident:
			if f.Name == "panic" {
				found = true
			}
		case *ast.SelectorExpr:
			if x, ok := f.X.(*ast.Ident); ok {
				switch {
				case x.Name == t && failMethods[f.Sel.Name]:
					found = true
				case x.Name == "log" && (strings.HasPrefix(f.Sel.Name, "Fatal") || strings.HasPrefix(f.Sel.Name, "Panic")):
					found = true
				case x.Name == "os" && f.Sel.Name == "Exit":
					found = true
				}
			}
		}
		for _, a := range call.Args {
			if u, ok := a.(*ast.UnaryExpr); ok && u.Op == token.AND {
				a = u.X
			}
			if id, ok := a.(*ast.Ident); ok && id.Name == t {
				found = true
			}
		}
		return !found
	})
	return found
}
