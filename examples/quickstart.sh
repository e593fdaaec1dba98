#!/usr/bin/env bash
# The whole flow against a running Mindprint, in curl: find or create a mind, upload a transcript,
# wait until it is processed, read the profile, ask a question. A mind of that name that exists
# already (the README's curl steps make one) is reused, so the flow makes no second "Barack Obama"
# for `mindprint upload --mind` to find ambiguous; each run adds a snapshot to it.
#
#   KEY=mp_… examples/quickstart.sh [transcript] [mind name] [question] [mindset date]
#
# Without arguments: the first half hour of the first 2012 presidential debate
# (debate-2012-10-03.txt, speakers named `Name: text`), the mind "Barack Obama", a question on taxes.
#
# MINDPRINT_URL (default http://127.0.0.1:3000) is the server, KEY (or MINDPRINT_API_KEY) an API
# key. JSON is read with node, which every machine running Mindprint has.
set -euo pipefail

FILE=${1:-$(dirname "$0")/debate-2012-10-03.txt}
NAME=${2:-Barack Obama}
QUESTION=${3:-What would you do about taxes?}
DATE=${4:-$([ $# -eq 0 ] && echo 2012-10-03)}
KEY=${KEY:-${MINDPRINT_API_KEY:-}}
API="${MINDPRINT_URL:-http://127.0.0.1:3000}/api/svc"
[ -n "$KEY" ] || { echo "Set KEY to an API key (the one the first start printed, or: mindprint keys create)" >&2; exit 2; }
command -v curl >/dev/null || { echo "curl is needed" >&2; exit 2; }

# `json EXPR`: evaluates EXPR on the JSON document read from stdin (as `v`).
# No input (the request failed and said so already): exit 1 quietly rather than a JSON.parse trace.
json() { node -e 'const s = require("fs").readFileSync(0, "utf8"); if (!s.trim()) process.exit(1); const v = JSON.parse(s); const r = eval(process.argv[1]); console.log(typeof r === "string" ? r : JSON.stringify(r, null, 2))' "$1"; }
# `call METHOD PATH [curl args…]`: the API with the key; an error answer stops the script with its message.
call() {
  local method=$1 path=$2 out
  shift 2
  out=$(curl -sS -X "$method" "$API$path" -H "Authorization: Bearer $KEY" -w '\n%{http_code}' "$@")
  local status=${out##*$'\n'} body=${out%$'\n'*}
  if [ "$status" -ge 400 ]; then echo "$method $path: $status $body" >&2; exit 1; fi
  printf '%s' "$body"
}
NAME_JSON=$(node -p 'JSON.stringify(process.argv[1])' "$NAME")
QUESTION_JSON=$(node -p 'JSON.stringify(process.argv[1])' "$QUESTION")

# The oldest mind named exactly so (search answers best match first, in no set order among equals), else a new one.
MIND=$(call GET /minds/search -G --data-urlencode "query=$NAME" --data-urlencode limit=200 | json "v.minds.filter((m) => m.name === $NAME_JSON).sort((a, b) => String(a.createdAt).localeCompare(String(b.createdAt)))[0]?.id ?? ''")
if [ -n "$MIND" ]; then
  echo "mind: $NAME ($MIND), which exists already"
else
  MIND=$(call POST /minds -H 'content-type: application/json' -d "{\"name\":$NAME_JSON}" | json v.mind.id)
  echo "mind: $NAME ($MIND), created"
fi

SNAPSHOT=$(call POST "/minds/$MIND/snapshots" -F "file=@$FILE" ${DATE:+-F "mindsetDate=$DATE"} | json v.mindAssessmentId)
echo "snapshot: $SNAPSHOT, uploaded $FILE"

for _ in $(seq 1 120); do
  STATUS=$(call GET "/minds/$MIND/snapshots/$SNAPSHOT/status" | json v.status)
  case $STATUS in completed | failed) break ;; esac
  sleep 1
done
echo "status: $STATUS"
if [ "$STATUS" != completed ]; then call GET "/minds/$MIND/snapshots/$SNAPSHOT/status" | json v.error >&2; exit 1; fi
call GET "/minds/$MIND/snapshots/$SNAPSHOT" | json '`the mind is "${v.mindSpeaker}" (${v.attribution}); speakers: ${v.speakers.map((s) => `${s.label} ${s.words} words`).join(", ")}`'

echo "Big Five:"
call GET "/minds/$MIND/profile" | json 'v.profile.traits.filter((t) => t.instrument === "big_five").map((t) => `  ${t.name.padEnd(18)} ${t.score?.toFixed(2)} (confidence ${t.confidence.toFixed(2)})`).join("\n")'

echo "Q: $QUESTION"
ANSWER=$(call POST /simulate -H 'content-type: application/json' -d "{\"mindId\":\"$MIND\",\"scenario\":{\"message\":$QUESTION_JSON}}")
echo "A: $(printf '%s' "$ANSWER" | json v.message)"
printf '%s' "$ANSWER" | json '`(resting on ${v.evidence.length} quotes; simulation ${v.simulationId})`'
