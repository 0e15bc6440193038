#!/bin/sh
# make demo: spar on the bundled example repository (testdata/demo/base).
# Until the later stages land this shows what exists: `spar config` on the
# example, with a user configuration of its own so that yours is not read.
# Every command is printed before it runs.
set -eu

here=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/spar-demo.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

run() {
	printf '$ %s\n' "$*"
	"$@"
}

repo=$work/example
mkdir -p "$repo"
cp -R "$here/base/." "$repo/"

# A git repository with one commit, isolated from the user's git settings.
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_AUTHOR_NAME='spar demo' GIT_AUTHOR_EMAIL='demo@example.invalid'
export GIT_COMMITTER_NAME='spar demo' GIT_COMMITTER_EMAIL='demo@example.invalid'
run git -C "$repo" init -q
run git -C "$repo" add -A
run git -C "$repo" commit -q -m 'example: base'

# The demo's own user configuration (spar-config.en.md §1, source 1).
cat >"$work/spar.toml" <<'TOML'
timeout_seconds = 600

[[reviewers]]
preset = "claude"
allowed_models = ["opus", "sonnet"]

[[reviewers]]
name = "native"
preset = "native"
TOML
export SPAR_CONFIG="$work/spar.toml"
unset CLEAN_REVIEW_CONFIG 2>/dev/null || true
printf '$ cat %s\n' "$SPAR_CONFIG"
cat "$SPAR_CONFIG"

run spar config --repo "$repo"
run spar config --repo "$repo" --reviewers native
run spar config --repo "$repo" --model claude=sonnet --effort claude=medium
