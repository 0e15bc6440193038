// Package refs checks that every reference the project makes resolves
// inside the repository (docs/contract.md, "How references are checked"):
// the contract rows the code cites are indexed in docs/contract.md, no
// comment points at an issue or at a document that does not ship with the
// project, and every link and "docs/<file>.md §N" reference in the code and
// the docs names a file, a section and a heading that exist.
package refs

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"unicode"
)

// root is the repository root: the folder above the test's that holds go.mod.
func root(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's folder")
		}
		dir = parent
	}
}

// file is one text file of the project, relative to the root with "/".
type file struct {
	rel  string
	text string
}

// skipDirs are folders that hold no project text: git's own anywhere, the
// build output (make build's bin/) at the root.
var skipDirs = map[string]bool{".git": true, "node_modules": true}

var (
	filesOnce sync.Once
	filesRead []file
	filesErr  error
)

// projectFiles reads every text file of the tree (NUL-free, at most 4 MiB),
// once for all the tests of the package.
func projectFiles(t *testing.T, top string) []file {
	t.Helper()
	filesOnce.Do(func() { filesRead, filesErr = walk(top) })
	if filesErr != nil {
		t.Fatal(filesErr)
	}
	return filesRead
}

func walk(top string) ([]file, error) {
	var out []file
	err := filepath.WalkDir(top, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != top && (skipDirs[d.Name()] || p == filepath.Join(top, "bin")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil || info.Size() > 4<<20 {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if bytes.IndexByte(b, 0) >= 0 {
			return nil
		}
		rel, _ := filepath.Rel(top, p)
		out = append(out, file{rel: filepath.ToSlash(rel), text: string(b)})
		return nil
	})
	return out, err
}

// isCode tells whether a file is code whose row citations docs/contract.md
// must index: Go files, the driver, the scripts.
func isCode(rel string) bool {
	return strings.HasSuffix(rel, ".go") || rel == "spar" || strings.HasPrefix(rel, "scripts/")
}

// self is this file: it spells the forbidden references out to find them.
const self = "e2e/refs/refs_test.go"

var rowCite = regexp.MustCompile(`\bG([0-9]+)\b`)

// indexedRows reads the row IDs of docs/contract.md's tables: a table line
// whose first cell is G<n>.
func indexedRows(t *testing.T, top string) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(top, "docs", "contract.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]bool{}
	first := regexp.MustCompile(`^\|\s*(G[0-9]+)\s*\|`)
	for _, line := range strings.Split(string(b), "\n") {
		if m := first.FindStringSubmatch(line); m != nil {
			rows[m[1]] = true
		}
	}
	return rows
}

// TestRefs_CitedRowsAreIndexed: every G<n> the code cites is a row of
// docs/contract.md, so that a reader finds the rule and its tests.
func TestRefs_CitedRowsAreIndexed(t *testing.T) {
	top := root(t)
	rows := indexedRows(t, top)
	if len(rows) == 0 {
		t.Fatal("docs/contract.md has no G<n> rows")
	}
	for _, f := range projectFiles(t, top) {
		if !isCode(f.rel) || f.rel == self {
			continue
		}
		for i, line := range strings.Split(f.text, "\n") {
			for _, m := range rowCite.FindAllString(line, -1) {
				if !rows[m] {
					t.Errorf("%s:%d cites %s, which docs/contract.md does not index", f.rel, i+1, m)
				}
			}
		}
	}
}

// forbidden are references to what does not ship with the project: the
// design document, the contracts' own files, the folder beside the
// repository, and issue numbers. Each pattern is split so that this file
// does not hold the text it looks for.
var forbidden = []struct {
	re    *regexp.Regexp
	where func(rel string) bool
	why   string
}{
	{regexp.MustCompile(`DESIGN` + `\.md`), everywhere, "the design document does not ship with the project: cite the docs/ section"},
	{regexp.MustCompile(`\.` + `en\.md`), everywhere, "the contracts' files do not ship with the project: cite the row (G8) or the docs/ section"},
	{regexp.MustCompile(`shared` + `/spec|\.\./` + `shared`), everywhere, "../shared does not ship with the project"},
	{regexp.MustCompile(`(?i)\bissue` + `s? [0-9]|\bissue` + `'s\b`), notScriptData, "an issue is not part of the repository: cite the row or the docs/ section"},
}

func everywhere(string) bool { return true }

// notScriptData: a script's data may name an issue as the place a finding is
// tracked (spar triage --to with an issue's number); everything else may not.
func notScriptData(rel string) bool { return !strings.HasSuffix(rel, ".txtar") }

// helpText are the lines of usage texts that still name a contract's file.
// Help texts are rewritten on their own (their scripts assert them), so the
// check leaves exactly these lines to that rewrite; every other line of the
// same file is checked. Remove an entry once its text is gone.
var helpText = []struct{ file, text string }{
	{"spar", "print the applied configuration record (spar-config." + "en.md §4)"},
}

func isHelpText(rel, line string) bool {
	for _, h := range helpText {
		if h.file == rel && strings.Contains(line, h.text) {
			return true
		}
	}
	return false
}

// TestRefs_NoReferenceOutsideTheRepository: no file of the project points
// at a document outside it, and nothing but a script's data at an issue.
func TestRefs_NoReferenceOutsideTheRepository(t *testing.T) {
	top := root(t)
	for _, f := range projectFiles(t, top) {
		if f.rel == self {
			continue
		}
		for i, line := range strings.Split(f.text, "\n") {
			if isHelpText(f.rel, line) {
				continue
			}
			for _, fb := range forbidden {
				if fb.where(f.rel) && fb.re.MatchString(line) {
					t.Errorf("%s:%d: %q: %s", f.rel, i+1, fb.re.FindString(line), fb.why)
				}
			}
		}
	}
}

// headings returns the GitHub anchors of a Markdown file's headings and
// their text (outside fenced code blocks); titles also hold the bold labels
// that open a paragraph ("**Why a finding is open**"), which the docs use as
// the names of their smaller rules.
func headings(text string) (anchors map[string]bool, titles []string) {
	anchors = map[string]bool{}
	seen := map[string]int{}
	fence := ""
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fence = trimmed[:3]
			continue
		}
		if m := boldLabel.FindStringSubmatch(line); m != nil {
			titles = append(titles, m[1])
			continue
		}
		if !strings.HasPrefix(line, "#") {
			continue
		}
		title := strings.TrimLeft(line, "#")
		if title == "" || title[0] != ' ' {
			continue
		}
		title = strings.TrimSpace(title)
		titles = append(titles, title)
		a := slug(title)
		if n := seen[a]; n > 0 {
			anchors[fmt.Sprintf("%s-%d", a, n)] = true
		} else {
			anchors[a] = true
		}
		seen[a]++
	}
	return anchors, titles
}

