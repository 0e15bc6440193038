package escape

import "testing"

func TestControls(t *testing.T) {
	for in, want := range map[string]string{
		"plain":          "plain",
		"a\x1b[31mred":   `a\x1b[31mred`,
		"two\nlines":     `two\nlines`,
		"nul\x00":        `nul\x00`,
		"tab\there":      `tab\there`,
		"del\x7f":        `del\x7f`,
		"é ünïcode":      "é ünïcode",
		"c1 \u0085 next": `c1 \u0085 next`,
	} {
		if got := Controls(in); got != want {
			t.Errorf("Controls(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestTrust_BidiControlsShownEscaped: a reviewer's text with a
// right-to-left override (or another bidirectional formatting character)
// is shown with it escaped, so the text reads in the order it is written
// wherever spar shows it; letters of right-to-left scripts are kept.
func TestTrust_BidiControlsShownEscaped(t *testing.T) {
	for in, want := range map[string]string{
		"ok \u202e}if (admin){":         `ok \u202e}if (admin){`,
		"\u2066isolate\u2069":           `\u2066isolate\u2069`,
		"mark\u200e\u200f\u061c":        `mark\u200e\u200f\u061c`,
		"embed\u202a\u202b\u202c\u202d": `embed\u202a\u202b\u202c\u202d`,
		"שלום مرحبا":                    "שלום مرحبا",
		"zero\u200bwidth":               "zero\u200bwidth",
	} {
		if got := Controls(in); got != want {
			t.Errorf("Controls(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestPrefix: the start of s of at most n bytes, never ending inside a
// UTF-8 sequence.
func TestPrefix(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{
		{"abc", 5, "abc"},
		{"abc", 2, "ab"},
		{"aé", 2, "a"},  // é is two bytes
		{"aé", 3, "aé"}, // whole
		{"€x", 1, ""},   // € is three bytes
		{"€x", 2, ""},
		{"€x", 3, "€"},
		{"", 0, ""},
	} {
		if got := Prefix(c.s, c.n); got != c.want {
			t.Errorf("Prefix(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
}
