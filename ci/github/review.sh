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
# A published round is reused only when it carries this job's seal
# (SPAR_SEAL_KEY, a secret of the repository: spar seals every round it
# records with it and reuses none without it). Without a key any published
# round of the same input is reused, one the agent under review made too:
# the job says so (docs/trust.md "Records in git and the gate in CI").
#
# Environment: SPAR_SERIES (required), SPAR_BASE (the pull request's base
# commit, required), SPAR_EXPECT_HEAD (default GITHUB_SHA), SPAR_REMOTE
# (default: the checkout's origin), SPAR_CONFIG, SPAR_SEAL_KEY,
# GITHUB_WORKSPACE.
set -u
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

if [ -z "${SPAR_SEAL_KEY:-}" ]; then
	echo "spar: warning: SPAR_SEAL_KEY is not set (the action's seal-key): a review of this input already published, by anyone who can push the series' ref, is reused as this job's own" >&2
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
spar push "$dir" ${SPAR_REMOTE:+--remote "$SPAR_REMOTE"}
