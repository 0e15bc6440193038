#!/bin/sh
# The gate step of spar's GitHub Action (action.yml): fetch the series that
# was published for the pull request (spar push), gate it against this
# checkout and the pull request's head, and report: the Markdown report in
# the job's step summary, state=passed|blocked|error in the step's outputs,
# optionally a SARIF log and reviewdog's annotations. The exit code is the
# gate's (0 passed, 1 blocked); no published series is an error, never a
# pass. Run it as the action does, with the GitHub environment files set
# (e2e/script/testdata/transport/github_action.txtar).
#
# Environment: SPAR_SERIES (the series name, required), SPAR_EXPECT_HEAD
# (default GITHUB_SHA), SPAR_EXPECT_BASE (the pull request's base: code
# rounds must review the whole change from there; the action gives it on
# pull_request events), SPAR_REMOTE (a remote of the checkout, or the
# address of one, e.g. a fork's clone URL; default: the checkout's origin),
# SPAR_FORK (true: the pull request comes from a fork),
# SPAR_SARIF (a file to write, optional), SPAR_REVIEWDOG (a reviewdog
# reporter: github-pr-review, github-pr-check, github-check,
# github-pr-annotations or local; optional), SPAR_CONFIG (the job's user
# configuration: the required reviewers are CI's own), GITHUB_WORKSPACE,
# SPAR_MODE (review: only the rounds a trusted key signed count, the keys
# of .jaekit/allowed_signers at the base), SPAR_SIGNERS (the trusted keys
# as an allowed_signers text: the same in any mode), SPAR_RERUN_CHECKS
# (default true: every verified fix's check runs again in this job's
# sandbox, spar gate --rerun-checks; false: the records alone),
# GITHUB_STEP_SUMMARY,
# GITHUB_OUTPUT, RUNNER_TEMP.
set -u
series=${SPAR_SERIES:?SPAR_SERIES: the series input is required}
head=${SPAR_EXPECT_HEAD:-${GITHUB_SHA:?GITHUB_SHA or SPAR_EXPECT_HEAD is required}}
repo=${GITHUB_WORKSPACE:-.}
summary=${GITHUB_STEP_SUMMARY:-/dev/null}
output=${GITHUB_OUTPUT:-/dev/null}
# The reviewdog reporters that post to GitHub (and local, which prints):
# any other value is the workflow's mistake, said before anything is gated,
# never a gate that posts nothing.
case ${SPAR_REVIEWDOG:-} in
'' | github-pr-review | github-pr-check | github-check | github-pr-annotations | local) ;;
*)
	echo "spar: reviewdog-reporter \"$SPAR_REVIEWDOG\" is none of github-pr-review, github-pr-check, github-check, github-pr-annotations, local" >&2
	echo "state=error" >>"$output"
	exit 64
	;;
esac
tmp=$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/spar.XXXXXX") || exit 74
repo=$(git -C "$repo" rev-parse --show-toplevel) || exit 65
cd "$repo" || exit 65
# The series is fetched where the agent keeps it, reviews/<series> of the
# checkout (ignored, as every record folder is), so that the report and the
# commands it suggests name the agent's own paths; it is removed after.
dir=reviews/$series
if [ -e "$dir" ]; then
	echo "spar: $repo/$dir exists in the checkout: records are never committed (reviews/ belongs in .gitignore)" >&2
	echo "state=error" >>"$output"
	exit 65
fi
if ! git check-ignore -q "$dir/x"; then
	exclude=$(git rev-parse --git-path info/exclude)
	mkdir -p "$(dirname "$exclude")"
	echo "/$dir/" >>"$exclude"
fi
trap 'rm -rf "$tmp" "$dir"; rmdir reviews 2>/dev/null' EXIT

# SPAR_REMOTE names a remote of the checkout, or is the address of one (a
# pull request from a fork: the fork's clone URL, where its author
# published the series), added as the remote spar-fork.
remote=${SPAR_REMOTE:-}
case $remote in
*://* | /* | *.git | *@*:*)
	if git remote get-url spar-fork >/dev/null 2>&1; then
		git remote set-url spar-fork "$remote"
	else
		git remote add spar-fork "$remote"
	fi
	remote=spar-fork
	;;
