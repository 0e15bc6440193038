package round

import "strings"

// SplitOf splits a duplicate's --of (G30; docs/review-round.md §8.2):
// "ROUND/ID" names the round, a bare "ID" leaves it "".
func SplitOf(of string) (roundName, id string) {
	if i := strings.LastIndexByte(of, '/'); i >= 0 {
		return of[:i], of[i+1:]
	}
	return "", of
}

// ResolveOf is the one rule by which spar triage writes and spar gate
// follows a duplicate's --of (G30): a bare ID is looked up in this round
// (self) first, then in the earlier rounds of the series, newest first;
// ROUND/ID only in that round, which is this round or an earlier one.
//
// earlier lists the names of the rounds before self in series order; it is
// called only when this round does not settle it. has reports whether a
// round holds the finding id; its error stops the search. The result is the
// round that holds it, or "" when none does.
func ResolveOf(of, self string, earlier func() ([]string, error), has func(roundName, id string) (bool, error)) (string, error) {
	want, id := SplitOf(of)
	if want == "" || want == self {
		ok, err := has(self, id)
		if err != nil {
			return "", err
		}
		if ok {
			return self, nil
		}
		if want != "" {
			return "", nil
		}
	}
	names, err := earlier()
	if err != nil {
		return "", err
	}
	for i := len(names) - 1; i >= 0; i-- {
		if want != "" && names[i] != want {
			continue
		}
		ok, err := has(names[i], id)
		if err != nil {
			return "", err
		}
		if ok {
			return names[i], nil
		}
		if want != "" {
			return "", nil
		}
	}
	return "", nil
}
