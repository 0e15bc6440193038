// Package standpoint reads the --standpoint NAME=TEXT arguments of spar run
// (the standpoint arguments, docs/pipeline.md §4).
//
// The first = separates the reviewer name from the text; the option may be
// repeated. A missing = or an empty name is a usage error (64). Refused (65):
// a name outside this run's configured reviewers and --reviewers, more than
// one standpoint for a reviewer, text empty after trimming whitespace, or
// invalid UTF-8. Names are compared exactly and case-sensitively (G20).
// Other text is kept unchanged.
package standpoint

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/jaekit/spar/lib/envelope"
)

// Split splits one --standpoint value at the first =. The error is a usage
// error.
func Split(arg string) (envelope.Standpoint, error) {
	name, text, ok := strings.Cut(arg, "=")
	if !ok {
		return envelope.Standpoint{}, fmt.Errorf("--standpoint %q: missing = between the reviewer name and the text", arg)
	}
	if name == "" {
		return envelope.Standpoint{}, fmt.Errorf("--standpoint %q: empty reviewer name", arg)
	}
	return envelope.Standpoint{Reviewer: name, Text: text}, nil
}

// Check validates the standpoints against the accepted names (the union of
// the configured reviewers and the names selected by --reviewers), in the
// order given. The error is a refusal naming the offending name or value.
func Check(sps []envelope.Standpoint, accepted []string) error {
	ok := map[string]bool{}
	for _, n := range accepted {
		ok[n] = true
	}
	seen := map[string]bool{}
	for _, sp := range sps {
		if !utf8.ValidString(sp.Reviewer) {
			return fmt.Errorf("--standpoint %q: the reviewer name is not valid UTF-8", sp.Reviewer)
		}
		if !ok[sp.Reviewer] {
			return fmt.Errorf("--standpoint %q: not a reviewer of this run (reviewers: %s)", sp.Reviewer, strings.Join(accepted, ", "))
		}
		if seen[sp.Reviewer] {
			return fmt.Errorf("--standpoint %q: more than one standpoint for this reviewer", sp.Reviewer)
		}
		seen[sp.Reviewer] = true
		if !utf8.ValidString(sp.Text) {
			return fmt.Errorf("--standpoint %q: the text %q is not valid UTF-8", sp.Reviewer, sp.Text)
		}
		if strings.TrimSpace(sp.Text) == "" {
			return fmt.Errorf("--standpoint %q: the text %q is empty after trimming whitespace", sp.Reviewer, sp.Text)
		}
	}
	return nil
}

// Accepted is the union of the configured reviewers and the names of this
// run, in that order, each once. The applied configuration record holds the
// run's reviewers (config.reviewers, which are the --reviewers names when
// that override was given) and the reviewers the configuration makes
// required (config.configured_required); their union is the set.
func Accepted(c *envelope.Config) []string {
	var out []string
	seen := map[string]bool{}
	add := func(n string) {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	for _, n := range c.ConfiguredNames {
		add(n)
	}
	for _, r := range c.ConfiguredRequired {
		add(r.Name)
	}
	for _, r := range c.Reviewers {
		add(r.Name)
	}
	return out
}

// For returns the standpoint text of reviewer, or nil when it has none.
func For(sps []envelope.Standpoint, reviewer string) *string {
	for _, sp := range sps {
		if sp.Reviewer == reviewer {
			t := sp.Text
			return &t
		}
	}
	return nil
}
