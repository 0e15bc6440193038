package checks

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"testing"
)

// TestTokensComparedInConstantTime enforces rule 1 of AGENTS.md: no token is
// compared with == or != in the app package (a comparison that stops at the
// first differing byte leaks how much of a guess was right).
func TestTokensComparedInConstantTime(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "app", "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no Go files in ../app: %v", err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			b, ok := n.(*ast.BinaryExpr)
			if ok && (b.Op == token.EQL || b.Op == token.NEQ) && (isToken(b.X) || isToken(b.Y)) {
				t.Errorf("%s: a token is compared with %s; use subtle.ConstantTimeCompare", fset.Position(b.Pos()), b.Op)
			}
			return true
		})
	}
}

// isToken reports whether e is a field named Token (l.Token) or a variable
// named token.
func isToken(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.SelectorExpr:
		return e.Sel.Name == "Token"
	case *ast.Ident:
		return e.Name == "token"
	}
	return false
}
