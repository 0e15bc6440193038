package config

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/jaekit/spar/lib/envelope"
)

// Digest returns the configuration digest of docs/pipeline.md §2: the
// sha256 (lowercase hex) of the canonical JSON (docs/pipeline.md §2) of
// reviewers, configured_required, angles, caps, check_paths and rules,
// and exclude when the project configuration sets it.
//
// It depends only on the applied values in c, never on where they came from:
// model_source, effort_source, default_model, default_effort, choices,
// source, override and files stay out, so that the same applied values from
// a TOML file, clean-review or the default list give the same digest, and a
// model the agent chose enters as the applied model. spar-packet calls it
// again after adding --check-path globs to c.CheckPaths (G24).
func Digest(c *envelope.Config) (string, error) {
	b, err := Canonical(DigestValue(c))
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// DigestValue is the JSON value the digest covers, as a tree of
// map[string]any, []any, string, int, bool and nil.
func DigestValue(c *envelope.Config) map[string]any {
	reviewers := make([]any, 0, len(c.Reviewers))
	for _, r := range c.Reviewers {
		reviewers = append(reviewers, ReviewerValue(r))
	}
	required := make([]any, 0, len(c.ConfiguredRequired))
	for _, r := range c.ConfiguredRequired {
		required = append(required, map[string]any{"name": r.Name, "preset": r.Preset})
	}
	v := map[string]any{
		"reviewers":           reviewers,
		"configured_required": required,
		"angles":              list(c.Angles),
		"caps": map[string]any{
			"plan":       c.Caps.Plan,
			"plan_delta": c.Caps.PlanDelta,
			"code":       c.Caps.Code,
		},
		"check_paths": list(c.CheckPaths),
		"rules":       list(c.Rules),
	}
	// exclude changes what the packet lists: it is covered when set, and
	// absent otherwise (the digest of a configuration without it is the
	// digest it always was).
	if len(c.Exclude) > 0 {
		v["exclude"] = list(c.Exclude)
	}
	// budget_usd likewise: covered when written, as its shortest decimal
	// text (canonical JSON here has no floats).
	if c.BudgetUSD != nil {
		v["budget_usd"] = money(*c.BudgetUSD)
	}
	return v
}

// money is a budget as the digest covers it: the shortest decimal text
// that reads back as the same float ("0.5", "2").
func money(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// ReviewerValue is one applied reviewer entry as the digest covers it: its
// applied values, never where they came from. Two entries with the same
// value run the same reviewer the same way; a rerun keeps a reviewer's
// earlier completed review only when its entry's value is unchanged
// (lib/series, docs/review-round.md "Reruns").
func ReviewerValue(r envelope.Reviewer) map[string]any {
	v := map[string]any{
		"name":            r.Name,
		"preset":          r.Preset,
		"isolation":       r.Isolation,
		"required":        r.Required,
		"model":           optString(r.Model),
		"fallback_model":  optString(r.FallbackModel),
		"effort":          optString(r.Effort),
		"binary":          optString(r.Binary),
		"argv":            optList(r.Argv),
		"timeout_seconds": r.TimeoutSeconds,
		"allowed_models":  optList(r.AllowedModels),
		"allowed_efforts": optList(r.AllowedEfforts),
	}
	// env only where an entry names one: the digests of entries without
	// it stay what they were before the key existed.
	if len(r.Env) > 0 {
		v["env"] = optList(r.Env)
	}
	if r.BudgetUSD != nil {
		v["budget_usd"] = money(*r.BudgetUSD)
	}
	return v
}

// ReviewerChanges names, in sorted order, the keys of ReviewerValue whose
// values differ between two entries; none when they run the same way.
func ReviewerChanges(a, b envelope.Reviewer) []string {
	va, vb := ReviewerValue(a), ReviewerValue(b)
	var keys []string
	for k := range vb {
		if _, ok := va[k]; !ok {
			keys = append(keys, k) // env, budget_usd, in b only
		}
	}
	for k := range va {
		x, errx := Canonical(va[k])
		y, erry := Canonical(vb[k])
		if errx != nil || erry != nil || string(x) != string(y) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

func optString(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

// optList keeps the record's distinction between an absent list (null) and
// a present one.
func optList(l []string) any {
	if l == nil {
		return nil
	}
	return list(l)
}

// list is a list that is always present: nil and empty are both [].
func list(l []string) []any {
	out := make([]any, 0, len(l))
	for _, s := range l {
		out = append(out, s)
	}
	return out
}

// Canonical encodes v as canonical JSON (docs/pipeline.md §2): no
// whitespace, object keys sorted by their UTF-8 bytes, integers in shortest
// decimal form, strings escaped only where JSON requires it (RFC 8785's
// string form). v is a tree of map[string]any, []any, string, int, int64,
// bool and nil; anything else, and a string that is not valid UTF-8, is an
// error.
func Canonical(v any) ([]byte, error) {
	var b strings.Builder
	if err := canon(&b, v); err != nil {
		return nil, err
	}
	return []byte(b.String()), nil
}

func canon(b *strings.Builder, v any) error {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		if x {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case int:
		b.WriteString(strconv.Itoa(x))
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case string:
		return canonString(b, x)
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := canon(b, e); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys) // byte order of the UTF-8 keys
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := canonString(b, k); err != nil {
				return err
			}
			b.WriteByte(':')
			if err := canon(b, x[k]); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	default:
		return fmt.Errorf("canonical JSON: unsupported value of type %T", v)
	}
	return nil
}

func canonString(b *strings.Builder, s string) error {
	if !utf8.ValidString(s) {
		return fmt.Errorf("canonical JSON: string %q is not valid UTF-8", s)
	}
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\f':
			b.WriteString(`\f`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20:
			fmt.Fprintf(b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return nil
}
