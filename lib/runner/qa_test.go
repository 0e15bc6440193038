package runner

import (
	"bytes"
	"testing"
)

// TestQA_ProgressControlCharacters: a failed reviewer's reason is its last
// stderr line, and spar run prints it on its own stderr. A reviewer writing
// terminal escapes there (clear the screen, set the title, OSC 52 to the
// clipboard) must not reach the user's terminal raw: the line shows them
// escaped and stays one line (round.json keeps the reason as received).
func TestQA_ProgressControlCharacters(t *testing.T) {
	var b bytes.Buffer
	p := &Progress{w: &b}
	p.Line("%s %s after %s%s", "crash", Failed, "0s", reasonNote("boom\x1b[2J\x1b]0;T\a\r\x00\nend"))
	want := `spar: crash failed after 0s: boom\x1b[2J\x1b]0;T\a\r\x00\nend` + "\n"
	if b.String() != want {
		t.Fatalf("\n got %q\nwant %q", b.String(), want)
	}
}
