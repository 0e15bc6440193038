package spar_test

// Audit of G1's standpoint_report ("a round with standpoints also accepts
// standpoint_report under the standpoint report rules") through every
// consumer: spar run with each preset, spar record --result and
// --transcript. An assigned reviewer must report (missing, null or
// malformed: invalid_output naming standpoint_report); an unassigned
// reviewer's report is not checked and recorded as null.

import (
	"fmt"
	"strings"
	"testing"
)

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
