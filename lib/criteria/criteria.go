// Package criteria reads acceptance criterion IDs (G9).
package criteria

// IDs returns every AC-<digits> in text, in order of appearance, each once.
//
// G9: AC-<digits> with no ASCII letter or digit immediately before or
// immediately after it; several in one text are each read ("AC-1,AC-2");
// comparison is literal, so "AC-01" and "AC-1" are different IDs.
func IDs(text string) []string {
	var out []string
	seen := map[string]bool{}
	for i := 0; i+3 < len(text); i++ {
		if text[i] != 'A' || text[i+1] != 'C' || text[i+2] != '-' {
			continue
		}
		if i > 0 && isAlnum(text[i-1]) {
			continue
		}
		j := i + 3
		for j < len(text) && text[j] >= '0' && text[j] <= '9' {
			j++
		}
		if j == i+3 {
			continue
		}
		if j < len(text) && isAlnum(text[j]) {
			continue
		}
		id := text[i:j]
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
