package runner

import (
	"sync"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/preset"
	"github.com/jaekit/spar/lib/spend"
)

// RoundBudget is the round's budget_usd (docs/review-round.md "Spend and
// budgets"), shared by the reviewers that run at once: the sum of every
// attempt's spend so far, held against Limit. When a spend passes it,
// every attempt still running with a priced preset (claude, codex) is
// stopped, and no later attempt (a fallback) starts.
type RoundBudget struct {
	Limit float64

	mu      sync.Mutex
	spent   map[*meter]float64
	total   float64
	crossed bool
	running map[*meter]bool
}

// NewRoundBudget is a round budget of limit US dollars; nil for none.
func NewRoundBudget(limit *float64) *RoundBudget {
	if limit == nil {
		return nil
	}
	return &RoundBudget{Limit: *limit, spent: map[*meter]float64{}, running: map[*meter]bool{}}
}

// Spent is the round's spend so far and whether it passed the limit.
func (b *RoundBudget) Spent() (float64, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.total, b.crossed
}

// set records m's spend so far; when the round's total passes the limit
// for the first time it stops every other running attempt and reports the
// crossing.
func (b *RoundBudget) set(m *meter, usd float64) (crossed bool, total float64) {
	type halted struct {
		m   *meter
		usd float64
	}
	var others []halted
	b.mu.Lock()
	b.total += usd - b.spent[m]
	b.spent[m] = usd
	total = b.total
	first := !b.crossed && total > b.Limit
	if first {
		b.crossed = true
		for o := range b.running {
			if o != m {
				others = append(others, halted{o, b.spent[o]})
			}
		}
	}
	crossed = b.crossed && total > b.Limit
	b.mu.Unlock()
	for _, o := range others {
		o.m.halt(spend.RoundReason(total, b.Limit, o.usd))
	}
	return crossed, total
}

// meter holds one attempt's spend against its budgets: the reviewer's own
// (budget_usd of its entry, per attempt) and the round's.
type meter struct {
	name  string
	own   *float64
	round *RoundBudget
	warn  func(format string, args ...any)

	mu       sync.Mutex
	usd      float64
	unpriced string
	warned   bool
	stop     func(reason string) // set while the process runs
	pending  string              // a halt that came before the process started
}

// newMeter is the meter of one attempt of r, nil when no budget applies
// (then nothing of spend is recorded: without budget_usd nothing changes)
// and for a preset whose output states no spend spar prices (agy, command:
// outside every budget, docs/review-round.md "Spend and budgets").
func newMeter(r Reviewer, p preset.Preset, prog *Progress) *meter {
	if r.Config.BudgetUSD == nil && r.Budget == nil {
		return nil
	}
	if p.Name() != envelope.PresetClaude && p.Name() != envelope.PresetCodex {
		return nil
	}
	return &meter{name: r.Config.Name, own: r.Config.BudgetUSD, round: r.Budget, warn: prog.Warn}
}

// observe takes one line's spend and returns why the attempt must stop
// ("" to go on). A spend stated as the turn ends (sp.End) stops nothing:
// it is recorded and counted for the round.
func (m *meter) observe(sp preset.Spend) string {
	m.mu.Lock()
	m.usd = sp.USD
	if sp.Unpriced != "" && m.unpriced == "" && !sp.End {
		m.unpriced = sp.Unpriced
	}
	if sp.End {
		// The CLI's own total replaces spar's pricing.
		if sp.Unpriced == "" {
			m.unpriced = ""
		} else {
			m.unpriced = sp.Unpriced
		}
	}
	warn := m.unpriced != "" && !m.warned
	if warn {
		m.warned = true
	}
	usd, unpriced := m.usd, m.unpriced
	m.mu.Unlock()
	if warn {
		m.warn("%s: its budget cannot be enforced: %s; its tokens are recorded, not priced", m.name, unpriced)
	}
	var why string
	if m.own != nil && usd > *m.own {
		why = spend.Reason(usd, *m.own)
	}
	if m.round != nil {
		if crossed, total := m.round.set(m, usd); crossed && why == "" {
			why = spend.RoundReason(total, m.round.Limit, usd)
		}
	}
	if sp.End {
		return ""
	}
	return why
}

// attach gives the meter the way to stop its running process; it stops it
// at once when the round's budget was spent before. detach ends that.
func (m *meter) attach(stop func(reason string)) {
	m.mu.Lock()
	m.stop = stop
	pending := m.pending
	m.mu.Unlock()
	if m.round != nil {
		m.round.mu.Lock()
		m.round.running[m] = true
		m.round.mu.Unlock()
	}
	if pending != "" {
		stop(pending)
	}
}

func (m *meter) detach() {
	if m.round != nil {
		m.round.mu.Lock()
		delete(m.round.running, m)
		m.round.mu.Unlock()
	}
	m.mu.Lock()
	m.stop = nil
	m.mu.Unlock()
}

// halt stops the attempt for the round's budget (another reviewer's spend
// passed it).
func (m *meter) halt(reason string) {
	m.mu.Lock()
	stop := m.stop
	if stop == nil {
		m.pending = reason
	}
	m.mu.Unlock()
	if stop != nil {
		stop(reason)
	}
}

// record is the attempt's spend for round.json.
func (m *meter) record() *envelope.Spend {
	m.mu.Lock()
	defer m.mu.Unlock()
	return &envelope.Spend{USD: roundUSD(m.usd), BudgetUSD: m.own, Unpriced: m.unpriced}
}

// roundUSD rounds to 1e-9 dollars, as usage totals are (docs/review-round.md §7.4).
func roundUSD(f float64) float64 {
	return float64(int64(f*1e9+0.5)) / 1e9
}
