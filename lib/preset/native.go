package preset

import "github.com/jaekit/spar/lib/envelope"

// native: no process (docs/review-round.md §4). spar-exec leaves
// <round>/<reviewer>/prompt.md for the host's subagent and the reviewer
// pending until `spar record … --transcript` or `--result` (G15).
type native struct{}

func (native) Name() string             { return envelope.PresetNative }
func (native) Isolation() string        { return "host" }
func (native) VersionArgs() []string    { return nil }
func (native) Invoke(c Call) Invocation { return Invocation{} }
func (native) NewMonitor() Monitor      { return nil }
