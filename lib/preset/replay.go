package preset

import "bytes"

// Replay reads a finished attempt's recorded output again the way the
// runner's monitor read it while the attempt ran: every stdout line
// (without its newline, the last one only when it is not empty), then the
// whole stdout and stderr for the monitors that take them, then Finish.
// The gate takes a reviewer's result again from the reviewer's own stream
// with it (docs/trust.md "The gate"): a result edited in the envelope
// between the stages is not the result the stream holds.
func Replay(p Preset, stdout, stderr []byte) Outcome {
	mon := p.NewMonitor()
	rest := stdout
	for {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			break
		}
		mon.Line(rest[:i])
		rest = rest[i+1:]
	}
	if len(rest) > 0 {
		mon.Line(rest)
	}
	if w, ok := mon.(WholeStdout); ok {
		w.Stdout(stdout)
	}
	if w, ok := mon.(WholeStderr); ok {
		w.Stderr(stderr)
	}
	return mon.Finish()
}
