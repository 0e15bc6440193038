package refusal

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
	Text   string  `json:"text"`
	Kind   *string `json:"kind"`
	Phrase *string `json:"phrase"`
	Resets *string `json:"resets"`
}

func inputForms(t testing.TB) []form {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "input-forms.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Refusals struct {
			Forms []form `json:"forms"`
		} `json:"refusals"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Refusals.Forms) == 0 {
		t.Fatal("input-forms.json: refusals.forms is empty")
	}
	return doc.Refusals.Forms
}

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// TestG13_InputForms: every form of input-forms.json "refusals" (docs/review-round.md "Refusal phrases":
// every phrase of both kinds, the code/status forms, the reset phrases and
// messages that are not refusals) gives its kind, phrase and resets.
func TestG13_InputForms(t *testing.T) {
	for _, f := range inputForms(t) {
		m := Scan(f.Text)
		if string(m.Kind) != str(f.Kind) || m.Phrase != str(f.Phrase) || m.Resets != str(f.Resets) {
			t.Errorf("Scan(%q) = %q, %q, resets %q; want %q, %q, resets %q",
				f.Text, m.Kind, m.Phrase, m.Resets, str(f.Kind), str(f.Phrase), str(f.Resets))
		}
	}
}

// TestG13_EveryPhrase: each phrase of docs/review-round.md "Refusal phrases", in lower, upper and mixed
// case, inside other text, is found with its kind and as it appears.
func TestG13_EveryPhrase(t *testing.T) {
	kinds := map[Kind][]string{
		QuotaOrRateLimit: {"RESOURCE_EXHAUSTED", "code 429", "status 429", "429 Too Many Requests",
			"too many requests", "rate limit", "rate_limit", "rate-limit", "ratelimit", "quota reached",
			"quota exceeded", "quota exhausted", "insufficient_quota", "hit your limit",
			"hit your usage limit", "usage limit reached"},
		Authentication: {"UNAUTHENTICATED", "code 401", "status 401", "401 Unauthorized", "not logged in",
			"authentication required", "authentication failed", "login again", "log in again",
			"sign in again", "codex login", "agy login", "claude login", "run /login",
			"oauth token expired", "oauth token has expired", "invalid api key", "incorrect api key"},
	}
	for kind, list := range kinds {
		for _, p := range list {
			for _, v := range []string{strings.ToLower(p), strings.ToUpper(p), mixed(p)} {
				text := "reviewer said: " + v + " (details follow)"
				m := Scan(text)
				if m.Kind != kind || m.Phrase != v {
					t.Errorf("Scan(%q) = %q, %q; want %q, %q", text, m.Kind, m.Phrase, kind, v)
				}
				if m.Line != text {
					t.Errorf("Scan(%q).Line = %q", text, m.Line)
				}
			}
		}
	}
}

func mixed(s string) string {
	b := []byte(s)
	for i := range b {
		if i%2 == 0 {
			b[i] = strings.ToUpper(string(b[i]))[0]
		} else {
			b[i] = strings.ToLower(string(b[i]))[0]
		}
	}
	return string(b)
}

// TestG13_CodeStatus: up to four symbols between code or status and the
// number; a letter, a digit or a fifth symbol breaks it.
func TestG13_CodeStatus(t *testing.T) {
	for _, n := range []string{"429", "401"} {
		for _, w := range []string{"code", "status", "CODE", "Status"} {
			for sep, ok := range map[string]bool{
				"": true, " ": true, ": ": true, `": `: true, " = (": true, "\t:\t ": true,
				" =>> (": false, "x": false, " x ": false, "1": false,
			} {
				text := "err " + w + sep + n + " done"
				m := Scan(text)
				if m.Refused() != ok {
					t.Errorf("Scan(%q).Refused() = %v, want %v", text, m.Refused(), ok)
				}
				if ok && m.Phrase != w+sep+n {
					t.Errorf("Scan(%q).Phrase = %q", text, m.Phrase)
				}
			}
			if m := Scan(w + " " + n + "0"); m.Refused() {
				t.Errorf("Scan(%q) refused: the number goes on with a digit", w+" "+n+"0")
			}
			if m := Scan(w + " " + n); !m.Refused() {
				t.Errorf("Scan(%q) not refused at the end of the text", w+" "+n)
			}
		}
	}
}

