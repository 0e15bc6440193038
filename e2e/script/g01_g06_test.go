package script

// Audit of rows G1–G6 through every consumer the rows
// name: "Result check for every preset (spar run), spar record --result and
// --transcript (spar record)". One spar run has, for every form below, a
// reviewer of each preset (command, claude, codex, agy: the fakes of
// testdata/fake give the form as their result) and two native reviewers,
// recorded afterwards with spar record --result and --transcript. Every
// consumer must record the same status and reason, and that reason is the
// row's result (invalid_output naming the key at fault).

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// resultForm is one reviewer result and what every consumer records.
type resultForm struct {
	name   string // TestGn_… subtest name: the row first
	text   string // the result text; @H7@ and @H@ are the head's 7 and 40 characters
	status string
	reason string // exact reason; "" when completed
	// claude's structured_output holds a JSON value: forms that are not
	// one (or null, which the claude CLI gives for "no structured output")
	// cannot come through it.
	notClaude bool
}

var auditAngles = []string{"requirement-counterexample", "side-effects", "design", "premises", "check-validity"}

// auditFindingMap is one finding that passes G5; smallest_fix absent.
func auditFindingMap() map[string]any {
	return map[string]any{
		"id": "F1", "proposed_class": "defect", "angle": "side-effects", "location": "head/app/main.go:3",
		"claim": "Ratio divides by b unchecked", "failure_scenario": "Ratio(1, 0) panics", "evidence": "return a / b",
		"link_kind": "none", "link": "", "introduced_by_change": "yes", "regression": "no",
		"check_impact": "none", "confidence": "high",
	}
}

// auditResultMap is a result that passes G1–G6 for the five angles.
func auditResultMap() map[string]any {
	var checked []any
	for _, a := range auditAngles {
		checked = append(checked, map[string]any{"angle": a, "result": "looked at it"})
	}
	return map[string]any{
		"reviewed_head": "@H7@", "verdict": "blocking_findings", "angles_checked": checked,
		"angles_unchecked": []any{}, "findings": []any{auditFindingMap()}, "limits": "",
	}
}

func auditJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// with is the valid result with one change made by edit.
func with(edit func(r map[string]any)) string {
	r := auditResultMap()
	edit(r)
	return auditJSON(r)
}

// withFinding is the valid result whose one finding edit changed.
func withFinding(edit func(f map[string]any)) string {
	return with(func(r map[string]any) {
		f := auditFindingMap()
		edit(f)
		r["findings"] = []any{f}
	})
}

