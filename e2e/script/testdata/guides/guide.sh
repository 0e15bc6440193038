#!/bin/sh
# guide.sh: the commands of the guides (docs/usage.md, docs/pipeline.md
# section 11), run by the testscript scripts beside this file so that the
# guides cannot rot. A guide marks each code block it shows with an HTML
# comment on the line right before the fence:
#
#   <!-- guide: NAME -->
#   ```sh
#   spar run ...
#   ```
#
#   guide.sh show DOC NAME         print the block NAME of DOC
#   guide.sh run DOC NAME          run it with `sh -eu` in the current folder;
#                                  the exit status is the block's
#   guide.sh check DOC FROM DIR    every sh, toml and make block of DOC from
#                                  the line FROM on ("" for the whole file) is
#                                  marked, each NAME once, and every NAME is
#                                  shown or run by a script in DIR
#
# POSIX sh and awk only.
set -eu

usage() {
	sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

# block DOC NAME: the lines between the fences after the marker NAME.
block() {
	awk -v name="$2" '
		BEGIN { want = "<!-- guide: " name " -->" }
		inside && /^```/ { found = 1; exit }
		inside { print; next }
		armed && /^```/ { inside = 1; next }
		{ armed = ($0 == want) }
		END { if (!found) exit 1 }
	' "$1" || {
		printf 'guide.sh: %s has no block "%s"\n' "$1" "$2" >&2
		exit 1
	}
}

[ $# -ge 1 ] || usage
cmd=$1
shift
case $cmd in
show)
	[ $# -eq 2 ] || usage
	block "$1" "$2"
	;;
run)
	[ $# -eq 2 ] || usage
	text=$(block "$1" "$2")
	exec sh -eu -c "$text"
	;;
check)
	[ $# -eq 3 ] || usage
	doc=$1 from=$2 dir=$3
	base=$(basename -- "$doc")
	# Every shown or run NAME of this guide in the scripts.
	# A script names the guide by a path ending in /DOC, or by a variable
	# it set to one (`env NAME=…/DOC`, then $NAME).
	used=$(awk -v doc="$base" '
		FNR == 1 { split("", alias) }
		$1 == "env" && index($2, "=") {
			v = $2; n = substr(v, 1, index(v, "=") - 1); v = substr(v, index(v, "=") + 1)
			if (v ~ ("/" doc "$")) alias["$" n] = 1
		}
		{ for (i = 1; i < NF; i++) if (($i == "show" || $i == "run") && ($(i + 1) ~ ("/" doc "$") || ($(i + 1) in alias))) print $(i + 2) }
	' "$dir"/*.txtar | sort -u)
	GUIDE_USED=$used awk -v from="$from" -v doc="$doc" '
		BEGIN {
			on = (from == "")
			n = split(ENVIRON["GUIDE_USED"], u, "\n")
			for (i = 1; i <= n; i++) if (u[i] != "") isused[u[i]] = 1
		}
		!on && $0 == from { on = 1 }
		!on { next }
		fence && /^```/ { fence = 0; prev = ""; next }
		fence { next }
		/^```/ {
			fence = 1
			lang = substr($0, 4)
			if (lang == "sh" || lang == "toml" || lang == "make") {
				if (prev !~ /^<!-- guide: [^ ]+ -->$/) {
					printf "%s:%d: a ```%s block without <!-- guide: NAME --> before it\n", doc, NR, lang; bad = 1
				} else {
					name = prev; sub(/^<!-- guide: /, "", name); sub(/ -->$/, "", name)
					if (name in seen) { printf "%s:%d: block %s marked twice\n", doc, NR, name; bad = 1 }
					seen[name] = 1
					if (!(name in isused)) { printf "%s:%d: block %s is run by no script\n", doc, NR, name; bad = 1 }
				}
			}
			next
		}
		{ prev = $0 }
		END {
			if (!on) { printf "%s: no line %s\n", doc, from; bad = 1 }
			for (k in isused) if (!(k in seen)) { printf "%s: the scripts run a block %s that it does not have\n", doc, k; bad = 1 }
			exit bad
		}
	' "$doc"
	;;
*) usage ;;
esac
