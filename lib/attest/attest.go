// Package attest is the gate's verdict as evidence others can check
// offline: an in-toto Statement v1 in a DSSE envelope (docs/attestation.md),
// signed with a CI job's Ed25519 SSH key (lib/sign) and verified against an
// OpenSSH allowed_signers file. The statement's subjects are the gated
// head's and base's git trees, the head commit and the gate record's bytes;
// its predicate is the decision, the reason codes, each round's reviewers
// and every finding's class, state and disposition.
package attest

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	ita1 "github.com/in-toto/attestation/go/v1"
	"github.com/secure-systems-lab/go-securesystemslib/dsse"
	"golang.org/x/crypto/ssh"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/jaekit/spar/lib/gate"
	"github.com/jaekit/spar/lib/sarif"
	"github.com/jaekit/spar/lib/sign"
)

// PredicateType names spar's review predicate.
const PredicateType = "https://github.com/jaekit/spar/attestation/review/v1"

// PayloadType is the DSSE payload type of an in-toto statement.
const PayloadType = "application/vnd.in-toto+json"

// Subject names in the statement.
const (
	SubjectHeadTree   = "head-tree"
	SubjectBaseTree   = "base-tree"
	SubjectHeadCommit = "head-commit"
	SubjectGateRecord = "review-gate.json"
)

// maxEnvelope bounds an attestation read back.
const maxEnvelope = 16 << 20

// Predicate is spar's review predicate (docs/attestation.md).
type Predicate struct {
	Decision     string           `json:"decision"`
	ReasonCodes  []string         `json:"reason_codes"`
	Reasons      []string         `json:"reasons"`
	Head         string           `json:"head"`
	Base         string           `json:"base,omitempty"`
	Rounds       []Round          `json:"rounds"`
	Findings     gate.ClassCounts `json:"findings"`
	Dispositions []Disposition    `json:"dispositions"`
	Signers      []gate.Signers   `json:"signers,omitempty"`
	DecidedAt    string           `json:"decided_at"`
}

// Round is one gated round and its reviewers.
type Round struct {
	Series    string     `json:"series"`
	Name      string     `json:"name"`
	Stage     string     `json:"stage"`
	Base      string     `json:"base"`
	Head      string     `json:"head"`
	Counted   bool       `json:"counted"`
	Signature string     `json:"signature,omitempty"` // signed, unsigned, untrusted, invalid; absent without signers
	SignedBy  string     `json:"signed_by,omitempty"`
	Reviewers []Reviewer `json:"reviewers"`
}

// Reviewer is one reviewer of a round as it recorded it.
type Reviewer struct {
	Name     string   `json:"name"`
	Preset   string   `json:"preset"`
	Model    *string  `json:"model"` // the model the stream showed, else the configured one
	Version  string   `json:"cli_version"`
	Status   string   `json:"status"`
	CostUSD  *float64 `json:"cost_usd"`
	Findings int      `json:"findings"`
}

// Disposition is one finding's class, state and last disposition.
type Disposition struct {
	Round       string `json:"round"`
	Finding     string `json:"finding"`
	Class       string `json:"class"`
	State       string `json:"state"` // open or closed
	Disposition string `json:"disposition,omitempty"`
}

// Input is what an attestation states: the gate's record (and its bytes,
// as written), its rounds with findings and states, and the trees of the
// gated head and base, read from git by the caller.
type Input struct {
	Record      *gate.Record
	RecordBytes []byte
	Rounds      []sarif.Round
	HeadCommit  string
	HeadTree    string
	BaseCommit  string // "" when the gate had no --expect-base
	BaseTree    string
}

