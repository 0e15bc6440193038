package spargate

// commandHelp is the help `spar gate --help`, `spar cap-report --help` and
// `spar status --help` print: what each command does and each flag, in
// words, with an example (docs/usage.md). Contract rows stay in docs/.
var commandHelp = map[string]string{
	"attest": `usage: spar attest SERIES... --expect-head REV --key FILE [--expect-base REV] [--signers FILE | --signers-from REV] [--out FILE] [--record FILE] [--repo DIR]

Gates the series as spar gate does and writes the verdict as an in-toto
Statement v1 in a DSSE envelope, signed with an Ed25519 SSH key: subjects
the gated head's and base's git trees, the head commit and the gate
record; predicate https://github.com/jaekit/spar/attestation/review/v1
(the decision, its reason codes, each round's reviewers, every finding's
class, state and disposition; docs/attestation.md). Anyone with the public
key verifies it offline (spar verify-attestation). It is written whatever
the decision; the exit code is the gate's.

  --expect-head REV  the head the attestation is of (required)
  --key FILE         the signing key: an Ed25519 OpenSSH private key without
                     a passphrase (ssh-keygen -t ed25519 -N '')
  --expect-base REV, --signers FILE, --signers-from REV, --repo DIR
                     as spar gate's
  --out FILE         write the envelope to FILE, atomically (default: stdout)
  --record FILE      also write the gate record the statement names

Exit codes: 0 passed, 1 blocked (both attested), 64 usage error, 65 refused
(nothing written), 74 I/O error.

Example:
  spar attest reviews/login --expect-head HEAD --expect-base origin/main --key ci.key --out login.intoto.json
`,
	"verify-attestation": `usage: spar verify-attestation FILE --signers FILE [--expect-head REV] [--record FILE] [--repo DIR]

Verifies an attestation spar attest wrote, offline: its DSSE signature
against the Ed25519 keys the allowed_signers file trusts for the namespace
spar, the statement (in-toto v1, spar's predicate type), and, when given,
that it is of --expect-head and that --record FILE is the gate record it
names. Prints who signed it, the head and the decision.

  --signers FILE     the trusted keys (OpenSSH's allowed_signers format)
  --expect-head REV  the head it must be of: a whole commit id, or a
                     revision of the repository (--repo, default here)
  --record FILE      the gate record it must name (its sha256)

Exit codes: 0 verified, passed; 1 verified, blocked; 64 usage error; 65 not
verified (another key, an edited envelope, another head or record).

Example:
  spar verify-attestation login.intoto.json --signers .jaekit/allowed_signers --expect-head HEAD
`,
	"gate": `usage: spar gate ROUND...|SERIES... [--expect-head REV] [--expect-base REV] [--signers FILE | --signers-from REV] [--out FILE] [--sarif FILE] [--md FILE] [--rdjsonl FILE] [--codequality FILE]
                 [--format FORMAT] [--repo DIR]

Decides whether the change may pass. Give every round of the series, in
order, or the series folder itself (every round it holds, in order). A round
left out, an open defect or question, a required reviewer without a review
of the latest input, or commits made after the last review all block.

stderr shows the verdict, then each reason on one line with the one command
that clears it, then once the dispositions that close a finding. stdout
shows the record (JSON), for scripts and CI.

  --expect-head REV  the commit the work must be at (e.g. HEAD); without it
                     the gate checks the repository's checked-out HEAD
  --expect-base REV  where the change starts (e.g. main; in CI the pull
                     request's base): code rounds must review the whole
                     change, from the merge base of REV and the head
  --signers FILE     only rounds signed by a key of this allowed_signers file
                     (OpenSSH's format) count: review in CI, the job's key
  --signers-from REV the same with .jaekit/allowed_signers of the commit REV
                     (the protected base, e.g. origin/main); without either
                     the gate only shows which rounds the head commit's
                     .jaekit/allowed_signers signed
  --repo DIR         the repository the rounds' commits are in (default: the
                     working folder's, else the series folder's, the first
                     that holds them; the one the round recorded only for
                     a series folder in no repository; in CI, the checkout)
  --out FILE         also keep the JSON record in FILE; a record already
                     there is replaced and its digest kept in the new one
  --sarif FILE       also write the findings as SARIF 2.1.0 for code hosts
                     (GitHub code scanning); closed ones are suppressed
  --format FORMAT    stdout: json, the JSON record (default); md, a Markdown
                     report for a CI step summary or a pull-request comment;
                     rdjsonl, the open findings as reviewdog diagnostics;
                     codequality, a GitLab Code Quality report
  --md FILE, --rdjsonl FILE, --codequality FILE
                     also write that rendering to FILE, of the same
                     decision as stdout: one gate run gives a CI job every
                     report it needs (an existing FILE is replaced only
                     when it is an earlier one of the same kind)

Exit codes: 0 passed, 1 blocked, 64 usage error, 65 refused (nothing
written), 70 internal error, 74 I/O error writing a file.

Examples:
  spar gate reviews/login --expect-head HEAD --out reviews/login-gate.json
  spar gate reviews/login --format md --rdjsonl out/open.rdjsonl >> "$GITHUB_STEP_SUMMARY"
`,
	"cap-report": `usage: spar cap-report SERIES [--format md|json]

Shows how many rounds each stage of the series may still count: the cap,
the extensions granted (with their cause and reason), the rounds counted and
left, the reruns, the tokens and cost the reviewers stated, and how much the
code grew from round to round.

  --format md|json   a Markdown table (default) or JSON

Exit codes: 0 printed, 64 usage error, 65 refused (the folder is not a
series), 70 internal error.

Example:
  spar cap-report reviews/login
`,
	"status": `usage: spar status [SERIES|ROUND]... [--format text|json]

Shows where each series stands, like git status: its latest round and
whether the checked-out HEAD is the head it reviewed, each finding open or
closed (as the gate decides it) and why, the required reviewers, the rounds
used of each cap, and the one command that moves the series on. Findings
that several reviewers report at the same place are shown together.
Without arguments: every series under reviews/ of the current repository.

  --format text|json   words for people (default), or a JSON object

Exit codes: 0 printed (whatever the state), 64 usage error, 65 refused (a
folder that is no series or round), 70 internal error.

Example:
  spar status reviews/login
`,
}