// TestG13_Resets: every reset phrase, and where the kept text starts and
// stops.
func TestG13_Resets(t *testing.T) {
	cases := []struct{ text, want string }{
		{"resets in 5 minutes", "5 minutes"},
		{"Resets at 3pm (UTC)", "3pm (UTC)"},
		{"resets 3pm", "3pm"},
		{"reset in 2h", "2h"},
		{"RESET AT 10:00. more", "10:00"},
		{"reset 7 days", "7 days"},
		{"Try again in 42s", "42s"},
		{"try again at 2026-05-01 12:00\nsecond line", "2026-05-01 12:00"},
		{"limit resets in\t 3 hours", "3 hours"},
		{"resets\n4pm", "4pm"},
		{"resets at noon", ""},
		{"resets in about 5 minutes", ""},
		{"resets:5pm", ""},
		{"resets5pm", ""},
		{"presets 5", ""},
		{"tryagain in 5", ""},
		{"resetting in 5", ""},
		{"resets at noon; try again in 10 minutes.", "10 minutes"},
		{"resets in ", ""},
		{"", ""},
	}
	for _, c := range cases {
		if got := Resets(c.text); got != c.want {
			t.Errorf("Resets(%q) = %q, want %q", c.text, got, c.want)
		}
		if got := Scan(c.text).Resets; got != c.want {
			t.Errorf("Scan(%q).Resets = %q, want %q", c.text, got, c.want)
		}
	}
}

// TestG13_NotRefusal: any other message is not a refusal.
func TestG13_NotRefusal(t *testing.T) {
	for _, text := range []string{
		"", "exit status 1", "limit exceeded", "rate: 5 limit", "quota", "login", "api key missing",
		"401", "429", "authentication", "unauthorized", "HTTP 500 internal server error",
	} {
		if m := Scan(text); m.Refused() || m.Phrase != "" || m.Reason() != "" {
			t.Errorf("Scan(%q) = %+v, want no refusal", text, m)
		}
	}
}

// TestG13_Reason: the reason names the kind and the line with the phrase.
func TestG13_Reason(t *testing.T) {
	m := Scan("starting\nAPI Error: 429 Too Many Requests \nbye")
	if got := m.Reason(); got != "quota or rate limit: API Error: 429 Too Many Requests" {
		t.Errorf("Reason = %q", got)
	}
	m = Scan("Invalid API key · Please run /login")
	if got := m.Reason(); got != "authentication: Invalid API key · Please run /login" {
		t.Errorf("Reason = %q", got)
	}
	long := "rate limit " + strings.Repeat("é", 400)
	if r := Scan(long).Reason(); len(r) > 330 || !strings.HasSuffix(r, "…") {
		t.Errorf("long Reason not cut: %d bytes", len(r))
	}
}

// TestG13_InspectScriptMatchesInputForms: the testscript that drives
// `spar-exec check-refusal` feeds exactly the texts of input-forms.json and
// expects exactly their results.
func TestG13_InspectScriptMatchesInputForms(t *testing.T) {
	ar, err := txtar.ParseFile(filepath.Join("..", "..", "e2e", "script", "testdata", "g10_g14", "g13_input_forms.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, f := range ar.Files {
		files[f.Name] = f.Data
	}
	var texts []string
	if err := json.Unmarshal(files["texts.json"], &texts); err != nil {
		t.Fatalf("texts.json: %v", err)
	}
	var want []form
	if err := json.Unmarshal(files["want.json"], &want); err != nil {
		t.Fatalf("want.json: %v", err)
	}
	forms := inputForms(t)
	var ft []string
	for _, f := range forms {
		ft = append(ft, f.Text)
	}
	if !reflect.DeepEqual(texts, ft) {
		t.Errorf("g13_input_forms.txtar texts.json differs from input-forms.json refusals")
	}
	if !reflect.DeepEqual(want, forms) {
		t.Errorf("g13_input_forms.txtar want.json differs from input-forms.json refusals")
	}
}