func resultForms() []resultForm {
	valid := with(func(map[string]any) {})
	inv := func(name, text, reason string) resultForm {
		return resultForm{name: name, text: text, status: "invalid_output", reason: reason}
	}
	ok := func(name, text string) resultForm { return resultForm{name: name, text: text, status: "completed"} }
	headReason := func(v string) string {
		return fmt.Sprintf("reviewed_head: %q is not the first 7 or more characters of the head commit @H@", v)
	}
	forms := []resultForm{
		// G1: one object with exactly the six keys.
		ok("G1_accepted", valid),
		ok("G1_whitespace_around", "\n  "+valid+"  \n"),
		{name: "G1_not_json", text: `{"verdict":`, status: "invalid_output", reason: "result: not one JSON value", notClaude: true},
		{name: "G1_two_objects", text: valid + valid, status: "invalid_output", reason: "result: not one JSON value", notClaude: true},
		inv("G1_list", "["+valid+"]", "result: not a JSON object (a list)"),
		inv("G1_string", `"a review"`, "result: not a JSON object (a string)"),
		inv("G1_number", `42`, "result: not a JSON object (a number)"),
		{name: "G1_null", text: `null`, status: "invalid_output", reason: "result: not a JSON object (null)", notClaude: true},
		inv("G1_unknown_key", with(func(r map[string]any) { r["score"] = 1 }), `unknown key "score"`),
		inv("G1_duplicate_key", strings.Replace(valid, `"verdict":"blocking_findings"`, `"verdict":"blocking_findings","verdict":"blocking_findings"`, 1), `verdict: duplicate key "verdict"`),
		inv("G1_standpoint_report_without_standpoints", with(func(r map[string]any) { r["standpoint_report"] = nil }), `unknown key "standpoint_report"`),
	}
	for _, k := range []string{"reviewed_head", "verdict", "angles_checked", "angles_unchecked", "findings", "limits"} {
		forms = append(forms, inv("G1_missing_"+k, with(func(r map[string]any) { delete(r, k) }), fmt.Sprintf("missing key %q", k)))
	}
	forms = append(forms,
		// G2: 7 or more characters, literally the beginning of the head ID.
		ok("G2_seven", valid),
		ok("G2_twelve", with(func(r map[string]any) { r["reviewed_head"] = "@H12@" })),
		ok("G2_full", with(func(r map[string]any) { r["reviewed_head"] = "@H@" })),
		inv("G2_six", with(func(r map[string]any) { r["reviewed_head"] = "@H6@" }), headReason("@H6@")),
		inv("G2_not_a_prefix", with(func(r map[string]any) { r["reviewed_head"] = "@NOTHEAD@" }), headReason("@NOTHEAD@")),
		inv("G2_upper_case", with(func(r map[string]any) { r["reviewed_head"] = "@H7UP@" }), headReason("@H7UP@")),
		inv("G2_longer_than_head", with(func(r map[string]any) { r["reviewed_head"] = "@H@0" }), headReason("@H@0")),
		inv("G2_empty", with(func(r map[string]any) { r["reviewed_head"] = "" }), headReason("")),
		inv("G2_number", with(func(r map[string]any) { r["reviewed_head"] = 1234567 }), "reviewed_head: not a string (a number)"),
		// G3: the three verdicts; could_not_review is recorded as failed.
		ok("G3_no_blocking_findings", with(func(r map[string]any) { r["verdict"] = "no_blocking_findings" })),
		ok("G3_blocking_findings", valid),
		resultForm{name: "G3_could_not_review", text: with(func(r map[string]any) {
			r["verdict"] = "could_not_review"
			r["limits"] = "the workspace was empty"
		}), status: "failed", reason: "verdict: could_not_review: the workspace was empty"},
		inv("G3_unknown", with(func(r map[string]any) { r["verdict"] = "approve" }), `verdict: "approve" is not one of no_blocking_findings, blocking_findings, could_not_review`),
		inv("G3_case", with(func(r map[string]any) { r["verdict"] = "Blocking_findings" }), `verdict: "Blocking_findings" is not one of no_blocking_findings, blocking_findings, could_not_review`),
		inv("G3_null", with(func(r map[string]any) { r["verdict"] = nil }), "verdict: not a string (null)"),
		// G4: angle items; each requested angle at least once in either list.
		ok("G4_unchecked", with(func(r map[string]any) {
			r["angles_checked"] = []any{}
			var un []any
			for _, a := range auditAngles {
				un = append(un, map[string]any{"angle": a, "reason": "no time"})
			}
			r["angles_unchecked"] = un
		})),
		ok("G4_repeats_and_both_lists", with(func(r map[string]any) {
			r["angles_checked"] = append(r["angles_checked"].([]any), map[string]any{"angle": "design", "result": "again"})
			r["angles_unchecked"] = []any{map[string]any{"angle": "design", "reason": "partly"}}
		})),
		inv("G4_missing_requested_angle", with(func(r map[string]any) { r["angles_checked"] = r["angles_checked"].([]any)[:3] }),
			`angles_checked, angles_unchecked: the requested angle "premises" is in neither list`),
		inv("G4_checked_not_a_list", with(func(r map[string]any) { r["angles_checked"] = map[string]any{"angle": "design"} }), "angles_checked: not a list (an object)"),
		inv("G4_unchecked_null", with(func(r map[string]any) { r["angles_unchecked"] = nil }), "angles_unchecked: not a list (null)"),
		inv("G4_item_not_an_object", with(func(r map[string]any) { r["angles_unchecked"] = []any{"design"} }), "angles_unchecked[0]: not an object (a string)"),
		inv("G4_missing_angle", with(func(r map[string]any) { r["angles_unchecked"] = []any{map[string]any{"reason": "x"}} }), `angles_unchecked[0]: missing key "angle"`),
		inv("G4_missing_result", with(func(r map[string]any) {
			r["angles_checked"].([]any)[0] = map[string]any{"angle": "requirement-counterexample"}
		}), `angles_checked[0]: missing key "result"`),
		inv("G4_missing_reason", with(func(r map[string]any) { r["angles_unchecked"] = []any{map[string]any{"angle": "design"}} }), `angles_unchecked[0]: missing key "reason"`),
		inv("G4_unknown_key", with(func(r map[string]any) {
			r["angles_checked"].([]any)[0].(map[string]any)["note"] = "x"
		}), `angles_checked[0]: unknown key "note"`),
		inv("G4_result_key_in_unchecked", with(func(r map[string]any) {
			r["angles_unchecked"] = []any{map[string]any{"angle": "design", "result": "x"}}
		}), `angles_unchecked[0]: unknown key "result"`),
		inv("G4_unknown_angle", with(func(r map[string]any) {
			r["angles_checked"].([]any)[0].(map[string]any)["angle"] = "Design"
		}), `angles_checked[0].angle: "Design" is not one of requirement-counterexample, side-effects, design, premises, check-validity`),
		inv("G4_value_not_a_string", with(func(r map[string]any) {
			r["angles_checked"].([]any)[0].(map[string]any)["result"] = []any{}
		}), "angles_checked[0].result: not a string (a list)"),
		// G5: finding items.
		ok("G5_smallest_fix_absent", valid),
		ok("G5_smallest_fix", withFinding(func(f map[string]any) { f["smallest_fix"] = "check b first" })),
		ok("G5_smallest_fix_empty", withFinding(func(f map[string]any) { f["smallest_fix"] = "" })),
		ok("G5_any_id_claim_evidence", withFinding(func(f map[string]any) { f["id"], f["claim"], f["evidence"] = "", "", "" })),
		ok("G5_no_findings", with(func(r map[string]any) { r["findings"] = []any{}; r["verdict"] = "no_blocking_findings" })),
		inv("G5_findings_not_a_list", with(func(r map[string]any) { r["findings"] = nil }), "findings: not a list (null)"),
		inv("G5_not_an_object", with(func(r map[string]any) { r["findings"] = []any{"a finding"} }), "findings[0]: not an object (a string)"),
		inv("G5_unknown_key", withFinding(func(f map[string]any) { f["severity"] = "high" }), `findings[0]: unknown key "severity"`),
		inv("G5_smallest_fix_null", withFinding(func(f map[string]any) { f["smallest_fix"] = nil }), "findings[0].smallest_fix: not a string (null)"),
		inv("G5_smallest_fix_number", withFinding(func(f map[string]any) { f["smallest_fix"] = 1 }), "findings[0].smallest_fix: not a string (a number)"),
		inv("G5_failure_scenario_empty", withFinding(func(f map[string]any) { f["failure_scenario"] = "" }), "findings[0].failure_scenario: blank (whitespace only)"),
		inv("G5_failure_scenario_whitespace", withFinding(func(f map[string]any) { f["failure_scenario"] = " \t\n\u00a0" }), "findings[0].failure_scenario: blank (whitespace only)"),
	)
	for _, k := range []string{"id", "proposed_class", "angle", "location", "claim", "failure_scenario", "evidence", "link_kind", "link", "introduced_by_change", "regression", "check_impact", "confidence"} {
		forms = append(forms,
			inv("G5_missing_"+k, withFinding(func(f map[string]any) { delete(f, k) }), fmt.Sprintf("findings[0]: missing key %q", k)),
			inv("G5_not_a_string_"+k, withFinding(func(f map[string]any) { f[k] = true }), fmt.Sprintf("findings[0].%s: not a string (a boolean)", k)))
	}
	for k, v := range map[string]string{
		"proposed_class": "defect, requirement-question, hardening, note", "angle": "requirement-counterexample, side-effects, design, premises, check-validity",
		"link_kind": "rule, contract, criterion, none", "introduced_by_change": "yes, no, unknown", "regression": "yes, no, unknown",
		"check_impact": "none, false_pass, meaning_inverted, contract_violation", "confidence": "high, medium, low",
	} {
		forms = append(forms, inv("G5_outside_enumeration_"+k, withFinding(func(f map[string]any) { f[k] = "Other" }),
			fmt.Sprintf("findings[0].%s: %q is not one of %s", k, "Other", v)))
	}
	forms = append(forms,
		// G6: limits is a string, the empty string included.
		ok("G6_empty", valid),
		ok("G6_text", with(func(r map[string]any) { r["limits"] = "did not run the tests" })),
		inv("G6_null", with(func(r map[string]any) { r["limits"] = nil }), "limits: not a string (null)"),
		inv("G6_number", with(func(r map[string]any) { r["limits"] = 0 }), "limits: not a string (a number)"),
		inv("G6_list", with(func(r map[string]any) { r["limits"] = []any{"x"} }), "limits: not a string (a list)"),
	)
	sort.SliceStable(forms, func(i, j int) bool { return forms[i].name < forms[j].name })
	return forms
}

