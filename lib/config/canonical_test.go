package config

import (
	"strings"
	"testing"

	"github.com/jaekit/spar/lib/envelope"
)

func TestCanonical_Form(t *testing.T) {
	v := map[string]any{
		"b":  []any{1, -20, true, false, nil},
		"a":  "q\"\\\b\t\n\f\r\x01\x1f <&> \u2028 é",
		"A":  map[string]any{"z": 0, "y": int64(7)},
		"aa": []any{},
	}
	got, err := Canonical(v)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"A":{"y":7,"z":0},"a":"q\"\\\b\t\n\f\r\u0001\u001f <&> ` + "\u2028" + ` é","aa":[],"b":[1,-20,true,false,null]}`
	if string(got) != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

func TestCanonical_Refuses(t *testing.T) {
	if _, err := Canonical(map[string]any{"x": "\xff"}); err == nil {
		t.Fatal("invalid UTF-8 accepted")
	}
	if _, err := Canonical(1.5); err == nil {
		t.Fatal("float accepted")
	}
}

func TestDigest_CoversOnlyAppliedValues(t *testing.T) {
	opus, high := "opus", "high"
	base := func() *envelope.Config {
		return &envelope.Config{
			Reviewers: []envelope.Reviewer{{
				Name: "claude", Preset: "claude", Isolation: "verified", Required: true,
				Model: &opus, Effort: &high, TimeoutSeconds: 1800,
				ModelSource: "preset", EffortSource: "preset", DefaultModel: &opus, DefaultEffort: &high,
			}},
			ConfiguredRequired: []envelope.RequiredReviewer{{Name: "claude", Preset: "claude"}},
			Angles:             []string{"design"},
			Caps:               envelope.Caps{Plan: 1, PlanDelta: 1, Code: 3},
			CheckPaths:         []string{},
			Rules:              []string{},
		}
	}
	d0, err := Digest(base())
	if err != nil {
		t.Fatal(err)
	}
	if len(d0) != 64 || strings.ToLower(d0) != d0 {
		t.Fatalf("digest %q is not lowercase hex sha256", d0)
	}
	// Provenance fields stay out.
	c := base()
	c.Reviewers[0].ModelSource, c.Reviewers[0].EffortSource = "user", "user"
	c.Reviewers[0].DefaultModel, c.Reviewers[0].DefaultEffort = nil, nil
	c.Source = envelope.Source{Kind: "HOME", Path: "/x"}
	c.Override = &envelope.Override{Kind: "--reviewers", Names: []string{"claude"}}
	c.Choices = []envelope.Choice{{Reviewer: "claude", Key: "model", Value: "opus"}}
	c.Files = []envelope.ConfigFile{{Path: "/x", SHA256: "00"}}
	c.Digest = "whatever"
	c.CheckPaths, c.Rules = nil, nil
	if d, _ := Digest(c); d != d0 {
		t.Fatalf("provenance changed the digest")
	}
	// Every applied value enters.
	for name, change := range map[string]func(*envelope.Config){
		"check_paths": func(c *envelope.Config) { c.CheckPaths = []string{"t/**"} },
		"rules":       func(c *envelope.Config) { c.Rules = []string{"AGENTS.md"} },
		"angles":      func(c *envelope.Config) { c.Angles = []string{"premises"} },
		"caps":        func(c *envelope.Config) { c.Caps.Code = 4 },
		"required":    func(c *envelope.Config) { c.ConfiguredRequired = nil },
		"model":       func(c *envelope.Config) { m := "sonnet"; c.Reviewers[0].Model = &m },
		"effort":      func(c *envelope.Config) { c.Reviewers[0].Effort = nil },
		"timeout":     func(c *envelope.Config) { c.Reviewers[0].TimeoutSeconds = 60 },
		"allowed":     func(c *envelope.Config) { c.Reviewers[0].AllowedModels = []string{"opus"} },
	} {
		c := base()
		change(c)
		if d, _ := Digest(c); d == d0 {
			t.Errorf("%s did not change the digest", name)
		}
	}
}
