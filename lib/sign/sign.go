// Package sign is a CI job's signature on the rounds it recorded: an
// Ed25519 SSH key signs, in OpenSSH's SSHSIG format with the namespace
// "spar", the manifest of every file of the round that is fixed once the
// round is recorded (Manifest). Anyone with the public key checks it
// offline, `ssh-keygen -Y verify` included: the trusted keys are an
// OpenSSH allowed_signers file (Signers), which whoever gates takes from a
// commit the change under review cannot touch (the protected base) or
// from the workflow, never from the head under review (docs/trust.md
// "Signed rounds").
//
// A round folder holds its signature as two files that start with a dot,
// which no reviewer name does (G20): ManifestFile (the signed bytes, so
// that ssh-keygen can check them) and SignatureFile (the armored SSHSIG).
package sign

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/hiddeco/sshsig"
	"golang.org/x/crypto/ssh"

	"github.com/jaekit/spar/lib/atomic"
	"github.com/jaekit/spar/lib/round"
)

// EnvVar names the job's private key: an OpenSSH private key (the text
// `ssh-keygen -t ed25519` writes, without a passphrase), a secret of the
// CI system. Set, spar run signs every round it records and reuses a
// reviewer's earlier review only from a round this key signed.
const EnvVar = "SPAR_SIGNING_KEY"

// Namespace is the SSHSIG namespace of spar's signatures: a signature made
// for anything else (git commits, files) never verifies as a round's.
const Namespace = "spar"

// The signature's files in a round folder.
const (
	ManifestFile  = ".spar-signed"
	SignatureFile = ".spar-signed.sig"
)

// maxKey bounds the key text read from the environment and a signature
// file; maxSigners bounds an allowed_signers file.
const (
	maxKey     = 16 << 10
	maxSigners = 1 << 20
)

// Key is a job's signing key.
type Key struct{ signer ssh.Signer }

// KeyFromEnv reads the key getenv gives for EnvVar: nil when it is not
// set, an error when it is not an unencrypted Ed25519 OpenSSH private key.
func KeyFromEnv(getenv func(string) string) (*Key, error) {
	text := getenv(EnvVar)
	if text == "" {
		return nil, nil
	}
	return ParseKey([]byte(text))
}

// ParseKey reads an unencrypted Ed25519 OpenSSH private key.
func ParseKey(b []byte) (*Key, error) {
	if len(b) > maxKey {
		return nil, fmt.Errorf("%s holds %d bytes: no Ed25519 private key is that long", EnvVar, len(b))
	}
	raw, err := ssh.ParseRawPrivateKey(b)
	var missing *ssh.PassphraseMissingError
	switch {
	case errors.As(err, &missing):
		return nil, fmt.Errorf("%s is a key with a passphrase: a CI job's key has none (ssh-keygen -t ed25519 -N '')", EnvVar)
	case err != nil:
		return nil, fmt.Errorf("%s is no OpenSSH private key (%v): give the text ssh-keygen -t ed25519 -N '' writes", EnvVar, err)
	}
	var priv ed25519.PrivateKey
	switch k := raw.(type) {
	case *ed25519.PrivateKey:
		priv = *k
	case ed25519.PrivateKey:
		priv = k
	default:
		return nil, fmt.Errorf("%s is a %T key: spar signs with Ed25519 keys only (ssh-keygen -t ed25519)", EnvVar, raw)
	}
	signer, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		return nil, err
	}
	return &Key{signer: signer}, nil
}

// Public is the key's public half.
func (k *Key) Public() ssh.PublicKey { return k.signer.PublicKey() }

// Unset removes the key from this process's environment once it was read,
// so that nothing this process starts (a reviewer, git) can read it.
func Unset() { os.Unsetenv(EnvVar) }

// Sign signs the round folder dir, the round name of the series series,
// writing ManifestFile and then SignatureFile, each atomically: a folder
// with the manifest and no signature is unsigned.
func Sign(k *Key, dir, series, name string) error {
	m, err := Manifest(dir, series, name)
	if err != nil {
		return fmt.Errorf("sign %s: %w", dir, err)
	}
	sig, err := sshsig.Sign(bytes.NewReader(m), k.signer, sshsig.HashSHA512, Namespace)
	if err != nil {
		return fmt.Errorf("sign %s: %w", dir, err)
	}
	if err := atomic.WriteFile(filepath.Join(dir, ManifestFile), m, 0o644); err != nil {
		return err
	}
	return atomic.WriteFile(filepath.Join(dir, SignatureFile), sshsig.Armor(sig), 0o644)
}

// ErrUnsigned is a round folder without a signature.
var ErrUnsigned = errors.New("not signed")

