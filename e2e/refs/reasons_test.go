package refs

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/jaekit/spar/lib/gate"
)

// documentedCodes are the codes of the reason table of docs/review-gate.md
// §3: the first cell of each row between the heading "## 3." and the next
// "## " heading.
func documentedCodes(t *testing.T, top string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(top, "docs", "review-gate.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	start := strings.Index(text, "\n## 3. ")
	if start < 0 {
		t.Fatal("docs/review-gate.md has no section 3")
	}
	rest := text[start+1:]
	if end := strings.Index(rest[3:], "\n## "); end >= 0 {
		rest = rest[:end+3]
	}
	row := regexp.MustCompile(`(?m)^\| ([0-9]+[a-z]?) \|`)
	var out []string
	for _, m := range row.FindAllStringSubmatch(rest, -1) {
		out = append(out, m[1])
	}
	return out
}

// Reason codes are data (docs/review-gate.md §4, reason_details): the
// codes the gate gives are one registry, lib/gate's Codes, and §3's table
// is held to it both ways. Every code of the table is given by some script:
// one of e2e/script/testdata shows the gate's record with it
// (`"code": "<code>"`).
func TestRefs_ReasonCodes(t *testing.T) {
	top := root(t)
	doc := documentedCodes(t, top)
	inDoc := map[string]int{}
	for _, c := range doc {
		inDoc[c]++
	}
	inReg := map[string]bool{}
	for _, c := range gate.Codes {
		if inReg[string(c.Code)] {
			t.Errorf("the registry holds the code %s twice", c.Code)
		}
		inReg[string(c.Code)] = true
		if inDoc[string(c.Code)] == 0 {
			t.Errorf("the code %s (%s) is not a row of docs/review-gate.md §3", c.Code, c.About)
		}
	}
	for c, n := range inDoc {
		if !inReg[c] {
			t.Errorf("docs/review-gate.md §3 has a row %s that is in no registry of lib/gate (Codes)", c)
		}
		if n > 1 {
			t.Errorf("docs/review-gate.md §3 has %d rows %s", n, c)
		}
	}
	shown := map[string]bool{}
	code := regexp.MustCompile(`"code": "([0-9]+[a-z]?)"`)
	for _, f := range projectFiles(t, top) {
		if !strings.HasPrefix(f.rel, "e2e/script/testdata/") || !strings.HasSuffix(f.rel, ".txtar") {
			continue
		}
		for _, m := range code.FindAllStringSubmatch(f.text, -1) {
			shown[m[1]] = true
		}
	}
	var missing []string
	for c := range inReg {
		if !shown[c] {
			missing = append(missing, c)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("no script of e2e/script/testdata shows the gate giving the codes %s (`\"code\": \"<code>\"` in its record)", strings.Join(missing, ", "))
	}
}
