#!/bin/sh
# reviewers.sh LIST: the spar user configuration (TOML, on stdout) of CI's
# explicit reviewers, for the GitHub Action's reviewers input
# (ci/github/action.sh; the GitLab template holds the same rule for
# SPAR_REVIEWERS, docs/usage.md §7.2). LIST is entries by commas or
# blanks, each NAME (a preset: claude, codex, agy, native) or NAME=PRESET
# (a reviewer named NAME of that preset, as the rounds name it). Each entry
# is one [[reviewers]] entry; spar's presets are required, so the gate
# requires exactly these. An entry that is neither, or no entry: a line on
# stderr, exit 1, nothing on stdout.
set -eu
printf '%s\n' "${1:-}" | tr ',\t' '  ' | tr -s ' ' '\n' | LC_ALL=C awk '
NF == 0 { next }
{
	n = $0; p = $0
	i = index($0, "=")
	if (i > 0) { n = substr($0, 1, i - 1); p = substr($0, i + 1) }
	if (n !~ /^[A-Za-z0-9][A-Za-z0-9._-]*$/ || length(n) > 64 || p !~ /^(claude|codex|agy|native)$/) {
		print "spar: reviewers: \"" $0 "\" is not NAME or NAME=PRESET with PRESET one of claude, codex, agy, native" > "/dev/stderr"
		bad = 1
		exit 1
	}
	out = out sprintf("[[reviewers]]\nname = \"%s\"\npreset = \"%s\"\n\n", n, p)
	k++
}
END {
	if (bad) exit 1
	if (k == 0) { print "spar: reviewers: no reviewer named" > "/dev/stderr"; exit 1 }
	printf "# CI'\''s reviewers (the reviewers input)\n\n%s", out
}'