// UntrustedError is a signature that verifies, by a key the signers do not
// trust for the namespace: the round counts as unsigned.
type UntrustedError struct{ Fingerprint string }

func (e *UntrustedError) Error() string {
	return "signed by the key " + e.Fingerprint + ", which the trusted signers do not hold for the namespace spar"
}

// Signed is a round's verified signature: who signed it.
type Signed struct {
	Principal   string // the first principal of the signers' line of the key
	Fingerprint string // SHA256:… of the key
}

// Verify checks the signature of the round folder dir (the round name of
// the series series) against signers: who signed it when the signature is
// one of a trusted key over the folder's signed files as they are now;
// ErrUnsigned without a signature; an *UntrustedError for a key the
// signers do not hold; another error for a signature that does not verify
// or does not cover the folder as it is (a file edited, added or removed
// since, a signature copied from another round).
func Verify(signers *Signers, dir, series, name string) (Signed, error) {
	sigText, err := readSmall(filepath.Join(dir, SignatureFile))
	if errors.Is(err, fs.ErrNotExist) {
		return Signed{}, ErrUnsigned
	}
	if err != nil {
		return Signed{}, err
	}
	sig, err := sshsig.Unarmor(sigText)
	if err != nil {
		return Signed{}, fmt.Errorf("%s is no SSH signature (%v)", SignatureFile, err)
	}
	fp := ssh.FingerprintSHA256(sig.PublicKey)
	principal, ok := signers.find(sig.PublicKey, Namespace)
	if !ok {
		return Signed{}, &UntrustedError{Fingerprint: fp}
	}
	m, err := round.ReadFile(filepath.Join(dir, ManifestFile))
	if err != nil {
		return Signed{}, fmt.Errorf("%s: %v", ManifestFile, err)
	}
	if err := sshsig.Verify(bytes.NewReader(m), sig, sig.PublicKey, sig.HashAlgorithm, Namespace); err != nil {
		return Signed{}, fmt.Errorf("the signature of %s by %s does not verify (%v)", ManifestFile, fp, err)
	}
	now, err := Manifest(dir, series, name)
	if err != nil {
		return Signed{}, err
	}
	if !bytes.Equal(now, m) {
		return Signed{}, fmt.Errorf("the signature by %s (%s) does not cover the round as it is: %s", principal, fp, manifestDiff(m, now))
	}
	return Signed{Principal: principal, Fingerprint: fp}, nil
}

// readSmall reads a signature file (a regular file, bounded).
func readSmall(p string) ([]byte, error) {
	b, err := round.ReadFile(p)
	if err != nil {
		return nil, err
	}
	if len(b) > maxKey {
		return nil, fmt.Errorf("%s holds %d bytes, more than any signature", filepath.Base(p), len(b))
	}
	return b, nil
}

// manifestDiff names the first line the signed manifest and the folder's
// differ in.
func manifestDiff(signed, now []byte) string {
	a, b := bytes.Split(signed, []byte("\n")), bytes.Split(now, []byte("\n"))
	for i := 0; i < len(a) || i < len(b); i++ {
		switch {
		case i >= len(a):
			return fmt.Sprintf("the folder holds %s, which was not signed", b[i])
		case i >= len(b):
			return fmt.Sprintf("the signed %s is not in the folder", a[i])
		case !bytes.Equal(a[i], b[i]):
			return fmt.Sprintf("signed %s, now %s", a[i], b[i])
		}
	}
	return "they differ"
}

// SignRaw is the key's Ed25519 signature of data, the raw 64 bytes (what a
// DSSE envelope carries, lib/attest).
func (k *Key) SignRaw(data []byte) ([]byte, error) {
	sig, err := k.signer.Sign(nil, data)
	if err != nil {
		return nil, err
	}
	return sig.Blob, nil
}

// Fingerprint is the key's SHA256 fingerprint (SHA256:…).
func (k *Key) Fingerprint() string { return ssh.FingerprintSHA256(k.Public()) }

// NewKey makes a new Ed25519 key: the key, its OpenSSH private key text
// (as ssh-keygen -t ed25519 -N ” writes it) and the allowed_signers line
// that trusts it for the namespace spar under principal (tests and
// benchmarks sign with throwaway keys).
func NewKey(principal string) (*Key, []byte, string, error) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, nil, "", err
	}
	block, err := ssh.MarshalPrivateKey(priv, "")
	if err != nil {
		return nil, nil, "", err
	}
	text := pem.EncodeToMemory(block)
	k, err := ParseKey(text)
	if err != nil {
		return nil, nil, "", err
	}
	line := principal + ` namespaces="` + Namespace + `" ` + strings.TrimSpace(string(ssh.MarshalAuthorizedKey(k.Public())))
	return k, text, line, nil
}
