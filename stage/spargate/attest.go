package spargate

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/jaekit/spar/lib/atomic"
	"github.com/jaekit/spar/lib/attest"
	"github.com/jaekit/spar/lib/exitcode"
	"github.com/jaekit/spar/lib/gate"
	"github.com/jaekit/spar/lib/gitx"
	"github.com/jaekit/spar/lib/pipe"
	"github.com/jaekit/spar/lib/round"
	"github.com/jaekit/spar/lib/sign"
	"github.com/jaekit/spar/stage/cli"
)

var (
	attestFlags = []cli.Flag{{Name: "expect-head"}, {Name: "expect-base"}, {Name: "key"}, {Name: "out"}, {Name: "record"}, {Name: "repo"}, {Name: "signers"}, {Name: "signers-from"}}
	verifyFlags = []cli.Flag{{Name: "signers"}, {Name: "expect-head"}, {Name: "record"}, {Name: "repo"}}
)

// The files spar attest writes: an existing one is replaced only when it
// is an earlier one of the same kind (gate.CheckExport).
var (
	envelopeFile = gate.Rendering{Flag: "--out", What: "an attestation (a DSSE envelope)", Is: func(b []byte) bool {
		var e struct {
			PayloadType string `json:"payloadType"`
		}
		return json.Unmarshal(b, &e) == nil && e.PayloadType == attest.PayloadType
	}}
	recordFile = gate.Rendering{Flag: "--record", What: "a review-gate/v1 record", Is: func(b []byte) bool {
		var r struct {
			Schema string `json:"schema"`
		}
		return json.Unmarshal(b, &r) == nil && r.Schema == gate.Schema
	}}
)

// maxKeyFile and maxAttestation bound what the two commands read.
const (
	maxKeyFile     = 16 << 10
	maxAttestation = 16 << 20
)

// signersOptions reads --signers FILE or --signers-from REV into opts
// (docs/trust.md "Signed rounds"): one of them, never both.
func signersOptions(cmd string, vals map[string]string, opts *gate.Options) error {
	path, hasFile := vals["signers"]
	if _, from := vals["signers-from"]; hasFile && from {
		return usageErr("%s: --signers and --signers-from name the trusted keys twice: give one", cmd)
	}
	if hasFile {
		signers, err := readSigners(cmd, path)
		if err != nil {
			return err
		}
		opts.Signers, opts.SignersPath = signers, path
	}
	opts.SignersFrom, opts.SignersFromGiven = vals["signers-from"]
	return nil
}

func readSigners(cmd, path string) (*sign.Signers, error) {
	b, err := readBounded(path, 1<<20)
	if err != nil {
		return nil, exitcode.New(exitcode.Config, fmt.Sprintf("%s: --signers %q cannot be read: %v", cmd, path, err))
	}
	signers, err := sign.ParseSigners(b)
	if err != nil {
		return nil, exitcode.New(exitcode.Config, fmt.Sprintf("%s: --signers %q: %v", cmd, path, err))
	}
	return signers, nil
}

func readBounded(path string, max int) ([]byte, error) {
	b, err := round.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(b) > max {
		return nil, fmt.Errorf("%d bytes, more than %d", len(b), max)
	}
	return b, nil
}

