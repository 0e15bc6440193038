# Shared by the fake reviewer CLIs (claude, codex, agy) of spar's tests.
# They print event streams in each CLI's format; the scenario comes from
# FAKE_<CLI> (FAKE_CLAUDE, FAKE_CODEX, FAKE_AGY), else FAKE_SCENARIO, else
# "completed":
#
#   completed  a result with one finding          invalid   a result that is not a valid result
#   exit       exits 3 with a message on stderr   ratelimit quota refusal unless the model is
#   auth       authentication refusal                       $FAKE_OK_MODEL (default fallback-model)
#   tool       uses a forbidden tool              shell     (agy) a shell line that breaks G11
#   hang       starts a grandchild and sleeps     noterm    like hang, ignoring SIGTERM
#   nomodel    completed, no model stated         huge      70 MB on stdout
#   badversion --version exits 2              loggedout (claude, codex) the login status
#                                                       command says not logged in
#   (claude also: retry429, retry401, badschema, unknownmodel; testdata/fake/claude
#   replays streams recorded from the real CLI: see its header)
#
# FAKE_SLEEP=N sleeps N seconds before printing; FAKE_HEAD is reviewed_head
# (default 0000000; FAKE_HEAD_FILE names a file holding it); FAKE_RESULT_FILE replaces the result; FAKE_LOG, when
# set, names files FAKE_LOG.<cli> that get one line per argument, then
# "stdin:" and the stdin text (claude, codex); FAKE_PIDFILE
# gets the grandchild's process ID (hang, noterm).

fake_init() {
	cli=$1
	shift
	eval "scenario=\${FAKE_$(printf %s "$cli" | tr a-z A-Z):-\${FAKE_SCENARIO:-completed}}"
	if [ "${1:-}" = "--version" ]; then
		[ "$scenario" = badversion ] && { echo "$cli: cannot read its own version" >&2; exit 2; }
		case $cli in
		claude) echo "2.1.3 (Claude Code)" ;;
		codex) echo "codex-cli 0.169.0" ;;
		agy) echo "agy 1.4.0" ;;
		esac
		exit 0
	fi
	# The login status commands spar doctor and spar run ask (claude 2.1.328
	# `auth status`, codex 0.169.0 `login status`, in their real output's
	# form): logged in, or not with FAKE_<CLI>=loggedout.
	case $cli:${1:-}:${2:-} in
	claude:auth:status)
		if [ "$scenario" = loggedout ]; then
			printf '{\n  "loggedIn": false,\n  "authMethod": "none",\n  "apiProvider": "firstParty"\n}\n'
			exit 1
		fi
		printf '{\n  "loggedIn": true,\n  "authMethod": "api_key",\n  "apiProvider": "firstParty"\n}\n'
		exit 0
		;;
	codex:login:status)
		if [ "$scenario" = loggedout ]; then
			echo 'Not logged in'
			exit 1
		fi
		echo 'Logged in using an API key - sk-fake***'
		exit 0
		;;
	esac
	# A run while logged out is refused for authentication, as the real
	# CLIs refuse it.
	[ "$scenario" = loggedout ] && scenario=auth
	model=
	prev=
	for a in "$@"; do
		case $prev in --model|-m) model=$a ;; esac
		prev=$a
	done
	if [ -n "${FAKE_LOG:-}" ]; then
		for a in "$@"; do printf '%s\n' "$a"; done >>"$FAKE_LOG.$cli"
	fi
	if [ "$cli" != agy ]; then
		if [ -n "${FAKE_LOG:-}" ]; then
			printf 'stdin:\n' >>"$FAKE_LOG.$cli"
			cat >>"$FAKE_LOG.$cli"
		else
			cat >/dev/null
		fi
	fi
	if [ -n "${FAKE_HEAD_FILE:-}" ]; then FAKE_HEAD=$(cat "$FAKE_HEAD_FILE"); fi
	if [ "$scenario" = ratelimit ] || [ "$scenario" = retry429 ]; then
		if [ "$model" = "${FAKE_OK_MODEL:-fallback-model}" ]; then scenario=completed; fi
	fi
	[ -n "${FAKE_SLEEP:-}" ] && sleep "$FAKE_SLEEP"
	case $scenario in
	hang|noterm)
		[ "$scenario" = noterm ] && trap '' TERM
		sleep 300 &
		[ -n "${FAKE_PIDFILE:-}" ] && echo $! >"$FAKE_PIDFILE"
		sleep 300
		exit 0
		;;
	huge)
		yes '{"type":"noise","text":"0123456789012345678901234567890123456789"}' | head -c 70000000
		exit 0
		;;
	esac
	result=$(fake_result)
}

# fake_result prints the result object on one line.
fake_result() {
	if [ -n "${FAKE_RESULT_FILE:-}" ]; then
		tr -d '\n' <"$FAKE_RESULT_FILE"
		return
	fi
	if [ "$scenario" = invalid ]; then
		printf '{"reviewed_head":"%s","verdict":"maybe","findings":"none"}' "${FAKE_HEAD:-0000000}"
		return
	fi
	printf '{"reviewed_head":"%s","verdict":"blocking_findings",' "${FAKE_HEAD:-0000000}"
	printf '"angles_checked":[{"angle":"requirement-counterexample","result":"checked"},{"angle":"side-effects","result":"checked"},{"angle":"design","result":"checked"},{"angle":"premises","result":"checked"},{"angle":"check-validity","result":"checked"}],"angles_unchecked":[],'
	printf '"findings":[{"id":"1","proposed_class":"defect","angle":"side-effects","location":"head/app/main.go:3","claim":"greet drops the name","failure_scenario":"greet(\\"x\\") returns \\"hello\\"","evidence":"line 3","link_kind":"none","link":"","introduced_by_change":"yes","regression":"yes","check_impact":"none","confidence":"high"}],'
	printf '"limits":""}'
}

# json_string prints $1 as a JSON string.
json_string() {
	printf '"%s"' "$(printf %s "$1" | sed 's/\\/\\\\/g; s/"/\\"/g')"
}

# say prints its arguments and a newline, backslashes untouched (dash's echo
# would read them as escapes).
say() { printf '%s\n' "$*"; }