var boldLabel = regexp.MustCompile(`^\*\*([^*]+)\*\*`)

var mdLinkText = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)

// slug is GitHub's heading anchor: the text of the heading, lower case,
// without punctuation other than "-" and "_", spaces as "-".
func slug(title string) string {
	title = mdLinkText.ReplaceAllString(title, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(title) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestRefs_MarkdownLinksResolve: every relative link in docs/ and
// README.md names a file of the repository and, with a #fragment, a
// heading of that file.
func TestRefs_MarkdownLinksResolve(t *testing.T) {
	top := root(t)
	checked := 0
	for _, f := range projectFiles(t, top) {
		if !strings.HasSuffix(f.rel, ".md") || !(f.rel == "README.md" || strings.HasPrefix(f.rel, "docs/")) {
			continue
		}
		for i, line := range strings.Split(f.text, "\n") {
			for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				checked++
				if err := resolveLink(top, f.rel, target); err != nil {
					t.Errorf("%s:%d: link %q: %v", f.rel, i+1, target, err)
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no relative link found in docs/ or README.md: docs/contract.md links every rule")
	}
}

// resolveLink checks one relative link of the Markdown file from.
func resolveLink(top, from, target string) error {
	path, frag, _ := strings.Cut(target, "#")
	file := from
	if path != "" {
		file = filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(from), path)))
		if file == ".." || strings.HasPrefix(file, "../") || filepath.IsAbs(path) {
			return fmt.Errorf("leaves the repository")
		}
	}
	info, err := os.Stat(filepath.Join(top, file))
	if err != nil {
		return fmt.Errorf("no such file %s", file)
	}
	if frag == "" {
		return nil
	}
	if info.IsDir() || !strings.HasSuffix(file, ".md") {
		return fmt.Errorf("#%s in %s, which is no Markdown file", frag, file)
	}
	b, err := os.ReadFile(filepath.Join(top, file))
	if err != nil {
		return err
	}
	anchors, _ := headings(string(b))
	if !anchors[frag] {
		return fmt.Errorf("%s has no heading with the anchor #%s", file, frag)
	}
	return nil
}

// commentJoin joins the lines of a comment that wraps, so that a reference
// broken over two lines ("docs/review-round.md\n// §6.2") is read whole.
var commentJoin = regexp.MustCompile(`\n[ \t]*(//|#)?[ \t]*`)

// docRef is a plain-text reference to a docs/ file, optionally followed by
// a section number (§6.2, section 6.2) or a quoted heading ("The workspace").
var docRef = regexp.MustCompile(`docs/([A-Za-z0-9_-]+\.md)(?:,? (?:§ ?|section )([0-9]+(?:\.[0-9]+)*)|,? "([^"]+)")?`)

// userDocs are the documents of a user's own repository that examples and
// tests name (spar run --criteria docs/criteria.md): not the project's docs.
var userDocs = map[string]bool{"criteria.md": true, "PLAN.md": true, "AC.md": true, "x.md": true}

// TestRefs_DocReferencesResolve: every "docs/<file>.md" the code and the
// docs name exists, and the section number or the quoted heading after it
// is a heading of that file.
func TestRefs_DocReferencesResolve(t *testing.T) {
	top := root(t)
	docs := map[string][]string{}
	entries, err := os.ReadDir(filepath.Join(top, "docs"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".md") {
			b, err := os.ReadFile(filepath.Join(top, "docs", e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			_, docs[e.Name()] = headings(string(b))
		}
	}
	checked := 0
	for _, f := range projectFiles(t, top) {
		if f.rel == self || strings.HasPrefix(f.rel, "testdata/") || strings.Contains(f.rel, "/testdata/") {
			continue
		}
		text := commentJoin.ReplaceAllString(f.text, " ")
		for _, m := range docRef.FindAllStringSubmatch(text, -1) {
			checked++
			titles, ok := docs[m[1]]
			if !ok && m[2] == "" && m[3] == "" && userDocs[m[1]] {
				continue
			}
			if !ok {
				t.Errorf("%s: %q: docs/%s does not exist", f.rel, m[0], m[1])
				continue
			}
			if m[2] != "" && !hasSection(titles, m[2]) {
				t.Errorf("%s: %q: docs/%s has no section %s", f.rel, m[0], m[1], m[2])
			}
			if m[3] != "" && !hasTitle(titles, m[3]) {
				t.Errorf("%s: %q: docs/%s has no heading %q", f.rel, m[0], m[1], m[3])
			}
		}
	}
	if checked == 0 {
		t.Fatal("no docs/ reference found")
	}
}

// hasSection: a heading numbered n ("6.2 Locations", "6. Classification").
func hasSection(titles []string, n string) bool {
	for _, h := range titles {
		num, _, _ := strings.Cut(h, " ")
		if strings.TrimSuffix(num, ".") == n {
			return true
		}
	}
	return false
}

// hasTitle: a heading holding the quoted text (a heading names its rule
// with more words than a reference repeats: "The workspace (…)").
func hasTitle(titles []string, q string) bool {
	for _, h := range titles {
		if strings.Contains(strings.ToLower(strings.ReplaceAll(h, "`", "")), strings.ToLower(q)) {
			return true
		}
	}
	return false
}

// TestRefs_EveryRowIsIndexedOnce: docs/contract.md indexes G1–G35, each in
// one row, so that the index is the whole contract table.
func TestRefs_EveryRowIsIndexedOnce(t *testing.T) {
	top := root(t)
	b, err := os.ReadFile(filepath.Join(top, "docs", "contract.md"))
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	first := regexp.MustCompile(`^\|\s*(G[0-9]+)\s*\|`)
	for _, line := range strings.Split(string(b), "\n") {
		if m := first.FindStringSubmatch(line); m != nil {
			count[m[1]]++
		}
	}
	var bad []string
	for n := 1; n <= 35; n++ {
		id := fmt.Sprintf("G%d", n)
		if count[id] != 1 {
			bad = append(bad, fmt.Sprintf("%s ×%d", id, count[id]))
		}
	}
	for id := range count {
		var n int
		if _, err := fmt.Sscanf(id, "G%d", &n); err != nil || n < 1 || n > 35 {
			bad = append(bad, id+" (no such row)")
		}
	}
	sort.Strings(bad)
	if len(bad) > 0 {
		t.Errorf("docs/contract.md rows: %s", strings.Join(bad, ", "))
	}
}

var (
	namedTest   = regexp.MustCompile(`\b((?:Test|Fuzz|Benchmark)[A-Z0-9_][A-Za-z0-9_]*)`)
	namedScript = regexp.MustCompile("([A-Za-z0-9_-]+\\.txtar)")
	testFunc    = regexp.MustCompile(`(?m)^func ((?:Test|Fuzz|Benchmark)[A-Za-z0-9_]+)\(`)
)

// TestRefs_NamedTestsExist: every test function and script docs/contract.md
// names exists somewhere in the tree, by name only, so that the index
// survives moving a test to another folder.
func TestRefs_NamedTestsExist(t *testing.T) {
	top := root(t)
	funcs, scripts := map[string]bool{}, map[string]bool{}
	for _, f := range projectFiles(t, top) {
		if strings.HasSuffix(f.rel, "_test.go") {
			for _, m := range testFunc.FindAllStringSubmatch(f.text, -1) {
				funcs[m[1]] = true
			}
		}
		if strings.HasSuffix(f.rel, ".txtar") {
			scripts[f.rel[strings.LastIndex(f.rel, "/")+1:]] = true
		}
	}
	b, err := os.ReadFile(filepath.Join(top, "docs", "contract.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	named := 0
	for _, m := range namedTest.FindAllStringSubmatch(text, -1) {
		named++
		if !funcs[m[1]] {
			t.Errorf("docs/contract.md names %s, which no _test.go file defines", m[1])
		}
	}
	for _, m := range namedScript.FindAllStringSubmatch(text, -1) {
		named++
		if !scripts[m[1]] {
			t.Errorf("docs/contract.md names the script %s, which is nowhere in the tree", m[1])
		}
	}
	if named == 0 {
		t.Fatal("docs/contract.md names no test")
	}
}

// TestRefs_NamesExplained: the names a newcomer meets in paths without
// knowing them (jaekit, clean-review) are said once in docs/usage.md, in
// its table of names, before any other line of it uses them; README.md
// points there for them.
func TestRefs_NamesExplained(t *testing.T) {
	top := root(t)
	b, err := os.ReadFile(filepath.Join(top, "docs", "usage.md"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	for _, name := range []string{"jaekit", "clean-review"} {
		def := "| **" + name + "** | "
		for i, l := range lines {
			if strings.HasPrefix(l, def) {
				break
			}
			if strings.Contains(l, name) {
				t.Errorf("docs/usage.md:%d uses %q before the line that says what it is (%q)", i+1, name, def)
				break
			}
			if i == len(lines)-1 {
				t.Errorf("docs/usage.md has no line %q saying what %s is", def, name)
			}
		}
	}
	readme, err := os.ReadFile(filepath.Join(top, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(readme), "jaekit") && !strings.Contains(string(readme), "docs/usage.md") {
		t.Errorf("README.md uses jaekit and does not point at docs/usage.md")
	}
}
