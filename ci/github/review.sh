#!/bin/sh
# Review in CI, before the gate (action.yml with mode: review): this job runs
# the reviewers itself, with its own configuration (SPAR_CONFIG) and
# secrets, on the pull request's head. It fetches the series published for
# the pull request (or starts it when none was), appends a round of the head
# to it, and publishes the series again with spar push; gate.sh then gates
# what was pushed. An input the series already reviewed is not reviewed
# again: spar run's rerun rule runs no reviewer that completed the same
# input (same base, head and packet) with the same configuration, so a job
# run again after the agent triaged and pushed costs no second review.
#
# Every round this job records is signed with its key (SPAR_SIGNING_KEY, a
# secret of the repository: an Ed25519 OpenSSH private key without a
# passphrase), and a published round is reused only when this key signed
# it; the gate then counts only the rounds a trusted key signed (the keys of
# .jaekit/allowed_signers at the pull request's base, or the action's
# signers input). Without a key the job refuses to start: a review in CI
# that any round of the same input could stand in for is no review
# (docs/trust.md "Signed rounds"). The job fails (state error) when a
# required reviewer of its own round did not complete: a refusal, a time
# limit or an outage is never a passing review.
#
# Environment: SPAR_SERIES (required), SPAR_BASE (the pull request's base
# commit, required), SPAR_EXPECT_HEAD (default GITHUB_SHA), SPAR_REMOTE
# (default: the checkout's origin), SPAR_CONFIG, SPAR_SIGNING_KEY,
# GITHUB_WORKSPACE.
set -u
if [ -z "${SPAR_SIGNING_KEY:-}" ]; then
	echo "spar: review in CI signs the rounds it records and counts no other: add the input signing-key: \${{ secrets.SPAR_SIGNING_KEY }} (a key made with ssh-keygen -t ed25519 -N '' -C spar-ci; its .pub line, as 'spar-ci namespaces=\"spar\" ssh-ed25519 AAAA...', goes into .jaekit/allowed_signers on the base branch)" >&2
	exit 65
fi
series=${SPAR_SERIES:?SPAR_SERIES: the series input is required}
base=${SPAR_BASE:?SPAR_BASE: the base commit is required for a review}
head=${SPAR_EXPECT_HEAD:-${GITHUB_SHA:?GITHUB_SHA or SPAR_EXPECT_HEAD is required}}
repo=${GITHUB_WORKSPACE:-.}
repo=$(git -C "$repo" rev-parse --show-toplevel) || exit 65

# The series folder lives where the agent keeps it, reviews/<series> of the
# checkout, ignored (the record path rule), so that spar push finds the
# repository it reviews.
cd "$repo" || exit 65
dir=reviews/$series
if [ -e "$dir" ]; then
	echo "spar: $repo/$dir exists: review.sh runs in a CI checkout, where records are never committed (reviews/ belongs in .gitignore)" >&2
	exit 65
fi
if ! git check-ignore -q "$dir/x"; then
	exclude=$(git rev-parse --git-path info/exclude)
	mkdir -p "$(dirname "$exclude")"
	echo "/$dir/" >>"$exclude"
fi
err=$(mktemp) || exit 74
trap 'rm -f "$err"; rm -rf "$dir"; rmdir reviews 2>/dev/null' EXIT
mkdir -p reviews
if ! spar fetch "$series" --out "$dir" ${SPAR_REMOTE:+--remote "$SPAR_REMOTE"} 2>"$err"; then
	if ! grep -q 'no review was published' "$err"; then
		cat "$err" >&2
		exit 74
	fi
	echo "spar: no series $series was published yet: this job starts it" >&2
	mkdir -p "$dir"
fi


# The next round of the series: code-<n>, n one more than the rounds it has.
n=1
while [ -e "$dir/code-$n" ]; do n=$((n + 1)); done
status=0
spar run --stage code --base "$base" --head "$head" --out "$dir/code-$n" --quiet || status=$?
case $status in
0 | 1) ;; # recorded (1: reviewers that could not run, said on stderr)
*) exit $status ;;
esac
spar push "$dir" ${SPAR_REMOTE:+--remote "$SPAR_REMOTE"} || exit $?
# The job's own round must hold a completed review of every required
# reviewer (its own, or one it signed earlier for the same input): the
# round stays published as evidence, the step fails.
spar-record verdict --require-complete "$dir/code-$n" >/dev/null
