package preset

import (
	"fmt"

	"github.com/jaekit/spar/lib/spend"
)

// meter prices an attempt's messages as the stream states them
// (docs/review-round.md "Spend and budgets"). A message may be stated more
// than once (claude writes one assistant event per content block, each
// with the message's usage as known then): each count is the largest
// stated for that message, so a restatement never adds twice.
type meter struct {
	msgs     map[string]*priced
	order    []string
	unpriced string
	anon     int
}

type priced struct {
	model  string
	tokens spend.Tokens
}

// message takes one statement of message id's usage by model and returns
// the attempt's spend so far. A message without an id is a message of its
// own.
func (m *meter) message(id, model string, t spend.Tokens) *Spend {
	if m.msgs == nil {
		m.msgs = map[string]*priced{}
	}
	if id == "" {
		m.anon++
		id = fmt.Sprintf("\x00%d", m.anon)
	}
	p := m.msgs[id]
	if p == nil {
		p = &priced{model: model}
		m.msgs[id] = p
		m.order = append(m.order, id)
	}
	p.tokens = spend.Tokens{
		Input: max(p.tokens.Input, t.Input), Output: max(p.tokens.Output, t.Output),
		CacheRead: max(p.tokens.CacheRead, t.CacheRead), CacheWrite: max(p.tokens.CacheWrite, t.CacheWrite),
		CacheWrite5m: max(p.tokens.CacheWrite5m, t.CacheWrite5m), CacheWrite1h: max(p.tokens.CacheWrite1h, t.CacheWrite1h),
	}
	return m.total()
}

// total prices every message stated so far.
func (m *meter) total() *Spend {
	var usd float64
	for _, id := range m.order {
		p := m.msgs[id]
		if p.tokens == (spend.Tokens{}) {
			continue
		}
		r, ok := spend.Lookup(p.model)
		if !ok {
			if m.unpriced == "" {
				m.unpriced = unpricedModel(p.model)
			}
			continue
		}
		usd += r.Cost(p.tokens)
	}
	return &Spend{USD: usd, Unpriced: m.unpriced}
}

// unpricedModel is why tokens of model have no price.
func unpricedModel(model string) string {
	if model == "" {
		return "the output names no model to price its tokens by"
	}
	return fmt.Sprintf("the model %q is not in spar's price table", model)
}
