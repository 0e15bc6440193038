// Package suggest owns spar's "did you mean" (docs/usage.md): the one
// candidate closest to a mistyped word. The driver's unknown commands and
// flags (spar-config's hidden Arg), triage's disposition names and the
// reviewer names of --reviewers all ask it.
package suggest

// Arg is the hidden first argument that makes spar-config print the
// suggestion for the driver (`spar-config __spar-suggest WORD CANDIDATE...`):
// the driver keeps no second copy of the rule.
const Arg = "__spar-suggest"

// Closest is the candidate closest to word by edit distance (insertions,
// deletions, substitutions and swaps of two neighbours, one each; bytes
// compared as they are), when that distance is at most 2 and less than
// word's length; else "". The first of equally close candidates wins.
func Closest(word string, candidates ...string) string {
	best, bestD := "", 0
	for _, c := range candidates {
		d := distance(word, c)
		if best == "" || d < bestD {
			best, bestD = c, d
		}
	}
	if best == "" || bestD > 2 || bestD >= len(word) {
		return ""
	}
	return best
}

// Hint is Closest as the end of a message: "; did you mean X?", or "".
func Hint(word string, candidates ...string) string {
	if c := Closest(word, candidates...); c != "" {
		return "; did you mean " + c + "?"
	}
	return ""
}

// distance is the optimal string alignment distance of a and b.
func distance(a, b string) int {
	n, m := len(a), len(b)
	d := make([][]int, n+1)
	for i := range d {
		d[i] = make([]int, m+1)
		d[i][0] = i
	}
	for j := 0; j <= m; j++ {
		d[0][j] = j
	}
	for i := 1; i <= n; i++ {
		for j := 1; j <= m; j++ {
			c := 1
			if a[i-1] == b[j-1] {
				c = 0
			}
			x := min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+c)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				x = min(x, d[i-2][j-2]+1)
			}
			d[i][j] = x
		}
	}
	return d[n][m]
}