// runAttest: spar attest (docs/attestation.md). The gate decides as spar
// gate does; its record and the statement of it, signed with --key, are
// written whatever the decision; the exit code is the gate's.
func runAttest(args []string, stdout, stderr io.Writer) error {
	pos, vals, err := parse(args, attestFlags)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usageErr("attest: one or more series (or round) folders are needed")
	}
	if _, ok := vals["expect-head"]; !ok {
		return usageErr("attest: --expect-head REV is required: an attestation names the head it is of")
	}
	keyPath, ok := vals["key"]
	if !ok {
		return usageErr("attest: --key FILE is required (an Ed25519 OpenSSH private key, ssh-keygen -t ed25519 -N '')")
	}
	kb, err := readBounded(keyPath, maxKeyFile)
	if err != nil {
		return exitcode.New(exitcode.Config, fmt.Sprintf("attest: --key %q cannot be read: %v", keyPath, err))
	}
	key, err := sign.ParseKey(kb)
	if err != nil {
		return exitcode.New(exitcode.Config, fmt.Sprintf("attest: --key %q: %v", keyPath, strings.ReplaceAll(err.Error(), sign.EnvVar, "the key")))
	}
	rounds, series, err := gate.Targets(pos)
	if err != nil {
		return usageErr("attest: %v", err)
	}
	opts := gate.Options{Rounds: rounds, Series: series}
	opts.ExpectHead, opts.ExpectHeadGiven = vals["expect-head"]
	opts.ExpectBase, opts.ExpectBaseGiven = vals["expect-base"]
	if err := signersOptions("attest", vals, &opts); err != nil {
		return err
	}
	repo, hasRepo := vals["repo"]
	if hasRepo {
		if _, err := gitx.TopLevel(repo); err != nil {
			return exitcode.New(exitcode.Config, fmt.Sprintf("attest: --repo %q is not a git repository", repo))
		}
		opts.Repo = repo
	} else if repo, err = gitx.TopLevel("."); err != nil {
		if repo, err = gitx.TopLevel(gate.Folders(rounds, series)[0]); err != nil {
			return exitcode.New(exitcode.Config, "attest: no git repository here or at the series: give --repo DIR")
		}
	}
	folders := gate.Folders(rounds, series)
	var taken [][2]string
	for _, e := range []gate.Rendering{envelopeFile, recordFile} {
		p, ok := vals[strings.TrimPrefix(e.Flag, "--")]
		if !ok {
			continue
		}
		if err := gate.CheckExport(e, p, folders, taken); err != nil {
			return exitcode.New(exitcode.Config, "attest: "+err.Error())
		}
		taken = append(taken, [2]string{e.Flag, p})
	}
	rep, gated, err := gate.Findings(opts)
	if err != nil {
		return exitcode.New(exitcode.Internal, err.Error())
	}
	rec := rep.Record
	if rec.ExpectHead == nil || rec.ExpectHead.Commit == nil {
		return exitcode.New(exitcode.Config, fmt.Sprintf("attest: --expect-head %q does not resolve to a commit of %s", opts.ExpectHead, repo))
	}
	in := attest.Input{Record: rec, Rounds: gated, HeadCommit: *rec.ExpectHead.Commit}
	if in.RecordBytes, err = pipe.MarshalIndent(rec); err != nil {
		return err
	}
	if in.HeadTree, err = tree(repo, in.HeadCommit); err != nil {
		return exitcode.New(exitcode.Config, "attest: "+err.Error())
	}
	if eb := rec.ExpectBase; eb != nil && eb.MergeBase != nil {
		in.BaseCommit = *eb.MergeBase
		if in.BaseTree, err = tree(repo, in.BaseCommit); err != nil {
			return exitcode.New(exitcode.Config, "attest: "+err.Error())
		}
	}
	st, err := attest.Statement(in)
	if err != nil {
		return exitcode.New(exitcode.Internal, "attest: "+err.Error())
	}
	env, err := attest.Sign(key, st)
	if err != nil {
		return exitcode.New(exitcode.Internal, "attest: "+err.Error())
	}
	env = append(env, '\n')
	if p, ok := vals["record"]; ok {
		if err := atomic.WriteFileUnlocked(p, in.RecordBytes, 0o644); err != nil {
			return exitcode.New(exitcode.IO, fmt.Sprintf("--record %q: %v", p, err))
		}
	}
	if p, ok := vals["out"]; ok {
		if err := atomic.WriteFileUnlocked(p, env, 0o644); err != nil {
			return exitcode.New(exitcode.IO, fmt.Sprintf("--out %q: %v", p, err))
		}
	} else if _, err := stdout.Write(env); err != nil {
		return exitcode.New(exitcode.IO, "stdout: "+err.Error())
	}
	fmt.Fprintf(stderr, "%s: %s: head %s, signed by %s\n", cli.Command(name), rec.State, in.HeadCommit, key.Fingerprint())
	for _, l := range rep.Lines() {
		fmt.Fprintln(stderr, cli.Command(name)+": "+l)
	}
	if rec.State == gate.Blocked {
		return exitcode.New(exitcode.Blocked, "")
	}
	return nil
}

