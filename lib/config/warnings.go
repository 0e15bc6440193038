package config

import (
	"fmt"
	"slices"
	"strings"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/spend"
)

// Warnings are what the applied configuration c should make a user look
// twice at (docs/pipeline.md "Warnings"): never a refusal, said once by the
// stage that decides the configuration (spar config, spar doctor, and so
// once per spar run), before anything runs.
func Warnings(c *envelope.Config, getenv func(string) string) []string {
	var out []string
	if p := MissingSparConfig(c.Source, getenv); p != "" {
		out = append(out, fmt.Sprintf("SPAR_CONFIG names %s, which does not exist: the reviewers come from %s instead (a missing file is skipped, G16); create that file or correct SPAR_CONFIG", p, DescribeSource(c)))
	}
	if c.BudgetUSD != nil && len(c.Reviewers) > 0 {
		priced := false
		var names []string
		for _, r := range c.Reviewers {
			p, _ := LookupPreset(r.Preset)
			priced = priced || p.Priced
			names = append(names, r.Name+" ("+r.Preset+")")
		}
		if !priced {
			out = append(out, fmt.Sprintf("budget_usd %s stops nothing: no reviewer of this run states a spend spar can price (%s; only claude and codex reviewers are priced), so the round's spend stays $0.00 whatever they cost", spend.Money(*c.BudgetUSD), strings.Join(names, ", ")))
		}
	}
	return out
}

// MissingSparConfig is the absolute path SPAR_CONFIG names when that file
// is absent (skipped by G16, so another source or the defaults apply);
// "" when SPAR_CONFIG is unset or empty, or its file was read.
func MissingSparConfig(src envelope.Source, getenv func(string) string) string {
	p := getenv("SPAR_CONFIG")
	if p == "" {
		return ""
	}
	if a := absPath(p); slices.Contains(src.Skipped, a) {
		return a
	}
	return ""
}