// Statement is the in-toto Statement v1 of in, as JSON.
func Statement(in Input) ([]byte, error) {
	rec := in.Record
	p := Predicate{
		Decision: rec.State, Reasons: rec.Reasons, Head: in.HeadCommit, Base: in.BaseCommit,
		Findings: rec.Findings, Signers: rec.Signers, DecidedAt: rec.DecidedAt,
		ReasonCodes: []string{}, Rounds: []Round{}, Dispositions: []Disposition{},
	}
	if p.Reasons == nil {
		p.Reasons = []string{}
	}
	for _, d := range rec.ReasonDetails {
		p.ReasonCodes = append(p.ReasonCodes, string(d.Code))
	}
	sigs := map[string]*gate.RoundSignature{}
	counted := map[string]bool{}
	for _, r := range rec.Rounds {
		sigs[r.Series+"/"+r.Name] = r.Signature
		counted[r.Series+"/"+r.Name] = r.Counted
	}
	for _, g := range in.Rounds {
		if g.Record == nil {
			continue
		}
		r := Round{Series: g.Series, Name: g.Record.Name, Stage: g.Record.Stage, Base: g.Record.Base, Head: g.Record.Head, Reviewers: []Reviewer{}}
		key := ""
		for _, rr := range rec.Rounds {
			if rr.Name == g.Record.Name && (rr.Dir == g.Dir || filepathBase(rr.Series) == g.Series) {
				key = rr.Series + "/" + rr.Name
				break
			}
		}
		r.Counted = counted[key]
		if s := sigs[key]; s != nil {
			r.Signature, r.SignedBy = s.State, s.Principal
		}
		for _, rv := range g.Record.Reviewers {
			model := rv.ObservedModel
			if model == nil {
				model = rv.Model
			}
			v := Reviewer{Name: rv.Name, Preset: rv.Preset, Model: model, Version: rv.Version, Status: rv.Status, Findings: rv.Findings}
			if rv.Usage != nil {
				v.CostUSD = rv.Usage.CostUSD
			}
			r.Reviewers = append(r.Reviewers, v)
		}
		p.Rounds = append(p.Rounds, r)
		ids := make([]string, 0, len(g.Findings))
		class := map[string]string{}
		for _, f := range g.Findings {
			ids = append(ids, f.ID)
			class[f.ID] = f.Class
		}
		sort.Strings(ids)
		for _, id := range ids {
			st := g.States[id]
			state := "open"
			if st.Closed {
				state = "closed"
			}
			p.Dispositions = append(p.Dispositions, Disposition{Round: g.Series + "/" + g.Record.Name, Finding: id, Class: class[id], State: state, Disposition: st.Disposition})
		}
	}
	pb, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	var pm map[string]any
	if err := json.Unmarshal(pb, &pm); err != nil {
		return nil, err
	}
	pred, err := structpb.NewStruct(pm)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(in.RecordBytes)
	subjects := []*ita1.ResourceDescriptor{
		{Name: SubjectHeadTree, Digest: map[string]string{"gitTree": in.HeadTree}},
		{Name: SubjectHeadCommit, Digest: map[string]string{"gitCommit": in.HeadCommit}},
		{Name: SubjectGateRecord, Digest: map[string]string{"sha256": hex.EncodeToString(sum[:])}},
	}
	if in.BaseTree != "" {
		subjects = append(subjects, &ita1.ResourceDescriptor{Name: SubjectBaseTree, Digest: map[string]string{"gitTree": in.BaseTree}})
	}
	st := &ita1.Statement{Type: ita1.StatementTypeUri, Subject: subjects, PredicateType: PredicateType, Predicate: pred}
	if err := st.Validate(); err != nil {
		return nil, err
	}
	return protojson.Marshal(st)
}

// Sign wraps the statement in a DSSE envelope signed by k.
func Sign(k *sign.Key, statement []byte) ([]byte, error) {
	es, err := dsse.NewEnvelopeSigner(keySigner{k})
	if err != nil {
		return nil, err
	}
	env, err := es.SignPayload(context.Background(), PayloadType, statement)
	if err != nil {
		return nil, err
	}
	return json.MarshalIndent(env, "", "  ")
}

// keySigner is a DSSE signer over an SSH key: raw Ed25519 over the PAE,
// the key id its SSH fingerprint (SHA256:…).
type keySigner struct{ k *sign.Key }

func (s keySigner) Sign(_ context.Context, data []byte) ([]byte, error) { return s.k.SignRaw(data) }
func (s keySigner) KeyID() (string, error)                              { return ssh.FingerprintSHA256(s.k.Public()), nil }

