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
# (default GITHUB_SHA), SPAR_REMOTE (default: the checkout's origin),
# SPAR_SARIF (a file to write, optional), SPAR_REVIEWDOG (a reviewdog
# reporter such as github-pr-review, optional), SPAR_CONFIG (the job's user
# configuration: the required reviewers are CI's own), GITHUB_WORKSPACE,
# GITHUB_STEP_SUMMARY, GITHUB_OUTPUT, RUNNER_TEMP.
set -u
series=${SPAR_SERIES:?SPAR_SERIES: the series input is required}
head=${SPAR_EXPECT_HEAD:-${GITHUB_SHA:?GITHUB_SHA or SPAR_EXPECT_HEAD is required}}
repo=${GITHUB_WORKSPACE:-.}
summary=${GITHUB_STEP_SUMMARY:-/dev/null}
output=${GITHUB_OUTPUT:-/dev/null}
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

if ! spar fetch "$series" --out "$dir" ${SPAR_REMOTE:+--remote "$SPAR_REMOTE"} >&2 2>"$tmp/fetch.err"; then
	cat "$tmp/fetch.err" >&2
	{
		echo "# spar gate: error"
		echo
		echo "No spar review could be fetched for the series \`$series\`:"
		echo
		sed 's/^/    /' "$tmp/fetch.err"
	} >>"$summary"
	echo "state=error" >>"$output"
	exit 1
fi

set -- "$dir" --expect-head "$head" --repo .
status=0
if [ -n "${SPAR_SARIF:-}" ]; then
	spar gate "$@" --sarif "$SPAR_SARIF" --format md >"$tmp/summary.md" || status=$?
else
	spar gate "$@" --format md >"$tmp/summary.md" || status=$?
fi
cat "$tmp/summary.md" >>"$summary"
case $status in
0) state=passed ;;
1) state=blocked ;;
*) state=error ;;
esac
echo "state=$state" >>"$output"

if [ -n "${SPAR_REVIEWDOG:-}" ] && [ "$state" != error ]; then
	# The open findings as annotations; the gate's exit code decides.
	spar gate "$@" --format rdjsonl 2>/dev/null |
		reviewdog -f=rdjsonl -name=spar -reporter="$SPAR_REVIEWDOG" -filter-mode=nofilter -fail-level=none
fi
exit $status
