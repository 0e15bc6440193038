package script

// Audit of rows G7 and G8, the reference grammar, unreadable locations and
// the representative forms (docs/review-round.md §6) through
// the consumers the rows name: "spar run and spar record use the same
// rule". Every representative form of testdata/input-forms.json is one
// finding of a result that a command reviewer gives in spar run and two
// native reviewers give through spar record --result and --transcript; the
// recorded round is then read where each consumer leaves its mark:
// findings.json (path, in_check_paths, location_unreadable, class,
// class_reason, links), ledger.jsonl (automatic deferral), summary.md (the
// (unreadable location) mark, the disposition column), spar gate
// (auto_deferred) and packet.md (the sentence on how to report).

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

var auditReaders = []struct{ name, what string }{
	{"c", "spar run (command preset)"},
	{"r", "spar record --result"},
	{"t", "spar record --transcript"},
}

// auditAutoDeferred reads the ledger of round dir: the auto-deferred finding IDs.
func auditAutoDeferred(t *testing.T, dir string) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "ledger.jsonl"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	m := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if l == "" {
			continue
		}
		var e struct {
			Finding     string `json:"finding"`
			Disposition string `json:"disposition"`
			Auto        bool   `json:"auto"`
		}
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("ledger.jsonl: %v", err)
		}
		if e.Disposition == "deferred" && e.Auto {
			// Re-recording the round (spar record) appends no second one.
			if m[e.Finding] {
				t.Errorf("ledger.jsonl defers %s automatically twice", e.Finding)
			}
			m[e.Finding] = true
		}
	}
	return m
}

// auditGateAutoDeferred is spar gate's auto_deferred for round dir.
func (a *auditRepo) auditGateAutoDeferred(dir string) int {
	a.t.Helper()
	out, errs, code := a.spar("gate", dir)
	if code != 0 && code != 1 {
		a.t.Fatalf("spar gate: exit %d\n%s", code, errs)
	}
	var rec struct {
		AutoDeferred *int `json:"auto_deferred"`
	}
	if err := json.Unmarshal([]byte(out), &rec); err != nil || rec.AutoDeferred == nil {
		a.t.Fatalf("spar gate printed no auto_deferred: %v\n%s", err, out)
	}
	return *rec.AutoDeferred
}

func byID(fs []auditFinding) map[string]auditFinding {
	m := map[string]auditFinding{}
	for _, f := range fs {
		m[f.ID] = f
	}
	return m
}

func intString(p *int) string {
	if p == nil {
		return "null"
	}
	return fmt.Sprint(*p)
}