// keyVerifier checks a DSSE signature against one trusted Ed25519 key.
type keyVerifier struct {
	key       ssh.PublicKey
	pub       ed25519.PublicKey
	principal string
}

func (v keyVerifier) Verify(_ context.Context, data, sig []byte) error {
	if !ed25519.Verify(v.pub, data, sig) {
		return errors.New("the signature does not verify")
	}
	return nil
}
func (v keyVerifier) KeyID() (string, error)   { return ssh.FingerprintSHA256(v.key), nil }
func (v keyVerifier) Public() crypto.PublicKey { return v.pub }

// Verified is what a verified attestation says.
type Verified struct {
	Principal  string // who signed it (the first principal of its signers' line)
	KeyID      string
	Statement  *ita1.Statement
	Predicate  Predicate
	HeadCommit string
	GateRecord string // the sha256 of the gate record it names
}

// Verify checks envelope (a DSSE envelope's JSON) against the signers'
// keys trusted for the namespace spar: the signature, then the statement
// (in-toto v1, spar's predicate type, a head commit subject). It says
// nothing of which head the caller wanted: that is the caller's check.
func Verify(envelope []byte, signers *sign.Signers) (*Verified, error) {
	if len(envelope) > maxEnvelope {
		return nil, fmt.Errorf("the attestation holds %d bytes, more than %d", len(envelope), maxEnvelope)
	}
	var env dsse.Envelope
	dec := json.NewDecoder(bytes.NewReader(envelope))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&env); err != nil {
		return nil, fmt.Errorf("not a DSSE envelope (%v)", err)
	}
	if env.PayloadType != PayloadType {
		return nil, fmt.Errorf("the payload type is %q, not %q", env.PayloadType, PayloadType)
	}
	var verifiers []dsse.Verifier
	principals := map[string]string{}
	for _, t := range signers.Trusted(sign.Namespace) {
		ck, ok := t.Key.(ssh.CryptoPublicKey)
		if !ok {
			continue
		}
		pub, ok := ck.CryptoPublicKey().(ed25519.PublicKey)
		if !ok {
			continue
		}
		v := keyVerifier{key: t.Key, pub: pub, principal: t.Principal}
		verifiers = append(verifiers, v)
		id, _ := v.KeyID()
		if _, seen := principals[id]; !seen {
			principals[id] = t.Principal
		}
	}
	if len(verifiers) == 0 {
		return nil, errors.New("the signers trust no Ed25519 key for the namespace spar")
	}
	ev, err := dsse.NewEnvelopeVerifier(verifiers...)
	if err != nil {
		return nil, err
	}
	accepted, body, err := ev.VerifyAndDecode(context.Background(), &env)
	if err != nil || len(accepted) == 0 {
		ids := []string{}
		for _, s := range env.Signatures {
			ids = append(ids, s.KeyID)
		}
		return nil, fmt.Errorf("no signature of a trusted key verifies (signed by %v): the attestation was signed by another key, or changed since", ids)
	}
	var st ita1.Statement
	if err := protojson.Unmarshal(body, &st); err != nil {
		return nil, fmt.Errorf("the payload is no in-toto statement (%v)", err)
	}
	if err := st.Validate(); err != nil {
		return nil, fmt.Errorf("the statement is not valid (%v)", err)
	}
	if st.PredicateType != PredicateType {
		return nil, fmt.Errorf("the predicate type is %q, not %q", st.PredicateType, PredicateType)
	}
	v := &Verified{Principal: principals[accepted[0].KeyID], KeyID: accepted[0].KeyID, Statement: &st}
	for _, s := range st.Subject {
		switch s.Name {
		case SubjectHeadCommit:
			v.HeadCommit = s.Digest["gitCommit"]
		case SubjectGateRecord:
			v.GateRecord = s.Digest["sha256"]
		}
	}
	if v.HeadCommit == "" {
		return nil, errors.New("the statement names no head commit")
	}
	pb, err := protojson.Marshal(st.Predicate)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(pb, &v.Predicate); err != nil {
		return nil, fmt.Errorf("the predicate does not read (%v)", err)
	}
	return v, nil
}

func filepathBase(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' {
			return p[i+1:]
		}
	}
	return p
}
