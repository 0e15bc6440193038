package preset

import (
	"bytes"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/refusal"
	"github.com/jaekit/spar/lib/spend"
)

// Replay reads a finished attempt's recorded output again the way the
// runner's monitor read it while the attempt ran: every stdout line
// (without its newline, the last one only when it is not empty), then the
// whole stdout and stderr for the monitors that take them, then Finish.
// The gate takes a reviewer's result again from the reviewer's own stream
// with it (docs/trust.md "The gate"): a result edited in the envelope
// between the stages is not the result the stream holds.
func Replay(p Preset, stdout, stderr []byte) Outcome {
	return replay(p.NewMonitor(), stdout, stderr, nil)
}

// replay feeds the lines to mon, each line's signal to watch (when not
// nil), then the whole streams, and finishes.
func replay(mon Monitor, stdout, stderr []byte, watch func(Signal)) Outcome {
	line := func(l []byte) {
		if sig := mon.Line(l); watch != nil {
			watch(sig)
		}
	}
	rest := stdout
	for {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			break
		}
		line(rest[:i])
		rest = rest[i+1:]
	}
	if len(rest) > 0 {
		line(rest)
	}
	if w, ok := mon.(WholeStdout); ok {
		w.Stdout(stdout)
	}
	if w, ok := mon.(WholeStderr); ok {
		w.Stderr(stderr)
	}
	return mon.Finish()
}

// Budgets are the budgets an attempt ran under (docs/review-round.md
// "Spend and budgets"): its reviewer entry's budget_usd (Own, per attempt)
// and the round's (Round); nil for none.
type Budgets struct{ Own, Round *float64 }

// Stops says why the runner stops an attempt of preset p on a line with
// this signal, whatever any other reviewer did ("" when it goes on): a
// forbidden tool (tool_violation), a retried request refused
// (lib/refusal: unavailable), a spend stated before the turn ends past the
// attempt's own budget, or on its own past the round's (failed). The
// runner (lib/runner: pump, meter) stops the attempt on each and feeds no
// later line to the monitor; the round's budget stops it also for what the
// other reviewers spent, which one stream does not show. Budgets apply to
// the priced presets only (claude, codex), as the runner's meter does.
func (s Signal) Stops(p Preset, b Budgets) string {
	switch {
	case s.Violation != "":
		return s.Violation
	case s.Retry != "":
		if m := refusal.Scan(s.Retry); m.Refused() {
			return m.Reason()
		}
	}
	if s.Spend == nil || s.Spend.End || p.Name() != envelope.PresetClaude && p.Name() != envelope.PresetCodex {
		return ""
	}
	if b.Own != nil && s.Spend.USD > *b.Own {
		return spend.Reason(s.Spend.USD, *b.Own)
	}
	if b.Round != nil && s.Spend.USD > *b.Round {
		return spend.RoundReason(s.Spend.USD, *b.Round, s.Spend.USD)
	}
	return ""
}

// ReplayRun is Replay, and stop is why the runner would have stopped the
// attempt on a line of its stdout (the first line whose signal Stops it,
// "" for none). The runner reads no line after that one, yet the stdout
// file keeps every byte the reviewer wrote before it died: a result after
// a stopping line is in the stream but was never the runner's, so an
// attempt with a stop is never a completed review (docs/trust.md "The
// gate").
func ReplayRun(p Preset, stdout, stderr []byte, b Budgets) (oc Outcome, stop string) {
	oc = replay(p.NewMonitor(), stdout, stderr, func(sig Signal) {
		if stop == "" {
			stop = sig.Stops(p, b)
		}
	})
	return oc, stop
}
