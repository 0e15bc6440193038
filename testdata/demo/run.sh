#!/bin/sh
# make demo: a whole review round on the bundled example, offline.
#
# The example (testdata/demo/) is a small Go project with rules in AGENTS.md,
# acceptance criteria with AC- IDs and a change that adds link expiry: it
# compares the token with != (a real defect against rule 1) and adds a test
# in the check paths that can never fail (rule 2). Two reviewers of the
# `command` preset run the example reviewer (examples/spar-example-reviewer),
# which reads the packet and the read-only workspace and reports what it finds
# in the code. The gate blocks; the change is fixed, the findings are
# triaged, a second round reviews the fix, and the gate passes.
#
# Every command is printed before it runs, so the demo teaches the commands;
# the JSON records a command prints for tools (the gate's, triage's ledger
# line) go to /dev/null, shown so, and spar status says where things stand.
set -eu

here=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd)
# SPAR_DEMO_DIR names the folder to work in (kept afterwards); otherwise a
# temporary folder, removed at the end unless SPAR_DEMO_KEEP is set.
if [ -n "${SPAR_DEMO_DIR:-}" ]; then
	work=$SPAR_DEMO_DIR
	mkdir -p "$work"
	SPAR_DEMO_KEEP=1
else
	work=$(mktemp -d "${TMPDIR:-/tmp}/spar-demo.XXXXXX")
fi
if [ -z "${SPAR_DEMO_KEEP:-}" ]; then
	trap 'rm -rf "$work"' EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
fi

say() { printf '\n## %s\n\n' "$*"; }
# shown ARG...: the command as a shell reads it, to copy and paste: a word
# of only safe characters as it is, any other single-quoted (a ' inside
# written '\'').
shown() {
	line=
	for a in "$@"; do
		case $a in
		'' | *[!A-Za-z0-9_./:=,@%+-]*) a="'$(printf '%s' "$a" | sed "s/'/'\\\\''/g")'" ;;
		esac
		line="$line${line:+ }$a"
	done
	printf '$ %s\n' "$line"
}
run() {
	shown "$@"
	"$@"
}
# run_to FILE ARG...: like run_status, stdout into FILE (a JSON record
# kept for tools, not for reading here): the line shows the redirection.
run_to() {
	to=$1
	shift
	line=$(shown "$@")
	printf '%s > %s\n' "$line" "$to"
	set +e
	"$@" >"$to"
	rc=$?
	set -e
	printf '(exit status %d)\n' "$rc"
}
# run_status: like run, but a non-zero exit is shown, not fatal.
run_status() {
	shown "$@"
	set +e
	"$@"
	rc=$?
	set -e
	printf '(exit status %d)\n' "$rc"
}

# Isolated from the user's git and spar settings.
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_AUTHOR_NAME='spar demo' GIT_AUTHOR_EMAIL='demo@example.invalid'
export GIT_COMMITTER_NAME='spar demo' GIT_COMMITTER_EMAIL='demo@example.invalid'
unset CLEAN_REVIEW_CONFIG XDG_CONFIG_HOME 2>/dev/null || true

repo=$work/loginlink
mkdir -p "$repo"
cp -R "$here/base/." "$repo/"
printf 'reviews/\n' >"$repo/.gitignore"

say "The example repository: a base commit, and the change to review"
cd "$repo"
run git init -q -b main
run git add -A
run git commit -q -m 'login links'
run git tag base
cp -R "$here/change/." "$repo/"
run git commit -q -am 'login links expire after 15 minutes (AC-2)'
run git tag change
run git --no-pager diff --stat base change

say "The user configuration: two reviewers of the command preset"
cat >"$work/spar.toml" <<'TOML'
timeout_seconds = 120

[[reviewers]]
name = "rules"
preset = "command"
argv = ["spar-example-reviewer", "--packet", "{prompt}", "--workspace", "{workspace}", "--focus", "rules"]

[[reviewers]]
name = "checks"
preset = "command"
argv = ["spar-example-reviewer", "--packet", "{prompt}", "--workspace", "{workspace}", "--focus", "checks"]
TOML
export SPAR_CONFIG="$work/spar.toml"
run cat "$SPAR_CONFIG"
run cat .jaekit/spar.toml
run spar doctor

say "Round 1: the reviewers attack the change"
run spar run --stage code --base base --head change --criteria docs/criteria.md --out reviews/login-link/code-1
run sed -n '/^| id /,/^$/p' reviews/login-link/code-1/summary.md
printf '(summary.md has the whole report: why each class, the smallest fixes, each reviewer)\n'

say "The gate blocks: each reason says what clears it"
run_to /dev/null spar gate reviews/login-link/code-1
run spar status reviews/login-link

say "Fix the change: constant-time comparison, a check for it, and a test that can fail"
cp -R "$here/fix/." "$repo/"
# git add -A: the fix brings a new file (checks/secrets_test.go), which
# commit -a would leave out of the commit the triage cites.
run git add -A
run git commit -q -m 'compare tokens in constant time; the expiry test asserts'
run git tag fix

say "Triage: each defect is fixed by that commit, with the check that proves it"
# --check: spar runs the test itself, offline in its sandbox, on the
# reviewed head with the fix's new test (it must fail) and on the fix (it
# must pass), and records both outputs with the line.
run_to /dev/null spar triage reviews/login-link/code-1 rules-F1 --as fixed --commit fix \
	--check 'go test -count=1 -run TestTokensComparedInConstantTime ./checks'
run sed -n '1,3p' reviews/login-link/code-1/.checks/rules-F1-1/before-1.txt
run_to /dev/null spar triage reviews/login-link/code-1 checks-F1 --as fixed --commit fix \
	--failed-before 'mutation check failed: TestLinkExpires passed with the expiry check removed from Verify' \
	--passed-after 'mutation check passes: TestLinkExpires fails when Verify accepts a 16-minute-old link'

say "Round 2: the fix is reviewed too (the gate checks the latest head)"
run spar run --stage code --base base --head fix --criteria docs/criteria.md --out reviews/login-link/code-2

say "The gate passes; the findings go to code hosts as SARIF"
run_to /dev/null spar gate reviews/login-link/code-1 reviews/login-link/code-2 --expect-head fix \
	--out reviews/login-link-gate.json --sarif reviews/login-link.sarif
run spar status reviews/login-link

if [ -n "${SPAR_DEMO_KEEP:-}" ]; then
	printf '\nThe demo is kept in %s.\n' "$work"
else
	printf '\nThe demo ran in %s and is removed now (SPAR_DEMO_KEEP=1 keeps it).\n' "$work"
fi
