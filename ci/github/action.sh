#!/bin/sh
# The step of spar's GitHub Action (action.yml): with SPAR_MODE review,
# review.sh first (the job's own reviewers, a round appended and pushed),
# then gate.sh. Whatever stops the step, state is set in its outputs and the
# step summary says why: a review that fails (a fork's pull request has
# neither the reviewers' secrets nor the right to push the series ref) is
# state=error, never a step without a state.
#
# Environment: SPAR_MODE (gate or review, default gate), SPAR_SERIES
# (else SPAR_BRANCH, the pull request's branch, each / as -), and what
# review.sh and gate.sh read; GITHUB_STEP_SUMMARY, GITHUB_OUTPUT.
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
