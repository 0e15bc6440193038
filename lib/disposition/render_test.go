package disposition

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The spar driver's one-line synopsis of triage (its usage, a shell
// heredoc) lists exactly the table's options with their value words, in
// table order: Synopsis, whitespace aside.
func TestDriverTriageSynopsis(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "spar"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	var got []string
	for i, l := range lines {
		if !strings.HasPrefix(l, "  triage ROUND FINDING ") {
			continue
		}
		got = append(got, l)
		// continuation lines are indented past the command name
		for _, c := range lines[i+1:] {
			if !strings.HasPrefix(c, "         [") {
				break
			}
			got = append(got, c)
		}
		break
	}
	if got == nil {
		t.Fatal("no triage line in the spar driver's usage")
	}
	want := "triage ROUND FINDING --as DISPOSITION " + Synopsis()
	if g := strings.Join(strings.Fields(strings.Join(got, " ")), " "); g != want {
		t.Errorf("spar driver:\n%s\nwant (the rules table's options):\n%s", g, want)
	}
}

// UsageTable has one row per rule, in table order, and names every option
// each rule needs.
func TestUsageTableFollowsRules(t *testing.T) {
	u := UsageTable()
	at := -1
	for _, r := range Rules {
		i := strings.Index(u, "  --as "+r.Disposition+" ")
		if i <= at {
			t.Fatalf("--as %s out of table order:\n%s", r.Disposition, u)
		}
		at = i
		for _, n := range r.Needs {
			for _, o := range n.Options {
				if !strings.Contains(u[i:], optArg(o)) {
					t.Errorf("--as %s: %s not in the usage", r.Disposition, optArg(o))
				}
			}
		}
	}
	for _, l := range strings.Split(strings.TrimSuffix(u, "\n"), "\n") {
		if len(l) > usageWidth {
			t.Errorf("line wider than %d: %q", usageWidth, l)
		}
	}
}

// The advice names the verified fix claim first: a code-round defect's fix
// is --check CMD in place of the words --failed-before and --passed-after
// (which triage still accepts and the gate still reads, Needed); a plan
// round's is unchanged. The menu's code-round note names both.
func TestFormsNameTheVerifiedFix(t *testing.T) {
	if got := Forms("defect", "code")[0]; got != "--as fixed --commit REV --check CMD" {
		t.Errorf("code defect: %s", got)
	}
	if got := Forms("defect", "plan")[0]; got != "--as fixed --commit REV" {
		t.Errorf("plan defect: %s", got)
	}
	if got := Forms("requirement-question", "code")[0]; got != "--as answered --user-quote WORDS" {
		t.Errorf("code question: %s", got)
	}
	if got := StageAlso("defect", "code"); got != "--check CMD, or --failed-before CHECK --passed-after CHECK" {
		t.Errorf("code defect, also: %s", got)
	}
	for _, c := range [][2]string{{"defect", "plan"}, {"requirement-question", "code"}} {
		if got := StageAlso(c[0], c[1]); got != "" {
			t.Errorf("%s in a %s round, also: %q", c[0], c[1], got)
		}
	}
	r, _ := Lookup(Fixed)
	if got := strings.Join(r.Needed("defect", "code"), " "); got != "commit failed-before passed-after" {
		t.Errorf("what triage needs of a code defect's fix changed: %s", got)
	}
}
