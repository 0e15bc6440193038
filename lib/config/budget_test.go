package config

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// budget_usd (spar's own key, docs/review-round.md "Spend and budgets"):
// top level, the round's budget; in a claude or codex entry, each
// attempt's. Both are carried in the applied record and the digest when
// written; without them the record and the digest are what they were.
func TestBudget_Config(t *testing.T) {
	f := newFixture(t)
	f.env["SPAR_CONFIG"] = f.write("u.toml", `budget_usd = 2

[[reviewers]]
name = "c"
preset = "claude"
budget_usd = 0.5

[[reviewers]]
name = "x"
preset = "codex"
`)
	c := f.load(Options{})
	if c.BudgetUSD == nil || *c.BudgetUSD != 2 {
		t.Errorf("round budget %v", c.BudgetUSD)
	}
	if b := c.Reviewers[0].BudgetUSD; b == nil || *b != 0.5 {
		t.Errorf("claude budget %v", b)
	}
	if c.Reviewers[1].BudgetUSD != nil {
		t.Errorf("codex budget %v", *c.Reviewers[1].BudgetUSD)
	}
	b, _ := json.Marshal(c)
	if !strings.Contains(string(b), `"budget_usd":2}`) || !strings.Contains(string(b), `"budget_usd":0.5}`) {
		t.Errorf("record: %s", b)
	}
	if DigestValue(c)["budget_usd"] != "2" || ReviewerValue(c.Reviewers[0])["budget_usd"] != "0.5" {
		t.Errorf("digest values %v %v", DigestValue(c)["budget_usd"], ReviewerValue(c.Reviewers[0])["budget_usd"])
	}
	if got := ReviewerChanges(c.Reviewers[1], c.Reviewers[0]); !slices.Contains(got, "budget_usd") {
		t.Errorf("changes %v", got)
	}
	d1 := c.Digest

	// Without the key: nothing of it in the record, the digest as before.
	f.env["SPAR_CONFIG"] = f.write("u.toml", "[[reviewers]]\nname = \"c\"\npreset = \"claude\"\n\n[[reviewers]]\nname = \"x\"\npreset = \"codex\"\n")
	c = f.load(Options{})
	b, _ = json.Marshal(c)
	if strings.Contains(string(b), "budget") {
		t.Errorf("record without budget_usd: %s", b)
	}
	if _, ok := DigestValue(c)["budget_usd"]; ok || c.Digest == d1 {
		t.Errorf("digest without budget: %v", DigestValue(c))
	}

	for _, bad := range []struct{ file, want string }{
		{"budget_usd = 0\n", `u.toml:1: budget_usd: want a number of US dollars above 0, got the integer 0`},
		{"budget_usd = -0.5\n", `u.toml:1: budget_usd: want a number of US dollars above 0, got the float -0.5`},
		{"budget_usd = inf\n", `u.toml:1: budget_usd: want a number of US dollars above 0, got the float +Inf`},
		{"budget_usd = nan\n", `u.toml:1: budget_usd: want a number of US dollars above 0, got the float NaN`},
		{"budget_usd = \"1\"\n", `u.toml:1: budget_usd: want a number of US dollars above 0, got the string "1"`},
		{"[[reviewers]]\npreset = \"claude\"\nbudget_usd = 0\n", `u.toml:3: budget_usd: want a number of US dollars above 0, got the integer 0`},
		{"[[reviewers]]\npreset = \"agy\"\nbudget_usd = 1\n", `u.toml:3: budget_usd: the agy preset does not use budget_usd`},
		{"[[reviewers]]\npreset = \"native\"\nbudget_usd = 1\n", `u.toml:3: budget_usd: the native preset does not use budget_usd`},
		{"[[reviewers]]\npreset = \"command\"\nargv = [\"x\"]\nbudget_usd = 1\n", `u.toml:4: budget_usd: the command preset does not use budget_usd`},
	} {
		f.env["SPAR_CONFIG"] = f.write("u.toml", bad.file)
		if _, err := f.try(Options{}); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: %v, want %q", bad.file, err, bad.want)
		}
	}
}