// auditConsumers are the reviewer name prefixes of one form: the presets
// spar run runs, then the two native reviewers spar record records.
var auditConsumers = []struct{ prefix, what string }{
	{"c", "spar run, command preset"},
	{"k", "spar run, claude preset"},
	{"x", "spar run, codex preset"},
	{"a", "spar run, agy preset"},
	{"r", "spar record --result"},
	{"t", "spar record --transcript"},
}

func TestG1_G6_EveryConsumer(t *testing.T) {
	t.Parallel()
	a := newAuditRepo(t,
		map[string]string{"app/main.go": "package app\n\nfunc Ratio(a, b int) int { return 0 }\n", "AGENTS.md": "Check every divisor.\n"},
		map[string]string{"app/main.go": "package app\n\nfunc Ratio(a, b int) int { return a / b }\n"})
	forms := resultForms()
	subst := strings.NewReplacer("@H7@", a.head7, "@H12@", a.head[:12], "@H6@", a.head[:6], "@H@", a.head,
		"@H7UP@", strings.ToUpper(a.head[:7]), "@NOTHEAD@", "123456789")
	if strings.ToUpper(a.head[:7]) == a.head[:7] {
		t.Fatalf("the head ID %s has no letter in its first 7 characters: the upper-case form would be the same ID", a.head)
	}
	got, byReviewer, summaries := auditConsumerRounds(t, a, "g1-g6", forms, subst, nil)
	if t.Failed() {
		return
	}
	for i, f := range forms {
		t.Run(f.name, func(t *testing.T) {
			want := subst.Replace(f.reason)
			for _, c := range auditConsumers {
				if c.prefix == "k" && f.notClaude {
					continue
				}
				r, ok := got[fmt.Sprintf("%s%d", c.prefix, i)]
				if !ok {
					t.Errorf("%s: reviewer %s%d is not in round.json", c.what, c.prefix, i)
					continue
				}
				if r.Status != f.status || r.Reason != want {
					t.Errorf("%s: status %s reason %q; want %s %q", c.what, r.Status, r.Reason, f.status, want)
				}
				// invalid_output and failed (could_not_review) results are
				// not used: no findings; a completed one's are all recorded.
				wantN := 0
				if f.status == "completed" {
					var res struct {
						Findings []json.RawMessage `json:"findings"`
					}
					if err := json.Unmarshal([]byte(subst.Replace(f.text)), &res); err != nil {
						t.Fatal(err)
					}
					wantN = len(res.Findings)
				}
				if n := len(byReviewer[fmt.Sprintf("%s%d", c.prefix, i)]); n != wantN {
					t.Errorf("%s: %d findings in findings.json, want %d", c.what, n, wantN)
				}
			}
		})
	}

	// The consumers after the check: a completed result's findings are in
	// findings.json with reviewer_id and smallest_fix (G5), and summary.md
	// lists its smallest fixes and angles (G4, G5), alike for every preset.
	for i, f := range forms {
		if f.name != "G5_smallest_fix" && f.name != "G5_smallest_fix_empty" && f.name != "G5_smallest_fix_absent" && f.name != "G5_any_id_claim_evidence" {
			continue
		}
		t.Run(f.name+"_recorded", func(t *testing.T) {
			for _, c := range auditConsumers {
				name := fmt.Sprintf("%s%d", c.prefix, i)
				fs := byReviewer[name]
				if len(fs) != 1 {
					t.Errorf("%s: %d findings of %s in findings.json", c.what, len(fs), name)
					continue
				}
				g := fs[0]
				if g.ID != name+"-F1" {
					t.Errorf("%s: finding ID %q, want %s-F1", c.what, g.ID, name)
				}
				wantID := "F1"
				if f.name == "G5_any_id_claim_evidence" {
					wantID = ""
				}
				if g.ReviewerID != wantID {
					t.Errorf("%s: reviewer_id %q, want %q", c.what, g.ReviewerID, wantID)
				}
				// smallest_fix: the text, or no direction for "" and absent.
				fix := ""
				if g.SmallestFix != nil {
					fix = *g.SmallestFix
				}
				wantFix := map[string]string{"G5_smallest_fix": "check b first"}[f.name]
				if fix != wantFix {
					t.Errorf("%s: smallest_fix %q, want %q", c.what, fix, wantFix)
				}
				inSummary := strings.Contains(summaries[i], "- "+name+"-F1: check b first\n")
				if inSummary != (wantFix != "") {
					t.Errorf("%s: ## Smallest fixes of summary.md lists %s-F1: %v", c.what, name, inSummary)
				}
			}
		})
	}
	// G4: repeated angles and an angle in both lists are recorded as
	// received, and summary.md shows them so for every consumer.
	for i, f := range forms {
		if f.name != "G4_repeats_and_both_lists" {
			continue
		}
		t.Run(f.name+"_summary", func(t *testing.T) {
			checked := "- angles checked: " + strings.Join(auditAngles, ", ") + ", design\n- angles unchecked: design (partly)\n"
			if n := strings.Count(summaries[i], checked); n != len(auditConsumers) {
				t.Errorf("summary.md shows the repeated angles %d times, want once per consumer (%d):\n%s", n, len(auditConsumers), summaries[i])
			}
		})
	}
}

