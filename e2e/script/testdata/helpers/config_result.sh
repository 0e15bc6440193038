# config_result.sh [LOCATION [CLASS]]: a reviewer for the audit scripts (a
# command preset's argv runs it). Prints a valid result of the head commit of
# $WORK/repo: every angle checked, one finding at LOCATION (default
# head/main.go:3) proposed as CLASS (default defect), no link. When
# $AUDIT_STANDPOINT_REPORT is set, its JSON is the standpoint_report; when
# $AUDIT_ANGLES is set (a space-separated list), only those angles are in
# angles_checked; $AUDIT_LINK_KIND and $AUDIT_LINK (default none and "")
# are the finding's link_kind and link; $AUDIT_CHECK_IMPACT (default none)
# its check_impact.
set -e
head=$(git -C "$WORK/repo" rev-parse head)
loc=${1:-head/main.go:3}
class=${2:-defect}
sp=
angles='{"angle":"requirement-counterexample","result":"ok"},{"angle":"side-effects","result":"ok"},{"angle":"design","result":"ok"},{"angle":"premises","result":"ok"},{"angle":"check-validity","result":"ok"}'
if [ -n "${AUDIT_ANGLES:-}" ]; then
	angles=
	for a in $AUDIT_ANGLES; do angles="$angles${angles:+,}{\"angle\":\"$a\",\"result\":\"ok\"}"; done
fi
if [ -n "${AUDIT_STANDPOINT_REPORT:-}" ]; then sp=",\"standpoint_report\":$AUDIT_STANDPOINT_REPORT"; fi
printf '{"reviewed_head":"%s","verdict":"blocking_findings","angles_checked":[%s],"angles_unchecked":[],"findings":[{"id":"x1","proposed_class":"%s","angle":"side-effects","location":"%s","claim":"f has no body","failure_scenario":"f() does nothing","evidence":"func f() {}","link_kind":"%s","link":"%s","introduced_by_change":"yes","regression":"yes","check_impact":"%s","confidence":"high"}],"limits":""%s}\n' "$head" "$angles" "$class" "$loc" "${AUDIT_LINK_KIND:-none}" "${AUDIT_LINK:-}" "${AUDIT_CHECK_IMPACT:-none}" "$sp"
