package gate

import (
	"fmt"

	"github.com/jaekit/spar/lib/gitx"
)

// Credit by content (docs/review-gate.md §3, "Credit by content"): a
// rebase, an amend or a squash makes a new head commit H′ where the
// series' latest counted round reviewed H. When H′ holds what H held, the
// review holds for it: the gate credits H′ with the round and judges the
// series against H, whose history the rounds, fixes and coverage name.
//
// identity: H′'s tree is H's tree, byte for byte (git's tree ids are the
// hash of the content): nothing the reviewers did not see is in H′. The
// record says so in credits, and the lines of spar gate show it.

// Credit is one head the gate credited with a round it did not review by
// its commit id: how (identity) and the gate's words.
type Credit struct {
	Series   string `json:"series"`
	Head     string `json:"head"`     // the gate's head
	Round    string `json:"round"`    // the round credited
	Reviewed string `json:"reviewed"` // the head that round reviewed
	How      string `json:"how"`      // identity
	Words    string `json:"words"`
}

// creditByIdentity credits the gate's head of s with the latest counted
// round when its tree is that round's head's tree: from here on the gate
// holds the series against the reviewed head (s.head), and s.gated keeps
// the head it was asked about.
func (g *gate) creditByIdentity(s *seriesData) {
	if s.repo == "" || s.latest == nil || s.latest.rec == nil || s.latest.state != published || s.head == "" {
		return
	}
	reviewed := s.latest.rec.Head
	if reviewed == "" || reviewed == s.head {
		return
	}
	want, err := gitx.TreeID(s.repo, s.head)
	if err != nil {
		return
	}
	got, err := gitx.TreeID(s.repo, reviewed)
	if err != nil || got != want {
		return
	}
	s.gated, s.head = s.head, reviewed
	g.rec.Credits = append(g.rec.Credits, Credit{
		Series: s.display, Head: s.gated, Round: s.latest.name, Reviewed: reviewed, How: "identity",
		Words: fmt.Sprintf("reviewed as %s (head %s, identical tree)", s.latest.name, abbrev(reviewed)),
	})
}

// credited reports whether the gate's head of s was credited by content
// with the latest counted round (creditByIdentity).
func (s *seriesData) credited() bool { return s.gated != "" }

// abbrev is a commit id as git abbreviates it by default (7 digits), for
// the gate's words of a credit; the record's fields hold the whole id.
func abbrev(id string) string {
	if len(id) > 7 {
		return id[:7]
	}
	return id
}