// auditConsumerRounds records every form through every consumer of
// auditConsumers: rounds of a few forms each (spar record re-records the
// whole round, so one round of every form would take minutes), run in
// parallel, the native reviewers in rounds of their own. runArgs, when not
// nil, adds spar run arguments for the forms lo..hi-1 of one round whose
// reviewers have the name prefixes (letters of auditConsumers). It returns round.json's reviewers by name, the
// findings by reviewer and each form's summary.md.
func auditConsumerRounds(t *testing.T, a *auditRepo, name string, forms []resultForm, subst *strings.Replacer,
	runArgs func(lo, hi int, prefixes string) []string) (map[string]roundReviewer, map[string][]auditFinding, map[int]string) {
	const chunk = 10
	got := map[string]roundReviewer{}
	byReviewer := map[string][]auditFinding{}
	summaries := map[int]string{}
	type roundOut struct {
		reviewers map[string]roundReviewer
		findings  []auditFinding
		summary   string
	}
	outs := make([]roundOut, (len(forms)+chunk-1)/chunk)
	t.Run("rounds", func(t *testing.T) {
		for lo := 0; lo < len(forms); lo += chunk {
			t.Run(fmt.Sprint(lo), func(t *testing.T) {
				t.Parallel()
				hi := min(lo+chunk, len(forms))
				a := a.with(t)
				var toml, natives strings.Builder
				for i := lo; i < hi; i++ {
					f := forms[i]
					file := a.write(fmt.Sprintf("%s/results/%d.json", name, i), subst.Replace(f.text), 0o644)
					fmt.Fprintf(&toml, "[[reviewers]]\nname = \"c%d\"\npreset = \"command\"\nargv = [\"cat\", %q]\n\n", i, file)
					if !f.notClaude {
						fmt.Fprintf(&toml, "[[reviewers]]\nname = \"k%d\"\npreset = \"claude\"\nbinary = %q\n\n", i, a.fakeWrapper(fmt.Sprintf("%s-claude%d", name, i), "claude", file))
					}
					fmt.Fprintf(&toml, "[[reviewers]]\nname = \"x%d\"\npreset = \"codex\"\nbinary = %q\n\n", i, a.fakeWrapper(fmt.Sprintf("%s-codex%d", name, i), "codex", file))
					fmt.Fprintf(&toml, "[[reviewers]]\nname = \"a%d\"\npreset = \"agy\"\nbinary = %q\n\n", i, a.fakeWrapper(fmt.Sprintf("%s-agy%d", name, i), "agy", file))
					fmt.Fprintf(&natives, "[[reviewers]]\nname = \"r%d\"\npreset = \"native\"\n\n", i)
					fmt.Fprintf(&natives, "[[reviewers]]\nname = \"t%d\"\npreset = \"native\"\n\n", i)
				}
				var o roundOut
				o.reviewers = map[string]roundReviewer{}
				// The native reviewers in a round of their own: spar record
				// re-records every reviewer of the round, so the fewer the
				// faster.
				for _, rnd := range []struct{ kind, toml, prefixes string }{{"run", toml.String(), "ckxa"}, {"native", natives.String(), "rt"}} {
					cfg := a.write(fmt.Sprintf("%s-%s-%d.toml", name, rnd.kind, lo), rnd.toml, 0o644)
					b := a.with(t, "SPAR_CONFIG="+cfg)
					out := filepath.Join(a.root, "reviews", fmt.Sprintf("%s-%s-%d", name, rnd.kind, lo), "code-1")
					args := []string{"run", "--stage", "code", "--base", a.base, "--head", a.head, "--out", out}
					if runArgs != nil {
						args = append(args, runArgs(lo, hi, rnd.prefixes)...)
					}
					b.mustSpar(args...)
					for i := lo; i < hi && rnd.kind == "native"; i++ {
						b.mustSpar("record", out, "--reviewer", fmt.Sprintf("r%d", i), "--result", filepath.Join(a.root, fmt.Sprintf("%s/results/%d.json", name, i)))
						tr := b.write(fmt.Sprintf("%s/transcripts/%d.jsonl", name, i), transcriptFor(out, fmt.Sprintf("t%d", i), subst.Replace(forms[i].text)), 0o644)
						b.mustSpar("record", out, "--reviewer", fmt.Sprintf("t%d", i), "--transcript", tr)
					}
					sum, err := os.ReadFile(filepath.Join(out, "summary.md"))
					if err != nil {
						t.Fatal(err)
					}
					for k, v := range roundReviewers(t, out) {
						o.reviewers[k] = v
					}
					o.findings = append(o.findings, roundFindings(t, out)...)
					o.summary += string(sum)
				}
				outs[lo/chunk] = o
			})
		}
	})
	for n, o := range outs {
		for k, v := range o.reviewers {
			got[k] = v
		}
		for _, f := range o.findings {
			byReviewer[f.Reviewer] = append(byReviewer[f.Reviewer], f)
		}
		for i := n * chunk; i < min((n+1)*chunk, len(forms)); i++ {
			summaries[i] = o.summary
		}
	}
	return got, byReviewer, summaries
}

