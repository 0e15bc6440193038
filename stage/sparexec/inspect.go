package sparexec

// The two inspection subcommands of spar-exec (docs/pipeline.md §5): they
// show a user why a reviewer was refused, and they test the two rule engines
// in isolation. G11: lib/shellcheck; G13 (docs/review-round.md "Refusal
// phrases"): lib/refusal.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/jaekit/spar/lib/exitcode"
	"github.com/jaekit/spar/lib/pipe"
	"github.com/jaekit/spar/lib/refusal"
	"github.com/jaekit/spar/lib/shellcheck"
	"github.com/jaekit/spar/stage/cli"
)

const checkShellUsage = `usage: spar-exec check-shell < lines.json

Reads a JSON array of strings, each one shell line an agy reviewer ran (a
string may contain a newline), and prints a JSON array with one object per
line, in the same order:

  {"line": "...", "accepted": true|false, "problem": "..."}

accepted tells whether the line passes G11: only read-only programs
(docs/review-round.md "G11 agy shell lines") and sed -n, joined by |, &&, ||
and ;, with 2>/dev/null and 2>&1 removed before checking. problem is "" when
accepted, otherwise the line's first problem as the reason of a
tool_violation names it: a shell construct anywhere in the line (the leftmost;
a newline always comes first and is "\n"), else the first part from the left
that breaks the rule (a program, an argument, an operator with no command).

Flags:
  -h, --help   print this text and exit 0

Exit codes: 0 printed; 64 usage error; 65 stdin is not a JSON array of
strings (nothing printed).

Example:
  echo '["ls -la head", "cd head && go test ./..."]' | spar-exec check-shell
`

const checkRefusalUsage = `usage: spar-exec check-refusal < texts.json

Reads a JSON array of strings, each one a reviewer's standard error or an
error message of its output, and prints a JSON array with one object per
text, in the same order:

  {"text": "...", "kind": "quota_or_rate_limit"|"authentication"|null,
   "phrase": "..."|null, "resets": "..."|null}

kind is the refusal the text shows by the refusal phrases
(docs/review-round.md "Refusal phrases", ignoring case; null: not a refusal, G13), phrase the matched text
as it appears in the text, resets the text a reset phrase keeps ("resets in",
"try again at", ...: from the word with a digit after it up to a period or the
end of the line), or null.

Flags:
  -h, --help   print this text and exit 0

Exit codes: 0 printed; 64 usage error; 65 stdin is not a JSON array of
strings (nothing printed).

Example:
  echo '["Error: 429 Too Many Requests. Try again in 5 minutes."]' | spar-exec check-refusal
`

// inspect runs `spar-exec check-shell` or `spar-exec check-refusal` when
// args[0] names one of them (handled is true, code is the exit code), and
// does nothing otherwise.
func inspect(args []string, stdin io.Reader, stdout, stderr io.Writer) (handled bool, code int) {
	if len(args) == 0 {
		return false, 0
	}
	var usage string
	var each func(string) any
	switch args[0] {
	case "check-shell":
		usage = checkShellUsage
		each = func(s string) any { return shellcheck.Verdict(s) }
	case "check-refusal":
		usage = checkRefusalUsage
		each = func(s string) any { return refusalItem(s) }
	default:
		return false, 0
	}
	c, err := cli.Parse(args[1:], cli.Grammar{NoPositionals: true})
	if c.Help {
		if _, err := io.WriteString(stdout, usage); err != nil {
			return true, exitcode.IO
		}
		return true, exitcode.OK
	}
	var se *cli.SyntaxError
	if errors.As(err, &se) {
		fmt.Fprintf(stderr, "%s %s: unknown argument %q\n%s", name, args[0], se.Word, usage)
		return true, exitcode.Usage
	}
	return true, cli.Exit(stderr, name, inspectRun(stdin, stdout, each))
}

func inspectRun(stdin io.Reader, stdout io.Writer, each func(string) any) error {
	texts, err := readStrings(stdin)
	if err != nil {
		return exitcode.New(exitcode.Config, "stdin: "+err.Error())
	}
	out := make([]any, 0, len(texts))
	for _, s := range texts {
		out = append(out, each(s))
	}
	b, err := pipe.MarshalIndent(out)
	if err != nil {
		return err
	}
	if _, err := stdout.Write(b); err != nil {
		return exitcode.New(exitcode.IO, "stdout: "+err.Error())
	}
	return nil
}

// readStrings reads one JSON array of strings, and nothing after it.
func readStrings(r io.Reader) ([]string, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read: %v", err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf("empty input (expected a JSON array of strings)")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var raw []json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("not a JSON array of strings: %v", err)
	}
	if raw == nil {
		return nil, fmt.Errorf("not a JSON array of strings: null")
	}
	if dec.More() {
		return nil, fmt.Errorf("more than one JSON value")
	}
	texts := make([]string, len(raw))
	for i, m := range raw {
		if err := json.Unmarshal(m, &texts[i]); err != nil || bytes.Equal(bytes.TrimSpace(m), []byte("null")) {
			return nil, fmt.Errorf("/%d: not a string", i)
		}
	}
	return texts, nil
}

// refusalOut is one item of `spar-exec check-refusal`: null for kind,
// phrase and resets when there is none.
type refusalOut struct {
	Text   string  `json:"text"`
	Kind   *string `json:"kind"`
	Phrase *string `json:"phrase"`
	Resets *string `json:"resets"`
}

func refusalItem(text string) refusalOut {
	m := refusal.Scan(text)
	o := refusalOut{Text: text}
	if m.Kind != refusal.None {
		k, p := string(m.Kind), m.Phrase
		o.Kind, o.Phrase = &k, &p
	}
	if m.Resets != "" {
		r := m.Resets
		o.Resets = &r
	}
	return o
}
