package sparclassify

// Every representative form for G7 and G8, read from
// testdata/input-forms.json and run through spar-classify's Main
// against the repository each form needs.

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/jaekit/spar/lib/envelope"
)

type locationForm struct {
	Location           string `json:"location"`
	Path               string `json:"path"`
	LineStart          *int   `json:"line_start"`
	LineEnd            *int   `json:"line_end"`
	InCheckPaths       bool   `json:"in_check_paths"`
	LocationUnreadable bool   `json:"location_unreadable"`
	ClassReasonPrefix  string `json:"class_reason_prefix"`
	Note               string `json:"note"`
}

func TestG7_Locations(t *testing.T) {
	var forms struct {
		About      string         `json:"about"`
		CheckPaths []string       `json:"check_paths"`
		Repository repoSpec       `json:"repository"`
		Forms      []locationForm `json:"forms"`
	}
	loadForms(t, "g7_locations", &forms)
	r := buildRepo(t, forms.Repository)
	var fs []finding
	for i, f := range forms.Forms {
		fs = append(fs, newFinding(i, f.Location, nil))
	}
	got := classifyBin(t, envelopeFor(r, forms.CheckPaths, nil, map[string][]finding{"claude": fs}, []string{"claude"}))
	if len(got) != len(forms.Forms) {
		t.Fatalf("%d findings for %d forms", len(got), len(forms.Forms))
	}
	for i, want := range forms.Forms {
		g := got[i]
		if g.ID != fmt.Sprintf("claude-F%d", i+1) || g.Location != want.Location {
			t.Errorf("finding %d: id %q location %q", i, g.ID, g.Location)
		}
		if g.Path != want.Path || intp(g.LineStart) != intp(want.LineStart) || intp(g.LineEnd) != intp(want.LineEnd) ||
			g.InCheckPaths != want.InCheckPaths || g.LocationUnreadable != want.LocationUnreadable {
			t.Errorf("G7 %q (%s): got path %q lines %s-%s in_check_paths %v unreadable %v; want %q %s-%s %v %v (%s)",
				want.Location, want.Note, g.Path, intp(g.LineStart), intp(g.LineEnd), g.InCheckPaths, g.LocationUnreadable,
				want.Path, intp(want.LineStart), intp(want.LineEnd), want.InCheckPaths, want.LocationUnreadable, g.ClassReason)
		}
		if want.LocationUnreadable && !strings.HasPrefix(g.ClassReason, want.ClassReasonPrefix+";") {
			t.Errorf("G7 %q: class_reason %q, want prefix %q", want.Location, g.ClassReason, want.ClassReasonPrefix)
		}
		if !want.LocationUnreadable && strings.HasPrefix(g.ClassReason, "unreadable") {
			t.Errorf("G7 %q: class_reason %q", want.Location, g.ClassReason)
		}
		// in_check_paths decides rule 3 for a readable location.
		if !want.LocationUnreadable && want.InCheckPaths != (g.ClassReason == "rule 3: in check paths (checks/**)") {
			t.Errorf("G7 %q: class %s (%s)", want.Location, g.Class, g.ClassReason)
		}
	}
}

type classResult struct {
	Class                 string `json:"class"`
	DeferredAutomatically bool   `json:"deferred_automatically"`
}

func TestG7_UnreadableClasses(t *testing.T) {
	var table struct {
		About      string            `json:"about"`
		CheckPaths []string          `json:"check_paths"`
		Location   string            `json:"location"`
		ReadAs     string            `json:"read_as"`
		Repository repoSpec          `json:"repository"`
		Defaults   map[string]string `json:"defaults"`
		Rows       []struct {
			Given      map[string]string `json:"given"`
			IfRead     classResult       `json:"if_read"`
			Unreadable classResult       `json:"unreadable"`
		} `json:"rows"`
	}
	loadForms(t, "g7_unreadable_classes", &table)
	r := buildRepo(t, table.Repository)
	var fs []finding
	for i, row := range table.Rows {
		over := map[string]string{}
		for k, v := range table.Defaults {
			over[k] = v
		}
		for k, v := range row.Given {
			over[k] = v
		}
		fs = append(fs, newFinding(2*i, table.ReadAs, over), newFinding(2*i+1, table.Location, over))
	}
	got := classifyBin(t, envelopeFor(r, table.CheckPaths, nil, map[string][]finding{"codex": fs}, []string{"codex"}))
	if len(got) != 2*len(table.Rows) {
		t.Fatalf("%d findings for %d rows", len(got), len(table.Rows))
	}
	// spar-record defers automatically exactly the hardening findings whose
	// location was read (docs/review-round.md §6.1).
	deferred := func(f envelope.Finding) bool { return f.Class == "hardening" && !f.LocationUnreadable }
	for i, row := range table.Rows {
		read, unread := got[2*i], got[2*i+1]
		if read.LocationUnreadable || read.Path != "checks/t.py" || !read.InCheckPaths {
			t.Fatalf("row %v: %q was not read as checks/t.py: %+v", row.Given, table.ReadAs, read)
		}
		if !unread.LocationUnreadable || unread.Path != "" || unread.InCheckPaths {
			t.Fatalf("row %v: %q was read: %+v", row.Given, table.Location, unread)
		}
		if read.Class != row.IfRead.Class || deferred(read) != row.IfRead.DeferredAutomatically {
			t.Errorf("row %v read: class %s (%s), want %s", row.Given, read.Class, read.ClassReason, row.IfRead.Class)
		}
		if unread.Class != row.Unreadable.Class || deferred(unread) != row.Unreadable.DeferredAutomatically {
			t.Errorf("row %v unreadable: class %s (%s), want %s", row.Given, unread.Class, unread.ClassReason, row.Unreadable.Class)
		}
		if !strings.HasPrefix(unread.ClassReason, "unreadable location (") {
			t.Errorf("row %v: class_reason %q", row.Given, unread.ClassReason)
		}
	}
}

