#!/bin/sh
# The step of spar's GitHub Action (action.yml): with SPAR_MODE review,
# review.sh first (the job's own reviewers, a round appended and pushed),
# then gate.sh. Whatever stops the step, state is set in its outputs and the
# step summary says why: a review that fails (a fork's pull request has
# neither the reviewers' secrets nor the right to push the series ref) is
# state=error, never a step without a state.
#
# Environment: SPAR_MODE (gate or review, default gate), SPAR_SERIES
# (else SPAR_BRANCH, the pull request's branch, each / as -), SPAR_CONFIG
# or SPAR_REVIEWERS (one is required: ci/reviewers.sh makes the job's
# configuration of the latter), and what review.sh and gate.sh read;
# GITHUB_STEP_SUMMARY, GITHUB_OUTPUT, RUNNER_TEMP.
set -u
here=$(dirname "$0")
summary=${GITHUB_STEP_SUMMARY:-/dev/null}
output=${GITHUB_OUTPUT:-/dev/null}
# A series is one folder name, a branch name may hold /: the series of
# branch feature/login is feature-login (docs/usage.md §7.2).
if [ -z "${SPAR_SERIES:-}" ]; then
	SPAR_SERIES=$(printf '%s' "${SPAR_BRANCH:-}" | tr / -)
	export SPAR_SERIES
fi
if [ -z "$SPAR_SERIES" ]; then
	echo "spar action: no series input, and no branch to name the series after" >&2
	echo "state=error" >>"$output"
	exit 64
fi
# stop CODE LINE: the step ends with state=error, LINE on stderr and in the
# step summary (LINE holds no input's text: the summary is Markdown).
stop() {
	echo "spar action: $2" >&2
	{
		echo "# spar gate: error"
		echo
		echo "$2"
	} >>"$summary"
	echo "state=error" >>"$output"
	exit "$1"
}
# CI's reviewers are explicit (docs/usage.md §7.2): the config input (a spar
# user configuration) or the reviewers input, which becomes this job's
# configuration; never the default reviewers a configuration-less spar
# would require.
if [ -n "${SPAR_REVIEWERS:-}" ] && [ -n "${SPAR_CONFIG:-}" ]; then
	stop 64 "give the action's reviewers input or its config input, not both (reviewers: the names alone; config: a spar configuration file whose [[reviewers]] they are)"
fi
if [ -z "${SPAR_CONFIG:-}" ]; then
	if [ -z "${SPAR_REVIEWERS:-}" ]; then
		stop 65 "no reviewers: set the action's reviewers input (e.g. reviewers: codex, claude) or its config input (a spar configuration file); CI requires the reviewers it is told, never spar's defaults"
	fi
	SPAR_CONFIG="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/spar-reviewers.toml"
	if ! sh "$here/../reviewers.sh" "$SPAR_REVIEWERS" >"$SPAR_CONFIG"; then
		stop 64 "the reviewers input is not a list of NAME or NAME=PRESET (PRESET: claude, codex, agy or native), by commas or blanks: the job log names the entry"
	fi
	export SPAR_CONFIG
fi
mode=${SPAR_MODE:-gate}
case $mode in
gate) ;;
review)
	status=0
	err=$(mktemp "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/spar-review.XXXXXX") || exit 74
	sh "$here/review.sh" 2>"$err" || status=$?
	cat "$err" >&2
	if [ "$status" -ne 0 ]; then
		echo "spar action: the review in CI failed (exit $status): nothing was gated" >&2
		# Its last words, in an indented code block: nothing of them is
		# Markdown.
		{
			echo "# spar gate: error"
			echo
			echo "The review in CI (mode review) failed (exit $status) before anything was gated. A fork's pull request has neither the reviewers' secrets nor the right to push the series ref (docs/usage.md §7.4). What it said last:"
			echo
			tail -n 20 "$err" | cut -c1-2000 | sed 's/^/    /'
		} >>"$summary"
		rm -f "$err"
		echo "state=error" >>"$output"
		exit "$status"
	fi
	rm -f "$err"
	;;
*)
	echo "spar action: mode $mode is neither gate nor review" >&2
	echo "state=error" >>"$output"
	exit 64
	;;
esac
exec sh "$here/gate.sh"
