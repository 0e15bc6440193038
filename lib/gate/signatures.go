package gate

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/jaekit/spar/lib/gitx"
	"github.com/jaekit/spar/lib/sign"
)

// SignersFile is where a project keeps the keys that sign its rounds in
// CI (OpenSSH's allowed_signers format), read from a commit the change
// under review cannot touch (--signers-from: the protected base).
const SignersFile = ".jaekit/allowed_signers"

// RoundSignature is what the gate found of a round's signature (the
// record's rounds[].signature, only when the gate had signers).
type RoundSignature struct {
	// State is signed, unsigned (no signature), untrusted (a key the
	// signers do not hold) or invalid (a trusted key's signature that does
	// not cover the round as it is).
	State       string `json:"state"`
	Principal   string `json:"principal,omitempty"`
	Fingerprint string `json:"fingerprint,omitempty"`
	Why         string `json:"why,omitempty"`
}

// Signers is the record's account of the keys the gate checked rounds
// against: where they came from, how many, and whether only rounds they
// signed count (--signers, --signers-from) or the signatures are only
// shown (the head commit's allowed_signers on a laptop).
type Signers struct {
	Series   string `json:"series"`
	Source   string `json:"source"`
	Keys     int    `json:"keys"`
	Required bool   `json:"required"`
}

// signatures: docs/review-gate.md §3 reasons 15, 15k, 15s; docs/trust.md
// "Signed rounds". With --signers or --signers-from (review in CI) only
// the rounds a trusted key signed count for the series' latest input, its
// required reviewers and its coverage; every other round is shown "not
// signed by the job: does not count". Without them, the signers the head
// commit's .jaekit/allowed_signers names (if any) only show which rounds
// CI signed, on a laptop as anywhere: they decide nothing, since the head
// is the change under review. It runs before the latest input is chosen.
func (g *gate) signatures(s *seriesData) {
	repo := ""
	for _, r := range s.rounds {
		if r.state == published && r.rec != nil && r.rec.Repo != "" {
			repo = r.rec.Repo
			break
		}
	}
	if repo == "" {
		if top, err := gitx.TopLevel(s.abs); err == nil {
			repo = top
		}
	}
	s.requireSigned = g.opts.Signers != nil || g.opts.SignersFromGiven
	switch {
	case g.opts.Signers != nil:
		s.signers, s.signersSource = g.opts.Signers, "--signers "+shellQuote(g.opts.SignersPath)
	case g.opts.SignersFromGiven:
		s.signersSource = fmt.Sprintf("%s at --signers-from %s", SignersFile, shellQuote(g.opts.SignersFrom))
		s.signers, s.signersErr = signersAt(repo, g.opts.SignersFrom)
	default:
		if repo == "" {
			return
		}
		signers, err := signersAt(repo, "HEAD")
		if err != nil || signers == nil {
			return
		}
		s.signers, s.signersSource = signers, SignersFile+" at the repository's HEAD (shown only: the head under review cannot say whom to trust)"
	}
	if s.signersErr != nil {
		return
	}
	name := filepath.Base(s.abs)
	parallel(len(s.rounds), func(i int) {
		r := s.rounds[i]
		if r.state != published || r.rec == nil || r.pending {
			return
		}
		signed, err := sign.Verify(s.signers, r.abs, name, r.name)
		sig := &RoundSignature{State: "signed", Principal: signed.Principal, Fingerprint: signed.Fingerprint}
		var ue *sign.UntrustedError
		switch {
		case err == nil:
		case errors.Is(err, sign.ErrUnsigned):
			sig = &RoundSignature{State: "unsigned", Why: "not signed"}
		case errors.As(err, &ue):
			sig = &RoundSignature{State: "untrusted", Fingerprint: ue.Fingerprint, Why: err.Error()}
		default:
			sig = &RoundSignature{State: "invalid", Why: oneLine(err.Error())}
		}
		r.signature = sig
	})
}

// signersAt reads the allowed_signers file of the commit rev in repo; nil
// without error when the commit holds none and rev is HEAD (nothing to
// show), an error otherwise.
func signersAt(repo, rev string) (*sign.Signers, error) {
	commit, err := gitx.ResolveCommit(repo, rev)
	if err != nil {
		return nil, err
	}
	ids, err := gitx.Git(repo, "rev-parse", "--verify", "--quiet", "--end-of-options", commit+":"+SignersFile)
	if err != nil {
		if rev == "HEAD" {
			return nil, nil
		}
		return nil, fmt.Errorf("the commit %s holds no %s", commit, SignersFile)
	}
	blobs, err := gitx.ReadBlobsMax(repo, []string{string(trimNL(ids))}, 1<<20)
	if err != nil {
		return nil, err
	}
	return sign.ParseSigners(blobs[string(trimNL(ids))])
}

func trimNL(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// counts reports whether the round r counts for the series' latest input,
// required reviewers and coverage: any round, unless the gate requires
// signed rounds, then only one a trusted key signed.
func (s *seriesData) counts(r *roundData) bool {
	return !s.requireSigned || r.signature != nil && r.signature.State == "signed"
}

// signatureReasons blocks where only signed rounds count and none does, or
// a trusted key's signature does not cover its round (an edit after the
// job signed it), and shows every round that does not count.
func (g *gate) signatureReasons(s *seriesData) {
	if !s.requireSigned {
		return
	}
	if s.signersErr != nil {
		g.reason("15k", "%s: the trusted signers (%s) cannot be read (%s), so no round of the series counts; to clear: commit the keys of the CI job that signs rounds to %s on the protected base (one line per key: spar-ci namespaces=\"spar\" ssh-ed25519 AAAA…), or give the file: spar gate … --signers FILE",
			s.display, s.signersSource, oneLine(s.signersErr.Error()), SignersFile)
		return
	}
	any := false
	for _, r := range s.rounds {
		if r.state != published || r.rec == nil || r.rec.DryRun || r.pending {
			continue
		}
		if s.counts(r) {
			any = true
			continue
		}
		if sg := r.signature; sg != nil && sg.State == "invalid" {
			g.reason("15s", "%s: round %s: %s: the round changed after a trusted key signed it; to clear: restore the round's records as the job recorded them (spar fetch writes the published ones), or run the job's review again",
				s.display, r.name, sg.Why)
		}
	}
	if !any {
		g.reason("15", "%s: no round of the series is signed by a trusted key (%s): only the rounds the CI job signed count; to clear: let the job review the head (the action's mode: review, with its signing-key)",
			s.display, s.signersSource)
	}
}

// signatureNotes are the rounds that do not count because no trusted key
// signed them, for the readable forms.
func (g *gate) signatureNotes(s *seriesData) []string {
	if !s.requireSigned || s.signersErr != nil {
		return nil
	}
	var out []string
	for _, r := range s.rounds {
		if r.state != published || r.rec == nil || r.rec.DryRun || r.pending || s.counts(r) {
			continue
		}
		why := "not signed"
		if r.signature != nil && r.signature.Why != "" {
			why = r.signature.Why
		}
		out = append(out, fmt.Sprintf("%s: round %s is not signed by the job: does not count (%s)", s.display, r.name, why))
	}
	return out
}
