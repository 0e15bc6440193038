# config_both.sh CODE [ARGS...]: the two consumers of the configuration rows
# (G16-G25: "spar config, spar run") given the same
# configuration and arguments must give the same result.
#
# Runs `spar config ARGS` and `spar run --stage code --base base --head head
# --out $WORK/reviews/s/code-1 ARGS --dry-run` inside $WORK/repo. Both must
# exit CODE. For 0, round.json keeps the record spar config printed
# ($WORK/cfg.json; the script compares them with jsonsame) and the round
# folder is left for the script to read. Otherwise both stderr must be the
# same single line, spar config prints nothing, and spar run leaves no
# series folder ("no round folder is created"). spar config's stdout and
# stderr are passed on for the script to match.
set -u
want=$1
shift
rm -rf "$WORK/reviews" "$WORK/cfg.json"
cd "$WORK/repo" || exit 2
spar config "$@" >"$WORK/cfg.json" 2>"$WORK/cfg.err"
c1=$?
spar run --stage code --base base --head head --out "$WORK/reviews/s/code-1" "$@" --dry-run >"$WORK/run.out" 2>"$WORK/run.err"
c2=$?
cat "$WORK/cfg.json"
cat "$WORK/cfg.err" >&2
fail() { echo "config_both: $*" >&2; echo "spar run stderr:" >&2; cat "$WORK/run.err" >&2; exit 1; }
[ "$c1" = "$want" ] || fail "spar config exit $c1, want $want"
[ "$c2" = "$want" ] || fail "spar run exit $c2, want $want"
if [ "$want" = 0 ]; then
	[ -f "$WORK/reviews/s/code-1/round.json" ] || fail "spar run wrote no round.json"
	exit 0
fi
[ -s "$WORK/cfg.json" ] && fail "spar config printed a record though it failed"
[ -e "$WORK/reviews" ] && fail "spar run left $WORK/reviews"
# The same message; each command speaks as itself ("spar config: …",
# "spar run: …"; a configuration file's "<file>:<line>: …" as it is).
sed 's/^spar config: //' "$WORK/cfg.err" >"$WORK/cfg.msg"
sed 's/^spar run: //' "$WORK/run.err" >"$WORK/run.msg"
cmp -s "$WORK/cfg.msg" "$WORK/run.msg" || fail "stderr differs: spar config said $(cat "$WORK/cfg.err")"
[ "$(wc -l <"$WORK/cfg.err")" = 1 ] || fail "want one stderr line"
exit 0
