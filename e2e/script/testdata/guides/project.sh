#!/bin/sh
# project.sh STEP DIR: the guides' example repository (a login-link feature,
# docs/usage.md) in DIR, one step at a time. It is the demo's project
# (testdata/demo: base, change, fix) without its .jaekit/spar.toml, which the
# guides write themselves.
#   base    DIR becomes a git repository whose branch main holds project/base
#   change  the branch login-link, with project/change committed on it
#   fix     project/fix copied over the working tree (not committed)
set -eu
here=$(CDPATH= cd -- "$(dirname -- "$0")/../../../../testdata/demo" && pwd)
[ $# -eq 2 ] || { echo "usage: project.sh base|change|fix DIR" >&2; exit 2; }
dir=$2
case $1 in
base)
	mkdir -p "$dir"
	cp -R "$here/base/." "$dir/"
	rm -rf "$dir/.jaekit"
	cd "$dir"
	git init -q
	git symbolic-ref HEAD refs/heads/main
	git add -A
	git commit -q -m 'login links: one use, constant-time compare'
	;;
change)
	cd "$dir"
	git checkout -q -b login-link
	cp -R "$here/change/." .
	git add -A
	git commit -q -m 'login links expire after 15 minutes (AC-2)'
	;;
fix)
	cp -R "$here/fix/." "$dir/"
	;;
*)
	echo "usage: project.sh base|change|fix DIR" >&2
	exit 2
	;;
esac