func tree(repo, commit string) (string, error) {
	out, err := gitx.Git(repo, "rev-parse", "--verify", "--quiet", "--end-of-options", commit+"^{tree}")
	if err != nil {
		return "", fmt.Errorf("the tree of %s cannot be read in %s", commit, repo)
	}
	return strings.TrimSpace(string(out)), nil
}

var fullID = regexp.MustCompile(`^[0-9a-f]{40}([0-9a-f]{24})?$`)

// runVerifyAttestation: spar verify-attestation (docs/attestation.md):
// exit 0 verified and passed, 1 verified and blocked, 65 not verified.
func runVerifyAttestation(args []string, stdout io.Writer) error {
	pos, vals, err := parse(args, verifyFlags)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErr("verify-attestation: one attestation FILE is needed")
	}
	signersPath, ok := vals["signers"]
	if !ok {
		return usageErr("verify-attestation: --signers FILE is required (the trusted keys, OpenSSH's allowed_signers format)")
	}
	signers, err := readSigners("verify-attestation", signersPath)
	if err != nil {
		return err
	}
	b, err := readBounded(pos[0], maxAttestation)
	if err != nil {
		return exitcode.New(exitcode.Config, fmt.Sprintf("verify-attestation: %q cannot be read: %v", pos[0], err))
	}
	v, err := attest.Verify(b, signers)
	if err != nil {
		return exitcode.New(exitcode.Config, fmt.Sprintf("verify-attestation: %s: not verified: %v", pos[0], err))
	}
	if want, ok := vals["expect-head"]; ok {
		commit := strings.ToLower(want)
		if !fullID.MatchString(commit) {
			repo := vals["repo"]
			if repo == "" {
				repo = "."
			}
			if commit, err = gitx.ResolveCommit(repo, want); err != nil {
				return exitcode.New(exitcode.Config, fmt.Sprintf("verify-attestation: --expect-head %q does not resolve to a commit (give the whole commit id to verify offline, outside the repository)", want))
			}
		}
		if commit != v.HeadCommit {
			return exitcode.New(exitcode.Config, fmt.Sprintf("verify-attestation: %s: not verified: it attests the head %s, not --expect-head %s (%s)", pos[0], v.HeadCommit, want, commit))
		}
	}
	if p, ok := vals["record"]; ok {
		rb, err := readBounded(p, 256<<20)
		if err != nil {
			return exitcode.New(exitcode.Config, fmt.Sprintf("verify-attestation: --record %q cannot be read: %v", p, err))
		}
		sum := sha256.Sum256(rb)
		if got := hex.EncodeToString(sum[:]); got != v.GateRecord {
			return exitcode.New(exitcode.Config, fmt.Sprintf("verify-attestation: %s: not verified: --record %s has the sha256 %s, the attestation names %s (the gate record was changed, or is another)", pos[0], p, got, v.GateRecord))
		}
	}
	codes := "none"
	if len(v.Predicate.ReasonCodes) > 0 {
		codes = strings.Join(v.Predicate.ReasonCodes, ", ")
	}
	fmt.Fprintf(stdout, "verified: %s, signed by %s (%s)\nhead: %s\ndecision: %s (reason codes: %s)\nrounds: %d; findings: defect %d/%d, requirement-question %d/%d, hardening %d/%d, note %d/%d (open/closed)\n",
		pos[0], v.Principal, v.KeyID, v.HeadCommit, v.Predicate.Decision, codes, len(v.Predicate.Rounds),
		v.Predicate.Findings.Defect.Open, v.Predicate.Findings.Defect.Closed,
		v.Predicate.Findings.RequirementQuestion.Open, v.Predicate.Findings.RequirementQuestion.Closed,
		v.Predicate.Findings.Hardening.Open, v.Predicate.Findings.Hardening.Closed,
		v.Predicate.Findings.Note.Open, v.Predicate.Findings.Note.Closed)
	if v.Predicate.Decision != gate.Passed {
		return exitcode.New(exitcode.Blocked, "")
	}
	return nil
}