// TestG4_RequestedAngles_EveryConsumer: the requested angles are the
// project's (G22), here design and premises: each must appear in either
// list, other angles are accepted, for every consumer.
func TestG4_RequestedAngles_EveryConsumer(t *testing.T) {
	t.Parallel()
	a := auditBaseRepo(t)
	a.writeFiles(map[string]string{".jaekit/spar.toml": "angles = [\"premises\", \"design\"]\n"})
	// The project configuration is the head commit's: spar run refuses a
	// round whose configuration differs from it (docs/review-round.md
	// "Inputs that differ from the head commit").
	a.git("add", "-A")
	a.git("commit", "-q", "--amend", "--no-edit")
	a.head = a.git("rev-parse", "HEAD")
	a.head7 = a.head[:7]
	checked := func(angles ...string) func(r map[string]any) {
		return func(r map[string]any) {
			var l []any
			for _, x := range angles {
				l = append(l, map[string]any{"angle": x, "result": "ok"})
			}
			r["angles_checked"] = l
		}
	}
	forms := []resultForm{
		{name: "G4_requested_only", text: with(checked("design", "premises")), status: "completed"},
		{name: "G4_requested_unchecked", text: with(func(r map[string]any) {
			checked("design")(r)
			r["angles_unchecked"] = []any{map[string]any{"angle": "premises", "reason": "no time"}}
		}), status: "completed"},
		{name: "G4_unrequested_too", text: with(checked(auditAngles...)), status: "completed"},
		{name: "G4_requested_missing", text: with(checked("design", "side-effects")), status: "invalid_output",
			reason: `angles_checked, angles_unchecked: the requested angle "premises" is in neither list`},
		{name: "G4_none", text: with(checked()), status: "invalid_output",
			reason: `angles_checked, angles_unchecked: the requested angle "design" is in neither list`},
	}
	// with(checked()) gives a null list: an empty one is meant.
	forms[4].text = strings.Replace(forms[4].text, `"angles_checked":null`, `"angles_checked":[]`, 1)
	got, _, _ := auditConsumerRounds(t, a, "g4-angles", forms, strings.NewReplacer("@H7@", a.head7), nil)
	if t.Failed() {
		return
	}
	for i, f := range forms {
		for _, c := range auditConsumers {
			r := got[fmt.Sprintf("%s%d", c.prefix, i)]
			if r.Status != f.status || r.Reason != f.reason {
				t.Errorf("%s %s: status %s reason %q; want %s %q", f.name, c.what, r.Status, r.Reason, f.status, f.reason)
			}
		}
	}
}