esac
if ! spar fetch "$series" --out "$dir" ${remote:+--remote "$remote"} >&2 2>"$tmp/fetch.err"; then
	cat "$tmp/fetch.err" >&2
	# A fork's author cannot push to this repository: say what they do.
	if [ "${SPAR_FORK:-}" = true ] && grep -q 'no review was published' "$tmp/fetch.err"; then
		fork="This pull request comes from a fork, which cannot publish to this repository. Its author publishes the series to the fork (spar push reviews/$series, with the fork as origin), and the workflow fetches it from there: the action's input remote: \${{ github.event.pull_request.head.repo.clone_url }} (docs/usage.md §7.4)."
		echo "spar: $fork" >&2
		printf '%s\n\n' "$fork" >"$tmp/fork.md"
	fi
	# The series name (a branch name, chosen by the pull request) and the
	# error stay in an indented code block: nothing of them is Markdown.
	{
		echo "# spar gate: error"
		echo
		if [ -s "$tmp/fork.md" ]; then cat "$tmp/fork.md"; fi
		echo "No spar review could be fetched for the series named first below:"
		echo
		printf '%s\n' "$series" | sed 's/^/    /'
		sed 's/^/    /' "$tmp/fetch.err"
	} >>"$summary"
	echo "state=error" >>"$output"
	exit 1
fi

set -- "$dir" --expect-head "$head" --repo .
# Where the change starts is CI's to say, not the series': without it a
# review of the last commit alone (--base HEAD~1) would cover the change.
if [ -n "${SPAR_EXPECT_BASE:-}" ]; then
	set -- "$@" --expect-base "$SPAR_EXPECT_BASE"
fi
# Review in CI: only the rounds a trusted key signed count (docs/trust.md
# "Signed rounds"). The trusted keys are the workflow's (SPAR_SIGNERS, an
# allowed_signers text, say a repository variable) or else those of
# .jaekit/allowed_signers at the pull request's base, never the head's.
if [ -n "${SPAR_SIGNERS:-}" ]; then
	printf '%s\n' "$SPAR_SIGNERS" >"$tmp/allowed_signers"
	set -- "$@" --signers "$tmp/allowed_signers"
elif [ "${SPAR_MODE:-gate}" = review ]; then
	signers_from=${SPAR_EXPECT_BASE:-${SPAR_BASE:-}}
	if [ -z "$signers_from" ]; then
		echo "spar: mode review gates only the rounds signed by the keys of .jaekit/allowed_signers at the base, and no base was given (expect-base, base)" >&2
		echo "state=error" >>"$output"
		exit 64
	fi
	set -- "$@" --signers-from "$signers_from"
fi
# A verified fix claim on the laptop is the agent's record: the job runs
# each check again (docs/review-gate.md "Verified fix claims").
case ${SPAR_RERUN_CHECKS:-true} in
true) set -- "$@" --rerun-checks ;;
false) ;;
*)
	echo "spar: rerun-checks \"$SPAR_RERUN_CHECKS\" is neither true nor false" >&2
	echo "state=error" >>"$output"
	exit 64
	;;
esac
# One gate run writes every rendering of its one decision: the Markdown
# report on stdout, the SARIF log and reviewdog's diagnostics to files.
if [ -n "${SPAR_SARIF:-}" ]; then
	set -- "$@" --sarif "$SPAR_SARIF"
fi
if [ -n "${SPAR_REVIEWDOG:-}" ]; then
	set -- "$@" --rdjsonl "$tmp/open.rdjsonl"
fi
status=0
spar gate "$@" --format md >"$tmp/summary.md" 2>"$tmp/gate.err" || status=$?
cat "$tmp/gate.err" >&2
case $status in
0) state=passed ;;
1) state=blocked ;;
*) state=error ;;
esac
if [ "$state" = error ] && [ ! -s "$tmp/summary.md" ]; then
	# Refused or failed before a report: the summary says why (the gate's
	# words, which may hold the series' paths, in an indented code block).
	{
		echo "# spar gate: error"
		echo
		echo "spar gate wrote no report (exit $status):"
		echo
		sed 's/^/    /' "$tmp/gate.err"
	} >"$tmp/summary.md"
fi
cat "$tmp/summary.md" >>"$summary"
echo "state=$state" >>"$output"

if [ -n "${SPAR_REVIEWDOG:-}" ] && [ "$state" != error ]; then
	# The open findings as annotations; the gate's exit code decides. A
	# reviewdog that fails (a token without rights, the API down) leaves the
	# verdict as it is and says so in a warning annotation (the step
	# summary is not written again: the report may fill its 1 MiB).
	rd=0
	reviewdog -f=rdjsonl -name=spar -reporter="$SPAR_REVIEWDOG" -filter-mode=nofilter -fail-level=none <"$tmp/open.rdjsonl" || rd=$?
	if [ "$rd" -ne 0 ]; then
		echo "::warning title=spar::reviewdog ($SPAR_REVIEWDOG) failed (exit $rd): the open findings were not posted; the verdict ($state) is the gate's"
	fi
fi
exit $status