type linkForm struct {
	LinkKind  string                 `json:"link_kind"`
	Link      string                 `json:"link"`
	Confirmed bool                   `json:"confirmed"`
	Fragment  *envelope.LinkFragment `json:"fragment"`
}

func TestG8_Links(t *testing.T) {
	var table struct {
		About  string              `json:"about"`
		Setups map[string]repoSpec `json:"setups"`
		Rows   []struct {
			Row    string     `json:"row"`
			Result string     `json:"result"`
			Setup  string     `json:"setup"`
			Links  []linkForm `json:"links"`
		} `json:"rows"`
	}
	loadForms(t, "g8_links", &table)
	for name, spec := range table.Setups {
		t.Run(name, func(t *testing.T) {
			r := buildRepo(t, spec)
			var fs []finding
			var want []linkForm
			var rows []string
			for _, row := range table.Rows {
				if row.Setup != name {
					continue
				}
				for _, l := range row.Links {
					// A location outside the check paths, so that rules 6
					// and 7 show the link's effect on the class.
					fs = append(fs, newFinding(len(fs), "head/", map[string]string{
						"proposed_class": "defect", "link_kind": l.LinkKind, "link": l.Link}))
					want = append(want, l)
					rows = append(rows, row.Row)
				}
			}
			if len(fs) == 0 {
				t.Fatalf("setup %s is used by no row", name)
			}
			got := classifyBin(t, envelopeFor(r, []string{"checks/**"}, nil, map[string][]finding{"agy": fs}, []string{"agy"}))
			for i, w := range want {
				g := got[i]
				if g.ClaimedLinkKind != w.LinkKind || g.ClaimedLink != w.Link {
					t.Errorf("%s: claimed %s %q", rows[i], g.ClaimedLinkKind, g.ClaimedLink)
				}
				confirmed := g.LinkKind != "none"
				if confirmed != w.Confirmed {
					t.Errorf("%s: %s %q confirmed=%v, want %v (%s)", rows[i], w.LinkKind, w.Link, confirmed, w.Confirmed, g.ClassReason)
					continue
				}
				if w.Confirmed {
					if g.LinkKind != w.LinkKind || g.Link != w.Link || !reflect.DeepEqual(g.LinkFragment, w.Fragment) {
						t.Errorf("%s: %s %q: link %s %q fragment %+v, want %+v", rows[i], w.LinkKind, w.Link, g.LinkKind, g.Link, g.LinkFragment, w.Fragment)
					}
					if g.Class != "defect" || !strings.HasPrefix(g.ClassReason, "rule 7: proposed_class defect, "+w.LinkKind+" link confirmed") {
						t.Errorf("%s: %q class %s (%s)", rows[i], w.Link, g.Class, g.ClassReason)
					}
				} else {
					if g.Link != "" || g.LinkFragment != nil {
						t.Errorf("%s: unconfirmed %q keeps link %q fragment %+v", rows[i], w.Link, g.Link, g.LinkFragment)
					}
					if g.Class != "note" || !strings.HasPrefix(g.ClassReason, "rule 6: proposed_class defect, link not confirmed (") {
						t.Errorf("%s: %q class %s (%s)", rows[i], w.Link, g.Class, g.ClassReason)
					}
				}
			}
		})
	}
}