// Audit of G1's standpoint_report ("a round with standpoints also accepts
// standpoint_report under the standpoint report rules") through every
// consumer: spar run with each preset, spar record --result and
// --transcript. An assigned reviewer must report (missing, null or
// malformed: invalid_output naming standpoint_report); an unassigned
// reviewer's report is not checked and recorded as null.

func TestG1_StandpointReport_EveryConsumer(t *testing.T) {
	t.Parallel()
	a := auditBaseRepo(t)
	withReport := func(report any) string {
		return with(func(r map[string]any) { r["standpoint_report"] = report })
	}
	type spForm struct {
		resultForm
		assigned bool
		recorded string // round.json standpoint_report when completed
	}
	inv := func(name, text, reason string) spForm {
		return spForm{resultForm{name: name, text: text, status: "invalid_output", reason: reason}, true, ""}
	}
	forms := []spForm{
		{resultForm{name: "assigned_checked", text: withReport(map[string]any{"checked": true, "detail": "tried a stale key"}), status: "completed"}, true, `{"checked":true,"detail":"tried a stale key"}`},
		{resultForm{name: "assigned_not_checked", text: withReport(map[string]any{"checked": false, "detail": "no cache in this change"}), status: "completed"}, true, `{"checked":false,"detail":"no cache in this change"}`},
		inv("assigned_missing", with(func(map[string]any) {}), "standpoint_report: missing (this reviewer has a standpoint)"),
		inv("assigned_null", withReport(nil), "standpoint_report: null (this reviewer has a standpoint)"),
		inv("assigned_string", withReport("checked"), "standpoint_report: not an object (a string)"),
		inv("assigned_checked_string", withReport(map[string]any{"checked": "yes", "detail": "d"}), "standpoint_report.checked: not a boolean (a string)"),
		inv("assigned_blank_detail", withReport(map[string]any{"checked": true, "detail": " \n"}), "standpoint_report.detail: blank (whitespace only)"),
		inv("assigned_extra_key", withReport(map[string]any{"checked": true, "detail": "d", "more": 1}), `standpoint_report: unknown key "more"`),
		{resultForm{name: "unassigned_omitted", text: with(func(map[string]any) {}), status: "completed"}, false, "null"},
		{resultForm{name: "unassigned_null", text: withReport(nil), status: "completed"}, false, "null"},
		{resultForm{name: "unassigned_malformed", text: withReport("whatever"), status: "completed"}, false, "null"},
		{resultForm{name: "unassigned_valid", text: withReport(map[string]any{"checked": true, "detail": "x"}), status: "completed"}, false, "null"},
		// Every round of auditConsumerRounds (10 forms) has an assigned reviewer.
		inv("assigned_missing_detail", withReport(map[string]any{"checked": true}), `standpoint_report: missing key "detail"`),
		inv("assigned_detail_number", withReport(map[string]any{"checked": true, "detail": 3}), "standpoint_report.detail: not a string (a number)"),
	}
	rf := make([]resultForm, len(forms))
	for i, f := range forms {
		rf[i] = f.resultForm
	}
	subst := strings.NewReplacer("@H7@", a.head7)
	got, _, _ := auditConsumerRounds(t, a, "standpoints", rf, subst, func(lo, hi int, prefixes string) []string {
		var args []string
		for i := lo; i < hi; i++ {
			if !forms[i].assigned {
				continue
			}
			for _, p := range prefixes {
				args = append(args, "--standpoint", fmt.Sprintf("%c%d=a stale cache key after logout", p, i))
			}
		}
		return args
	})
	if t.Failed() {
		return
	}
	for i, f := range forms {
		t.Run(f.name, func(t *testing.T) {
			for _, c := range auditConsumers {
				name := fmt.Sprintf("%s%d", c.prefix, i)
				r, ok := got[name]
				if !ok {
					t.Errorf("%s: %s not in round.json", c.what, name)
					continue
				}
				if r.Status != f.status || r.Reason != f.reason {
					t.Errorf("%s: status %s reason %q; want %s %q", c.what, r.Status, r.Reason, f.status, f.reason)
				}
				if f.status == "completed" && compact(string(r.Report)) != f.recorded {
					t.Errorf("%s: standpoint_report %s, want %s", c.what, r.Report, f.recorded)
				}
			}
		})
	}
}
