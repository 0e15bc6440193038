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
