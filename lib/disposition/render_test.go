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
