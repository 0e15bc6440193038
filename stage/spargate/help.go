package spargate

// commandHelp is the help `spar gate --help`, `spar cap-report --help` and
// `spar status --help` print: what each command does and each flag, in
// words, with an example (docs/usage.md). Contract rows stay in docs/.
var commandHelp = map[string]string{
	"gate": `usage: spar gate ROUND...|SERIES... [--expect-head REV] [--expect-base REV] [--out FILE] [--sarif FILE] [--md FILE] [--rdjsonl FILE] [--codequality FILE]
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