func TestG7_Locations_EveryConsumer(t *testing.T) {
	t.Parallel()
	var forms struct {
		CheckPaths []string      `json:"check_paths"`
		Repository auditRepoSpec `json:"repository"`
		Forms      []struct {
			Location           string `json:"location"`
			Path               string `json:"path"`
			LineStart          *int   `json:"line_start"`
			LineEnd            *int   `json:"line_end"`
			InCheckPaths       bool   `json:"in_check_paths"`
			LocationUnreadable bool   `json:"location_unreadable"`
			ClassReasonPrefix  string `json:"class_reason_prefix"`
			Note               string `json:"note"`
		} `json:"forms"`
	}
	loadInputForms(t, "g7_locations", &forms)
	a, args, rules := newAuditRepoSpec(t, forms.Repository)
	// Every finding proposes hardening: a readable location is deferred
	// automatically, an unreadable one stays hardening with no
	// disposition (docs/review-round.md §7.3).
	var fs []map[string]any
	for _, f := range forms.Forms {
		m := auditFindingMap()
		m["location"], m["proposed_class"], m["introduced_by_change"] = f.Location, "hardening", "no"
		fs = append(fs, m)
	}
	out := a.auditRecordedRound("g7", args, rules, forms.CheckPaths, auditResultWith(a.head7, fs))
	got := byID(roundFindings(t, out))
	deferred := auditAutoDeferred(t, out)
	summary, err := os.ReadFile(filepath.Join(out, "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	readable := 0
	for i, want := range forms.Forms {
		t.Run(fmt.Sprintf("%02d_%q", i, want.Location), func(t *testing.T) {
			for _, c := range auditReaders {
				id := fmt.Sprintf("%s-F%d", c.name, i+1)
				g, ok := got[id]
				if !ok {
					t.Fatalf("%s: no finding %s", c.what, id)
				}
				if g.Location != want.Location || g.Path != want.Path || intString(g.LineStart) != intString(want.LineStart) ||
					intString(g.LineEnd) != intString(want.LineEnd) || g.InCheckPaths != want.InCheckPaths || g.LocationUnreadable != want.LocationUnreadable {
					t.Errorf("%s: path %q lines %s-%s in_check_paths %v unreadable %v; want %q %s-%s %v %v (%s)", c.what,
						g.Path, intString(g.LineStart), intString(g.LineEnd), g.InCheckPaths, g.LocationUnreadable,
						want.Path, intString(want.LineStart), intString(want.LineEnd), want.InCheckPaths, want.LocationUnreadable, want.Note)
				}
				if g.Class != "hardening" {
					t.Errorf("%s: class %s (%s), want hardening", c.what, g.Class, g.ClassReason)
				}
				row := "| " + id + " | hardening | " + want.Location
				if want.LocationUnreadable {
					if !strings.HasPrefix(g.ClassReason, want.ClassReasonPrefix+";") {
						t.Errorf("%s: class_reason %q, want it to start with %q", c.what, g.ClassReason, want.ClassReasonPrefix)
					}
					if deferred[id] {
						t.Errorf("%s: an unreadable location is deferred automatically in ledger.jsonl", c.what)
					}
					row += " (unreadable location) | "
					if !strings.Contains(string(summary), row) || !strings.Contains(string(summary), row+"Ratio divides by b unchecked | - |") {
						t.Errorf("%s: summary.md has no row %q…| - |", c.what, row)
					}
				} else {
					if strings.HasPrefix(g.ClassReason, "unreadable") {
						t.Errorf("%s: class_reason %q", c.what, g.ClassReason)
					}
					if !deferred[id] {
						t.Errorf("%s: a readable hardening finding is not deferred automatically in ledger.jsonl", c.what)
					}
					if !strings.Contains(string(summary), row+" | ") {
						t.Errorf("%s: summary.md has no row %q without the mark", c.what, row)
					}
				}
			}
		})
		if !want.LocationUnreadable {
			readable++
		}
	}
	t.Run("gate_auto_deferred", func(t *testing.T) {
		if n := a.with(t).auditGateAutoDeferred(out); n != readable*len(auditReaders) {
			t.Errorf("spar gate auto_deferred %d, want %d (the readable hardening findings only)", n, readable*len(auditReaders))
		}
		// docs/review-round.md §7.3: an unreadable hardening finding without a disposition
		// does not block the gate (every finding here is hardening). The
		// native review was recorded with --result, which counts for the
		// gate only with the user's words (docs/trust.md "The gate").
		if _, stderr, code := a.with(t).spar("waive", out, "--reviewer", "r", "--user-quote", "the audit wrote this result"); code != 0 {
			t.Fatalf("spar waive exit %d: %s", code, stderr)
		}
		if stdout, _, code := a.with(t).spar("gate", out); code != 0 {
			t.Errorf("spar gate exit %d, want 0 (passed):\n%s", code, stdout)
		}
	})
	t.Run("packet_sentence", func(t *testing.T) {
		p, err := os.ReadFile(filepath.Join(out, "packet.md"))
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []string{
			"optionally after the prefix `head/` (the head copy, the default), `base/` (the base copy) or `./`",
			"A round document (the subject, a rule or criteria document above) is named by its name, real path or file name.",
			"A location outside this grammar or naming nothing in the copies or the round documents is an unreadable location: the finding is kept, but it is classified without check paths and never deferred automatically.",
			"`link` uses the same grammar with the prefixes `head/` and `./` only.",
		} {
			if !strings.Contains(string(p), s) {
				t.Errorf("packet.md lacks %q", s)
			}
		}
	})
}

func TestG7_UnreadableClasses_EveryConsumer(t *testing.T) {
	t.Parallel()
	var table struct {
		CheckPaths []string          `json:"check_paths"`
		Location   string            `json:"location"`
		ReadAs     string            `json:"read_as"`
		Repository auditRepoSpec     `json:"repository"`
		Defaults   map[string]string `json:"defaults"`
		Rows       []struct {
			Given  map[string]string `json:"given"`
			IfRead struct {
				Class    string `json:"class"`
				Deferred bool   `json:"deferred_automatically"`
			} `json:"if_read"`
			Unreadable struct {
				Class    string `json:"class"`
				Deferred bool   `json:"deferred_automatically"`
			} `json:"unreadable"`
		} `json:"rows"`
	}
	loadInputForms(t, "g7_unreadable_classes", &table)
	a, args, rules := newAuditRepoSpec(t, table.Repository)
	var fs []map[string]any
	for _, row := range table.Rows {
		for _, loc := range []string{table.ReadAs, table.Location} {
			m := auditFindingMap()
			for k, v := range table.Defaults {
				m[k] = v
			}
			for k, v := range row.Given {
				m[k] = v
			}
			m["location"] = loc
			fs = append(fs, m)
		}
	}
	out := a.auditRecordedRound("g7-classes", args, rules, table.CheckPaths, auditResultWith(a.head7, fs))
	got := byID(roundFindings(t, out))
	deferred := auditAutoDeferred(t, out)
	wantAuto := 0
	for i, row := range table.Rows {
		t.Run(fmt.Sprintf("%02d_%v", i, row.Given), func(t *testing.T) {
			for _, c := range auditReaders {
				read, unread := got[fmt.Sprintf("%s-F%d", c.name, 2*i+1)], got[fmt.Sprintf("%s-F%d", c.name, 2*i+2)]
				if read.LocationUnreadable || read.Path != "checks/t.py" || unread.Path != "" || !unread.LocationUnreadable {
					t.Fatalf("%s: read %+v, unreadable %+v", c.what, read, unread)
				}
				if read.Class != row.IfRead.Class || deferred[read.ID] != row.IfRead.Deferred {
					t.Errorf("%s: read as %s: class %s (%s) deferred %v; want %s %v", c.what, table.ReadAs,
						read.Class, read.ClassReason, deferred[read.ID], row.IfRead.Class, row.IfRead.Deferred)
				}
				if unread.Class != row.Unreadable.Class || deferred[unread.ID] != row.Unreadable.Deferred {
					t.Errorf("%s: unreadable %s: class %s (%s) deferred %v; want %s %v", c.what, table.Location,
						unread.Class, unread.ClassReason, deferred[unread.ID], row.Unreadable.Class, row.Unreadable.Deferred)
				}
			}
		})
		for _, d := range []bool{row.IfRead.Deferred, row.Unreadable.Deferred} {
			if d {
				wantAuto += len(auditReaders)
			}
		}
	}
	t.Run("gate_auto_deferred", func(t *testing.T) {
		if n := a.with(t).auditGateAutoDeferred(out); n != wantAuto {
			t.Errorf("spar gate auto_deferred %d, want %d", n, wantAuto)
		}
	})
}

func TestG8_Links_EveryConsumer(t *testing.T) {
	t.Parallel()
	var table struct {
		Setups map[string]auditRepoSpec `json:"setups"`
		Rows   []struct {
			Row    string `json:"row"`
			Result string `json:"result"`
			Setup  string `json:"setup"`
			Links  []struct {
				LinkKind  string          `json:"link_kind"`
				Link      string          `json:"link"`
				Confirmed bool            `json:"confirmed"`
				Fragment  json.RawMessage `json:"fragment"`
			} `json:"links"`
		} `json:"rows"`
	}
	loadInputForms(t, "g8_links", &table)
	for setup, spec := range table.Setups {
		t.Run(setup, func(t *testing.T) {
			t.Parallel()
			a, args, rules := newAuditRepoSpec(t, spec)
			// A proposed defect at the repository root (readable, no check
			// paths): rule 7 keeps defect when the link is confirmed, rule
			// 6 makes it a note when it is not.
			type want struct {
				row, kind, link string
				confirmed       bool
				fragment        json.RawMessage
			}
			var fs []map[string]any
			var wants []want
			for _, row := range table.Rows {
				if row.Setup != setup {
					continue
				}
				for _, l := range row.Links {
					m := auditFindingMap()
					m["location"], m["introduced_by_change"], m["link_kind"], m["link"] = "head/", "no", l.LinkKind, l.Link
					fs = append(fs, m)
					wants = append(wants, want{row.Row, l.LinkKind, l.Link, l.Confirmed, l.Fragment})
				}
			}
			out := a.auditRecordedRound("g8-"+setup, args, rules, nil, auditResultWith(a.head7, fs))
			b, err := os.ReadFile(filepath.Join(out, "findings.json"))
			if err != nil {
				t.Fatal(err)
			}
			var raw struct {
				Findings []map[string]json.RawMessage `json:"findings"`
			}
			if err := json.Unmarshal(b, &raw); err != nil {
				t.Fatal(err)
			}
			rawByID := map[string]map[string]json.RawMessage{}
			for _, f := range raw.Findings {
				var id string
				_ = json.Unmarshal(f["id"], &id)
				rawByID[id] = f
			}
			// round.json links.rules keeps each rule document's names (G26
			// name, real absolute path), file_name and G8 line count.
			var rec struct {
				Links struct {
					Rules []struct {
						Names    []string `json:"names"`
						FileName string   `json:"file_name"`
						Lines    int      `json:"lines"`
					} `json:"rules"`
				} `json:"links"`
			}
			readJSON(t, filepath.Join(out, "round.json"), &rec)
			var wantRules []string
			for _, d := range spec.Documents {
				if d.Role != "rule" {
					continue
				}
				name, p := d.Name, filepath.Join(a.repo, filepath.FromSlash(d.Name))
				if d.Place == "outside" {
					name, p = filepath.Base(d.Name), filepath.Join(a.root, "outside", filepath.FromSlash(d.Name))
				}
				real, err := filepath.EvalSymlinks(p)
				if err != nil {
					t.Fatal(err)
				}
				lines := strings.Count(d.Text, "\n")
				if d.Text != "" && !strings.HasSuffix(d.Text, "\n") {
					lines++
				}
				wantRules = append(wantRules, fmt.Sprintf("%q %q %s %d", name, real, filepath.Base(d.Name), lines))
			}
			var gotRules []string
			for _, r := range rec.Links.Rules {
				if len(r.Names) != 2 {
					t.Errorf("links.rules names %q, want [name, real path]", r.Names)
					continue
				}
				gotRules = append(gotRules, fmt.Sprintf("%q %q %s %d", r.Names[0], r.Names[1], r.FileName, r.Lines))
			}
			sort.Strings(wantRules)
			sort.Strings(gotRules)
			if fmt.Sprint(gotRules) != fmt.Sprint(wantRules) {
				t.Errorf("round.json links.rules:\n got %q\nwant %q", gotRules, wantRules)
			}
			got := byID(roundFindings(t, out))
			for i, w := range wants {
				for _, c := range auditReaders {
					id := fmt.Sprintf("%s-F%d", c.name, i+1)
					g := got[id]
					where := fmt.Sprintf("%s: %s %q (%s)", c.what, w.kind, w.link, w.row)
					if w.confirmed {
						if g.LinkKind != w.kind || g.Link != w.link || g.Class != "defect" {
							t.Errorf("%s: link_kind %q link %q class %s (%s); want confirmed", where, g.LinkKind, g.Link, g.Class, g.ClassReason)
						}
						if f := compact(string(rawByID[id]["link_fragment"])); len(w.fragment) > 0 && f != compact(string(w.fragment)) {
							t.Errorf("%s: link_fragment %s, want %s", where, f, compact(string(w.fragment)))
						}
					} else {
						if g.LinkKind != "none" || g.Link != "" || g.ClaimedLinkKind == nil || *g.ClaimedLinkKind != w.kind ||
							g.ClaimedLink == nil || *g.ClaimedLink != w.link || g.Class != "note" {
							t.Errorf("%s: link_kind %q link %q claimed %v %v class %s (%s); want unconfirmed (none, \"\", the claim kept, note)",
								where, g.LinkKind, g.Link, g.ClaimedLinkKind, g.ClaimedLink, g.Class, g.ClassReason)
						}
					}
				}
			}
		})
	}
}

// TestG7_G8_RowForms_EveryConsumer: forms the rows and the grammar (docs/review-round.md §6.2) state
// beyond the representative table, through spar run and spar record.
func TestG7_G8_RowForms_EveryConsumer(t *testing.T) {
	t.Parallel()
	var forms struct {
		CheckPaths []string      `json:"check_paths"`
		Repository auditRepoSpec `json:"repository"`
	}
	loadInputForms(t, "g7_locations", &forms)
	a, args, rules := newAuditRepoSpec(t, forms.Repository)
	plan := filepath.Join(a.repo, "docs", "specs", "x", "PLAN.md")
	agents := filepath.Join(a.repo, "AGENTS.md")
	type form struct {
		location, path    string
		unreadable, check bool
		kind, link        string
		confirmed         bool
	}
	cases := []form{
		// G7: no prefix: the head copy, then the base copy.
		{location: "old.go:4", path: "old.go"},
		// G7: head/ or ./ never look at the base copy; base/ only at it.
		{location: "head/old.go:4", unreadable: true},
		{location: "./old.go", unreadable: true},
		{location: "base/docs/specs/x/PLAN.md:12", unreadable: true},
		{location: "base/checks/t.py:3", path: "checks/t.py", check: true},
		// G7: a prefix alone is the repository root (empty path).
		{location: "./", path: ""},
		{location: "base/", path: ""},
		// G7: lines are only recorded, not compared with the line count.
		{location: "head/checks/t.py:999-1000", path: "checks/t.py", check: true},
		// G7: a round document by its real absolute path.
		{location: plan + ":3", path: "docs/specs/x/PLAN.md"},
		// G7: a trailing / is removed: a folder of the copy.
		{location: "checks/", path: "checks", check: true},
		// G8: a rule document by its real absolute path.
		{location: "head/", kind: "rule", link: agents + ":2", confirmed: true},
		// G8: for rule, a head file that is no rule document is no target.
		{location: "head/", kind: "rule", link: "app/main.go:1"},
		// G8: for contract, a regular head file is looked up next.
		{location: "head/", kind: "contract", link: "app/main.go:30", confirmed: true},
		{location: "head/", kind: "contract", link: "app/main.go:31"},
		// G8: base/ is no prefix: a repository folder.
		{location: "head/", kind: "contract", link: "base/checks/t.py:2", confirmed: true},
		{location: "head/", kind: "contract", link: "base/old.go:1"},
		// G8: line 0 and end < start.
		{location: "head/", kind: "contract", link: "app/main.go:0"},
		{location: "head/", kind: "contract", link: "app/main.go:3-2"},
	}
	var fs []map[string]any
	for _, c := range cases {
		m := auditFindingMap()
		m["location"], m["introduced_by_change"] = c.location, "no"
		if c.kind != "" {
			m["link_kind"], m["link"] = c.kind, c.link
		} else {
			m["proposed_class"] = "hardening"
		}
		fs = append(fs, m)
	}
	out := a.auditRecordedRound("g7-g8-rows", args, rules, forms.CheckPaths, auditResultWith(a.head7, fs))
	got := byID(roundFindings(t, out))
	for i, c := range cases {
		for _, r := range auditReaders {
			g := got[fmt.Sprintf("%s-F%d", r.name, i+1)]
			if g.LocationUnreadable != c.unreadable || (!c.unreadable && (g.Path != c.path || g.InCheckPaths != c.check)) {
				t.Errorf("%s: G7 %q: path %q in_check_paths %v unreadable %v (%s); want %q %v %v", r.what, c.location,
					g.Path, g.InCheckPaths, g.LocationUnreadable, g.ClassReason, c.path, c.check, c.unreadable)
			}
			if c.kind == "" {
				continue
			}
			if c.confirmed != (g.LinkKind == c.kind && g.Link == c.link) || c.confirmed != (g.Class == "defect") {
				t.Errorf("%s: G8 %s %q: link_kind %q link %q class %s (%s); want confirmed %v", r.what, c.kind, c.link,
					g.LinkKind, g.Link, g.Class, g.ClassReason, c.confirmed)
			}
		}
	}
}

// TestG8_RowForms_EveryConsumer: G8's target order beyond the representative forms, in
// the "main" setup of input-forms.json g8_links: a rule document by its
// file name (one document has it), the same for contract (rule documents
// first), a head file for contract only by its repository path, a whole
// name with a space before the first word.
func TestG8_RowForms_EveryConsumer(t *testing.T) {
	t.Parallel()
	var table struct {
		Setups map[string]auditRepoSpec `json:"setups"`
	}
	loadInputForms(t, "g8_links", &table)
	a, args, rules := newAuditRepoSpec(t, table.Setups["main"])
	links := []struct {
		kind, link string
		confirmed  bool
	}{
		{"rule", "API rules.md:4", true},                // file name of rules/API rules.md
		{"rule", "api.md:3", true},                      // file name of base/api.md
		{"contract", "api.md:3", true},                  // rule documents first
		{"contract", "head/base/api.md:3", true},        // head/ removed, base/ kept
		{"contract", "x.md:4", false},                   // head files only by repository path
		{"contract", "run.sh:2", false},                 // same
		{"contract", "tools/run.sh:3", true},            // mode 100755
		{"contract", "tools/run.sh:4", false},           // beyond its 3 lines
		{"rule", "rules/API rules.md:4 and more", true}, // the path with a space up to the line
		{"rule", "rules/API rules.md and more", false},  // no line, the whole is no target: first word rules/API
		{"rule", "rules", false},                        // a folder
		{"rule", "contracts/x.md:1", false},             // a head file is no rule document
		{"contract", "contracts/x.md:1-4", true},
	}
	var fs []map[string]any
	for _, l := range links {
		m := auditFindingMap()
		m["location"], m["introduced_by_change"], m["link_kind"], m["link"] = "head/", "no", l.kind, l.link
		fs = append(fs, m)
	}
	out := a.auditRecordedRound("g8-rows", args, rules, nil, auditResultWith(a.head7, fs))
	got := byID(roundFindings(t, out))
	for i, l := range links {
		for _, r := range auditReaders {
			g := got[fmt.Sprintf("%s-F%d", r.name, i+1)]
			if l.confirmed != (g.LinkKind == l.kind && g.Link == l.link) || l.confirmed != (g.Class == "defect") {
				t.Errorf("%s: G8 %s %q: link_kind %q link %q class %s (%s); want confirmed %v", r.what, l.kind, l.link,
					g.LinkKind, g.Link, g.Class, g.ClassReason, l.confirmed)
			}
		}
	}
}
