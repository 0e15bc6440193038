package shellcheck

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

type form struct {
	Section  string `json:"section"`
	Line     string `json:"line"`
	Accepted bool   `json:"accepted"`
	Problem  string `json:"problem"`
}

func inputForms(t testing.TB) []form {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "input-forms.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		AgyCommands struct {
			Forms []form `json:"forms"`
		} `json:"agy_commands"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.AgyCommands.Forms) == 0 {
		t.Fatal("input-forms.json: agy_commands.forms is empty")
	}
	return doc.AgyCommands.Forms
}

// TestG11_InputForms: every example line of the representative forms "G11
// agy shell commands" comes out with the section's verdict and first problem.
func TestG11_InputForms(t *testing.T) {
	sections := map[string]int{}
	for _, f := range inputForms(t) {
		sections[f.Section]++
		ok, p := Check(f.Line)
		if ok != f.Accepted || p != f.Problem {
			t.Errorf("%s: Check(%q) = %v, %q; want %v, %q", f.Section, f.Line, ok, p, f.Accepted, f.Problem)
		}
		if v := Verdict(f.Line); v != (Problem{f.Line, f.Accepted, f.Problem}) {
			t.Errorf("Verdict(%q) = %+v", f.Line, v)
		}
	}
	// The section's four groups: 11 accepted, 15 accepted before, 41
	// violations, the newline.
	want := map[string]int{"accepted": 11, "accepted_before": 15, "violation": 41, "newline": 1}
	if !reflect.DeepEqual(sections, want) {
		t.Errorf("input-forms.json agy_commands sections = %v, want %v", sections, want)
	}
}

// TestG11_InspectScriptMatchesInputForms: the testscript that drives
// `spar-exec check-shell` feeds exactly the lines of input-forms.json and
// expects exactly their verdicts, so the binary is held to the same forms.
func TestG11_InspectScriptMatchesInputForms(t *testing.T) {
	ar, err := txtar.ParseFile(filepath.Join("..", "..", "e2e", "script", "testdata", "g10_g14", "g11_input_forms.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, f := range ar.Files {
		files[f.Name] = f.Data
	}
	var lines []string
	if err := json.Unmarshal(files["lines.json"], &lines); err != nil {
		t.Fatalf("lines.json: %v", err)
	}
	var want []Problem
	if err := json.Unmarshal(files["want.json"], &want); err != nil {
		t.Fatalf("want.json: %v", err)
	}
	forms := inputForms(t)
	var fl []string
	var fw []Problem
	for _, f := range forms {
		fl = append(fl, f.Line)
		fw = append(fw, Problem{f.Line, f.Accepted, f.Problem})
	}
	if !reflect.DeepEqual(lines, fl) {
		t.Errorf("g11_input_forms.txtar lines.json differs from input-forms.json agy_commands")
	}
	if !reflect.DeepEqual(want, fw) {
		t.Errorf("g11_input_forms.txtar want.json differs from input-forms.json agy_commands")
	}
}

// outside holds cases of our own for every "result outside the format" of
// the G11 row, grouped by the rule they exercise, plus accepted neighbours
// that show where each rule stops.
var outside = []struct {
	rule    string
	line    string
	problem string // "" means accepted
}{
	// Any other program.
	{"program", "rm -rf head", "rm"},
	{"program", "echo hi", "echo"},
	{"program", "bash -c ls", "bash"},
	{"program", "xargs cat", "xargs"},
	{"program", "env ls", "env"},
	{"program", "[ -f x ]", "["},
	{"program", "exec ls", "exec"},
	{"program", `"touch" x`, `"touch"`},
	{"program", "'' head", "''"},
	{"program", "X=1 ls", "X=1"},
	{"program", "ls && touch x && rm y", "touch"},
	{"program", "ls -la | head && cd x", "cd"},
	{"program", `"ls" head`, ""},
	{"program", `\ls head`, ""},
	{"program", "true", ""},
	{"program", "egrep x head | fgrep y | nl | cut -c1-5 | tr a b | uniq | wc -l", ""},
	{"program", "stat head/a && file head/a && tail -n 5 head/a", ""},
	// Any other operator.
	{"operator", "ls & ls", "&"},
	{"operator", "ls ;& ls", ";&"},
	{"operator", "ls ;;& ls", ";;&"},
	{"operator", "ls |& cat", "|&"},
	{"operator", "grep 'a;b' head", ""},
	{"operator", `grep a\;b head`, ""},
	{"operator", `grep "a|b" head`, ""},
	{"operator", `grep a\|b head`, ""},
	{"operator", `grep 'a&&b' head || grep "c||d" head`, ""},
	// Any other redirection.
	{"redirection", "ls > x", ">"},
	{"redirection", "ls >> x", ">>"},
	{"redirection", "cat < head/a", "<"},
	{"redirection", "cat <<< x", "<<<"},
	{"redirection", "cat << EOF", "<<"},
	{"redirection", "ls &> x", "&>"},
	{"redirection", "ls &>> x", "&>>"},
	{"redirection", "ls >&2", ">&"},
	{"redirection", "ls 2>&10", ">&"},
	{"redirection", "ls >| x", ">|"},
	{"redirection", "ls <> x", "<>"},
	{"redirection", "ls 2> /dev/null", ">"},
	{"redirection", "ls 1>/dev/null", ">"},
	{"redirection", "ls x2>/dev/null", ">"},
	{"redirection", "ls 2>/dev/nullx", ">"},
	{"redirection", "ls 2>&1>x", ">"},
	{"redirection", "cat >(ls)", ">("},
	{"redirection", "ls 2>&1 | head", ""},
	{"redirection", "ls 2>/dev/null|head", ""},
	{"redirection", "2>&1 ls head", ""},
	{"redirection", "ls head 2>/dev/null 2>&1", ""},
	{"redirection", `grep -n "2>&1" head/a`, ""},
	// Command substitution.
	{"substitution", "ls $(id)", "$("},
	{"substitution", `ls "$(id)"`, "$("},
	{"substitution", "ls \"`id`\"", "`"},
	{"substitution", "ls $((1+1))", "$("},
	{"substitution", "grep '$(id)' head", ""},
	{"substitution", "grep '`id`' head", ""},
	{"substitution", "grep \\`id\\` head", ""},
	// An operator with no command before, after or between it.
	{"empty", "| ls", "|"},
	{"empty", "ls |", "|"},
	{"empty", "ls || || ls", "||"},
	{"empty", "; ls", ";"},
	{"empty", "ls;", ";"},
	{"empty", "ls && || ls", "&&"},
	{"empty", "ls 2>/dev/null &&", "&&"},
	{"empty", "2>&1 && ls", "&&"},
	{"empty", "2>&1", "2>&1"},
	{"empty", " 2>/dev/null 2>&1", "2>/dev/null"},
	{"empty", "", ""},
	{"empty", "   ", ""},
	// A program named by a path outside the four folders.
	{"path", "/tmp/ls head", "/tmp/ls"},
	{"path", "/bin/../tmp/ls head", "/bin/../tmp/ls"},
	{"path", "//bin/ls head", "//bin/ls"},
	{"path", "/sbin/ls head", "/sbin/ls"},
	{"path", "bin/ls head", "bin/ls"},
	{"path", "/usr/bin/env ls", "/usr/bin/env"},
	{"path", "/opt/homebrew/bin/rg x head", ""},
	{"path", "/usr/local/bin/rg x head && /usr/bin/sed -n 1p head/a", ""},
	// A $ outside single quotes that starts an expansion.
	{"dollar", "ls $HOME", "$"},
	{"dollar", `ls "$HOME"`, "$"},
	{"dollar", "ls ${HOME}", "$"},
	{"dollar", "ls $1", "$"},
	{"dollar", "ls $@", "$"},
	{"dollar", "ls $?", "$"},
	{"dollar", "ls $$", "$"},
	{"dollar", "ls $_", "$"},
	{"dollar", `ls $"x"`, "$"},
	{"dollar", `ls "a$b"`, "$"},
	{"dollar", "grep 'a$b' head", ""},
	{"dollar", "grep a$ head", ""},
	{"dollar", `grep "a$" head`, ""},
	{"dollar", `grep \$HOME head`, ""},
	{"dollar", `grep "\$HOME" head`, ""},
	{"dollar", "grep a$/ head", ""},
	{"dollar", `grep "$'x'" head`, ""},
	// Brace expansion outside quotes.
	{"brace", "ls {1..3}", "{"},
	{"brace", "ls a{,b}", "{"},
	{"brace", "ls {{a,b}", "{"},
	{"brace", "ls x{a,$y}", "{"},
	{"brace", "ls '{a,b}'", ""},
	{"brace", `ls "{a,b}"`, ""},
	{"brace", `ls \{a,b}`, ""},
	{"brace", `ls {a\,b}`, ""},
	{"brace", "grep -E 'x{2}' head", ""},
	{"brace", "grep x{2} head", ""},
	{"brace", "ls {a,b", ""},
	// A sed that does more than print.
	{"sed script", "sed -n 's/x/y/p' head/a", "s/x/y/p"},
	{"sed script", "sed -n '1p;w x' head/a", "1p;w x"},
	{"sed script", "sed -n '1r /etc/passwd' head/a", "1r /etc/passwd"},
	{"sed script", "sed -n 'e id' head/a", "e id"},
	{"sed script", "sed -n 'W x' head/a", "W x"},
	{"sed script", "sed -n '$!N;p' head/a", "$!N;p"},
	{"sed script", "sed -n -e 1p --expression 'R x' head/a", "R x"},
	{"sed script", "sed -n -e'1p' -e'w x' head/a", "w x"},
	{"sed script", "sed -ne 'y/a/b/' head/a", "y/a/b/"},
	{"sed script", "sed -n '/x/{p' head/a", "/x/{p"},
	{"sed script", "sed -n '1p}' head/a", "1p}"},
	{"sed script", "sed -n '/x p' head/a", "/x p"},
	{"sed script", "sed -n '/x/{p;q}' head/a", ""},
	{"sed script", "sed -n '1,5!p' head/a", ""},
	{"sed script", "sed -n '$p' head/a", ""},
	{"sed script", "sed -n '=' head/a", ""},
	{"sed script", "sed -n '1,20p;20q' head/a", ""},
	{"sed script", "sed -ne '1p' head/a", ""},
	{"sed script", "sed --quiet '1p' head/a", ""},
	{"sed script", "sed -n -E '/a+/p' head/a", ""},
	{"sed script", `sed -n '\%x/y%p' head/a`, ""},
	{"sed script", "sed -n '0~4p' head/a", ""},
	{"sed script", "sed -n '/a/,+2p' head/a", ""},
	{"sed script", "sed -n '/a\\/b/Ip' head/a", ""},
	{"sed script", "sed -n 'w x' -- head/a", "w x"},
	// A sed with an option after its first operand.
	{"sed option", "sed -n '1p' head/a -i", "-i"},
	{"sed option", "sed -n '1p' head/a -s", "-s"},
	{"sed option", "sed -n '1p' -- -s", ""},
	// sed without -n, and the options that are not allowed.
	{"sed -n", "sed -e '1p' head/a", "sed"},
	{"sed -n", "/bin/sed '1p' head/a", "/bin/sed"},
	{"sed -n", "sed '1p' -n head/a", "sed"},
	{"sed -n", "sed -en head/a", "sed"},
	{"sed option", "sed -n --in-place '1p' head/a", "--in-place"},
	{"sed option", "sed -n --file=x head/a", "--file=x"},
	{"sed option", "sed -ni '1p' head/a", "-ni"},
	{"sed option", "sed -n -i.bak '1p' head/a", "-i.bak"},
	{"sed option", "sed -n --expr='1p' head/a", "--expr='1p'"},
	// Forbidden argument prefixes.
	{"prefix", "tail -f head/a", "-f"},
	{"prefix", "tail -F head/a", "-F"},
	{"prefix", "tail --follow=name head/a", "--follow=name"},
	{"prefix", "tail --fo head/a", "--fo"},
	{"prefix", "tail -qf head/a", "-qf"},
	{"prefix", "tail -5f head/a", "-5f"},
	{"prefix", "rg --pre=cat x head", "--pre=cat"},
	{"prefix", "rg --pre-glob '*.gz' x head", "--pre-glob"},
	{"prefix", "rg -z x head", "-z"},
	{"prefix", "rg -iz x head", "-iz"},
	{"prefix", "rg --search-zip x head", "--search-zip"},
	{"prefix", "rg --hostname-bin python3 x head", "--hostname-bin"},
	{"prefix", "rg --pretty x head", ""},
	{"prefix", "find head -exec cat {} +", "-exec"},
	{"prefix", `find head -execdir ls \;`, "-execdir"},
	{"prefix", `find head -ok ls \;`, "-ok"},
	{"prefix", `find head -okdir ls \;`, "-okdir"},
	{"prefix", "find head -fprint x", "-fprint"},
	{"prefix", "find head -fprint0 x", "-fprint0"},
	{"prefix", "find head -fprintf x %p", "-fprintf"},
	{"prefix", "find head -fls x", "-fls"},
	{"prefix", "find head -name '-delete'", "'-delete'"},
	{"prefix", "find head -executable -type f", ""},
	{"prefix", "sort -o x head/a", "-o"},
	{"prefix", "sort -ox head/a", "-ox"},
	{"prefix", "sort -ro x head/a", "-ro"},
	{"prefix", "sort --output=x head/a", "--output=x"},
	{"prefix", "sort --out=x head/a", "--out=x"},
	{"prefix", "sort -T /tmp head/a", "-T"},
	{"prefix", "sort --temporary-directory=/tmp head/a", "--temporary-directory=/tmp"},
	{"prefix", "sort --compress-program gzip head/a", "--compress-program"},
	{"prefix", "sort -k2 -t, -rn head/a", ""},
	{"prefix", "file -C -m x", "-C"},
	{"prefix", "file --compile -m x", "--compile"},
	{"prefix", "file -z head/a.gz", "-z"},
	{"prefix", "file -bZ head/a.gz", "-bZ"},
	{"prefix", "file --uncompress head/a.gz", "--uncompress"},
	{"prefix", "file -b --mime-type head/a", ""},
	{"prefix", "uniq head/a out", "out"},
	{"prefix", "uniq -c -f 1 head/a", ""},
	{"prefix", "uniq --skip-fields 1 head/a", ""},
	{"prefix", "uniq -w3 head/a", ""},
	// A newline, wherever it stands.
	{"newline", `ls "a` + "\n" + `b"`, "\n"},
	{"newline", "ls \\\n-la", "\n"},
	{"newline", "rm x\nls", "\n"},
	{"newline", "echo $(id)\nls", "\n"},
	{"nul", "ls\x00; rm -rf head", "\x00"},
	{"carriage return", "find -fprint\r", "\r"},
	{"carriage return", "ls\r; touch x", "\r"},
	// Shell constructs, anywhere in the line, win over parts.
	{"construct", "ls )", ")"},
	{"construct", "if true; then ls; fi", "if"},
	{"construct", "! ls", "!"},
	{"construct", "ls | ! cat", "!"},
	{"construct", "{ ls; }", "{"},
	{"construct", "time ls", "time"},
	{"construct", "[[ -f x ]]", "[["},
	{"construct", "while true; do ls; done", "while"},
	{"construct", "function f { ls; }", "function"},
	{"construct", "ls # x", "#"},
	{"construct", "ls 'x", "'"},
	{"construct", `ls "x`, `"`},
	{"construct", "ls @(x)", "("},
	{"construct", "touch x; ls $(id)", "$("},
	{"construct", "rm x > y", ">"},
	{"construct", "cd x; ls 'a", "'"},
	{"construct", "grep for head", ""},
	{"construct", "ls a#b", ""},
	{"construct", "ls !x", ""},
}

// TestG11_Outside: each "result outside the format" of the G11 row, with
// the first problem the reason names.
func TestG11_Outside(t *testing.T) {
	for _, c := range outside {
		ok, p := Check(c.line)
		if ok != (c.problem == "") || p != c.problem {
			t.Errorf("%s: Check(%q) = %v, %q; want problem %q", c.rule, c.line, ok, p, c.problem)
		}
	}
}

// TestG11_Reason: the reason shows the line and its first problem.
func TestG11_Reason(t *testing.T) {
	line := "cd head && go test ./..."
	ok, p := Check(line)
	if ok {
		t.Fatal("accepted")
	}
	r := Reason(line, p)
	if r != `agy shell line "cd head && go test ./..." breaks G11: first problem "cd"` {
		t.Errorf("Reason = %s", r)
	}
	if r := Reason("ls\nrm -rf head", "\n"); !strings.Contains(r, `"ls\nrm -rf head"`) || !strings.HasSuffix(r, `"\n"`) {
		t.Errorf("Reason with a newline = %s", r)
	}
}
