package packet

// Angles is the fixed order of the five angles (docs/review-round.md §3, G22) and the
// one sentence the packet gives each: what to attack.
var Angles = []string{"requirement-counterexample", "side-effects", "design", "premises", "check-validity"}

var angleSentence = map[string]string{
	"requirement-counterexample": "Find an input, state or sequence that satisfies every stated requirement and criterion yet gives a wrong or harmful result, or one the change gets wrong although the requirements say what must happen.",
	"side-effects":               "Find what the change breaks or alters outside its stated purpose: other callers, records, files, configuration, performance, concurrency and compatibility.",
	"design":                     "Attack the structure: responsibilities in the wrong place, duplicated rules that can drift apart, interfaces that invite misuse, and simpler designs that remove a failure mode.",
	"premises":                   "Question what the change assumes without checking it: facts about inputs, the environment, tools, other components and the rule documents, and whether each assumption holds.",
	"check-validity":             "Attack the checks (tests, gates, validators): find a check that passes when the behaviour is wrong (false pass), tests something other than what it claims, or inverts the meaning of a rule.",
}

// AngleSentence returns the packet's sentence for an angle.
func AngleSentence(a string) string { return angleSentence[a] }
