package script

// Audit of row G9 (criterion IDs) through its consumers:
// the criteria ID set (links.criteria_ids in round.json), criterion link
// confirmation in classification (class), findings.json and the sentence on
// how to report in packet.md, for spar run and spar record alike.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestG9_CriterionIDs_EveryConsumer(t *testing.T) {
	t.Parallel()
	a := newAuditRepo(t,
		map[string]string{"app/main.go": "package app\n"},
		map[string]string{"app/main.go": "package app\n\nvar X = 1\n"})
	// IDs: AC-<digits> with no ASCII letter or digit right before or after;
	// several in one text; the whole text of every criteria document.
	crit1 := a.write("docs/criteria.md", "# Criteria\n\nAC-1 login works.\nAC-2,AC-3 both.\nAC-01 is padded.\n"+
		"xAC-7 and AC-8x are no IDs, nor AC- alone.\n_AC-9_ and ÄAC-10 are IDs.\nAC-1 again.\n", 0o644)
	crit2 := a.write("more/criteria.md", "(AC-11)\n", 0o644)
	links := []struct {
		link      string
		confirmed bool
	}{
		{"AC-1", true},
		{"AC-1,AC-2", true},
		{"see AC-3 and AC-01", true},
		{"AC-9", true},
		{"AC-10", true},
		{"AC-11 (second document)", true},
		{"AC-1_", true},
		{"AC-1, AC-99", false}, // one ID not in the documents
		{"AC-001", false},      // literal: AC-001 is not AC-01 or AC-1
		{"AC-7", false},        // xAC-7 is no ID
		{"AC-8", false},        // AC-8x is no ID
		{"", false},            // no ID
		{"AC-1x", false},       // no ID
		{"xAC-1", false},       // no ID
		{"ac-1", false},        // no ID: case counts
	}
	var fs []map[string]any
	for _, l := range links {
		m := auditFindingMap()
		m["location"], m["introduced_by_change"], m["link_kind"], m["link"] = "head/", "no", "criterion", l.link
		fs = append(fs, m)
	}
	out := a.auditRecordedRound("g9", []string{"--criteria", crit1, "--criteria", crit2}, nil, nil, auditResultWith(a.head7, fs))

	var rec struct {
		Links struct {
			CriteriaIDs []string `json:"criteria_ids"`
		} `json:"links"`
	}
	readJSON(t, filepath.Join(out, "round.json"), &rec)
	want := []string{"AC-1", "AC-2", "AC-3", "AC-01", "AC-9", "AC-10", "AC-11"}
	if fmt.Sprint(rec.Links.CriteriaIDs) != fmt.Sprint(want) {
		t.Errorf("round.json links.criteria_ids %q, want %q", rec.Links.CriteriaIDs, want)
	}
	got := byID(roundFindings(t, out))
	for i, l := range links {
		for _, c := range auditReaders {
			g := got[fmt.Sprintf("%s-F%d", c.name, i+1)]
			if l.confirmed {
				if g.LinkKind != "criterion" || g.Link != l.link || g.Class != "defect" {
					t.Errorf("%s: criterion %q: link_kind %q link %q class %s (%s); want confirmed, defect", c.what, l.link, g.LinkKind, g.Link, g.Class, g.ClassReason)
				}
			} else if g.LinkKind != "none" || g.Link != "" || g.ClaimedLinkKind == nil || *g.ClaimedLinkKind != "criterion" ||
				g.ClaimedLink == nil || *g.ClaimedLink != l.link || g.Class != "note" {
				t.Errorf("%s: criterion %q: link_kind %q link %q claimed %v class %s (%s); want unconfirmed, note", c.what, l.link, g.LinkKind, g.Link, g.ClaimedLink, g.Class, g.ClassReason)
			}
		}
	}
	p, err := os.ReadFile(filepath.Join(out, "packet.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(p), "For `criterion` it holds criterion IDs (`AC-1`, `AC-1,AC-2`).") {
		t.Errorf("packet.md does not say how to report a criterion link")
	}
}
