package sarif

import "strings"

// Roots maps each finding of rounds, by <round>/<id>, to the first finding
// of its chain: a repeat (findings.json repeat_of) leads to the finding it
// restates, a finding triaged as a duplicate (its state's detail) to the
// one it duplicates, until a finding that is neither. A finding and its
// repeats and duplicates share that root, and so one fingerprint in every
// format (SARIF's partialFingerprints, Code Quality's fingerprint). A cycle
// ends the walk where it is; a target outside rounds is the root.
func Roots(rounds []Round) map[string]string {
	type node struct {
		repeat string // <round>/<id> it restates, "" when none
		st     State
		ok     bool
	}
	nodes := map[string]node{}
	for _, r := range rounds {
		for _, f := range r.Findings {
			n := node{ok: true}
			if f.RepeatOf != nil {
				n.repeat = f.RepeatOf.Round + "/" + f.RepeatOf.Finding
			}
			n.st = r.States[f.ID]
			nodes[r.Record.Name+"/"+f.ID] = n
		}
	}
	out := make(map[string]string, len(nodes))
	for start := range nodes {
		key := start
		seen := map[string]bool{key: true}
		for {
			n, ok := nodes[key]
			if !ok {
				break
			}
			next := n.repeat
			if next == "" && n.st.Disposition == "duplicate" && n.st.Detail != "" {
				next = n.st.Detail
				if !strings.Contains(next, "/") {
					roundName, _, _ := strings.Cut(key, "/")
					next = roundName + "/" + next
				}
			}
			if next == "" || seen[next] {
				break
			}
			seen[next] = true
			key = next
		}
		out[start] = key
	}
	return out
}
