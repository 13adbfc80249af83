#!/usr/bin/env bash
# A thread with N (default 100,000) messages, used as a person would: `ofj ask --thread` with the
# offline assistant and with a loopback OpenAI-compatible server (tools/bench/fake_openai.py),
# `ofj --resume` in the REPL with /threads, /threads QUERY, /search, /context, one message and /retry, exports,
# and /delete. Prints wall time and peak RSS of each step and what the fake server received, and
# fails when a step fails or the request sent exceeds the context budget.
#
# The thread is made from real turns: one offline turn (user, tool calls, tool results, answer)
# and one turn through the fake server, then those messages are copied in one SQL transaction
# (call ids made unique per copy) until the thread holds N messages.
#
# Usage: tools/big-thread.sh [N] [OFJ_BINARY]   (default .build/debug/ofj; build first)
set -uo pipefail
cd "$(dirname "$0")/.."
N=${1:-100000}
OFJ=$(realpath "${2:-.build/debug/ofj}")
[ -x "$OFJ" ] || { echo "build first: swift build"; exit 1; }
work=$(mktemp -d /tmp/ofj-big.XXXXXX)
server_pid=
cleanup() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
export OFJ_HOME=$work/data HOME=$work XDG_CONFIG_HOME=$work/config XDG_STATE_HOME=$work/state LANG=C.UTF-8 NO_COLOR=1
export OFJ_PROVIDER=offline
db=$OFJ_HOME/ofj.sqlite
fail=0

python3 tools/bench/fake_openai.py > "$work/port" &
server_pid=$!
for _ in $(seq 50); do [ -s "$work/port" ] && break; sleep 0.1; done
port=$(head -1 "$work/port")
fake=(env OFJ_PROVIDER=openai OFJ_MODEL=gpt-4o-mini OPENAI_BASE_URL="http://127.0.0.1:$port/v1" OPENAI_API_KEY=sk-big-thread-not-a-key)

# step NAME CMD...: runs CMD under /usr/bin/time, prints seconds and peak RSS; stdout in $work/NAME.out
step() {
  local name=$1; shift
  /usr/bin/time -f "%e %M" -o "$work/$name.time" "$@" > "$work/$name.out" 2> "$work/$name.err" < "${STEP_INPUT:-/dev/null}"
  local rc=$?
  read -r secs rss < <(tail -1 "$work/$name.time")
  printf '%-28s exit %s  %6.2f s  peak RSS %7d kB\n' "$name" "$rc" "$secs" "$rss"
  if [ "$rc" -ne 0 ] && [ "${ALLOW_FAIL:-}" != 1 ]; then echo "  FAILED: $(head -c 400 "$work/$name.err")"; fail=1; fi
}

"$OFJ" ask "what did I eat today" > /dev/null || { echo "first turn failed"; exit 1; }
thread=$(sqlite3 "$db" "SELECT id FROM agent_threads LIMIT 1")
"${fake[@]}" "$OFJ" ask --thread "$thread" "How am I doing today?" > /dev/null || { echo "fake-provider turn failed"; exit 1; }
t0=$(date +%s.%N)
sqlite3 "$db" <<SQL
BEGIN;
CREATE TEMP TABLE tmpl AS SELECT row_number() OVER (ORDER BY seq) - 1 AS r, id, role, run_id, turn, created_at
  FROM agent_messages WHERE thread_id = '$thread';
CREATE TEMP TABLE k AS WITH RECURSIVE k(i) AS (SELECT (SELECT count(*) FROM tmpl) + 1 UNION ALL SELECT i + 1 FROM k WHERE i < $N)
  SELECT i FROM k;
INSERT INTO agent_messages (thread_id, seq, run_id, role, turn, state, created_at)
SELECT '$thread', k.i, t.run_id, t.role, t.turn, 'complete', t.created_at
  FROM k JOIN tmpl t ON t.r = (k.i - 1) % (SELECT count(*) FROM tmpl);
INSERT INTO agent_message_parts (message_id, ordinal, kind, body, call_id, name, is_error, provider, subkind)
SELECT m.id, p.ordinal, p.kind, p.body, CASE WHEN p.call_id IS NULL THEN NULL ELSE p.call_id || '-' || m.seq END,
       p.name, p.is_error, p.provider, p.subkind
  FROM agent_messages m
  JOIN tmpl t ON t.r = (m.seq - 1) % (SELECT count(*) FROM tmpl)
  JOIN agent_message_parts p ON p.message_id = t.id
 WHERE m.thread_id = '$thread' AND m.seq > (SELECT count(*) FROM tmpl);
-- The full-text index, as ofj's store writes it for each text part (see docs/ARCHITECTURE.md).
INSERT INTO agent_messages_fts (rowid, body, thread_id, at)
SELECT p.message_id * 4096 + p.ordinal, p.body, m.thread_id, m.created_at
  FROM agent_messages m JOIN agent_message_parts p ON p.message_id = m.id
 WHERE m.thread_id = '$thread' AND m.seq > (SELECT count(*) FROM tmpl)
   AND p.kind = 'text' AND p.ordinal < 4096 AND m.role IN ('user', 'assistant');
COMMIT;
SQL
printf 'generated: %s messages, %s parts in %.1f s; database %s MB\n' \
  "$(sqlite3 "$db" "SELECT count(*) FROM agent_messages WHERE thread_id = '$thread'")" \
  "$(sqlite3 "$db" "SELECT count(*) FROM agent_message_parts")" "$(echo "$(date +%s.%N) - $t0" | bc)" \
  "$(( $(stat -c %s "$db") / 1048576 ))"

# A copy for the summarising provider: it compacts the untouched thread (the offline assistant
# cannot summarise, so on the original the first turn prunes instead).
cp -r "$OFJ_HOME" "$work/data-fake"

# Opening the untouched thread: start-up and /context (which plans the next request).
printf '/context\n/exit\n' > "$work/open.in"
STEP_INPUT=$work/open.in step repl-open-uncompacted "$OFJ" --resume
grep "^Context:" "$work/repl-open-uncompacted.out" | head -1 | sed 's/^/  /'

step ask-offline "$OFJ" ask --thread "$thread" "what did I eat today"
grep -q "nothing\|Nothing\|logged\|kcal" "$work/ask-offline.out" || { echo "  unexpected answer: $(head -c 300 "$work/ask-offline.out")"; fail=1; }

echo "  checkpoints: $(sqlite3 "$db" "SELECT kind || ' #' || from_seq || '-#' || to_seq FROM agent_checkpoints WHERE thread_id = '$thread'" | tr '\n' ' ')"

before=$(curl -s "http://127.0.0.1:$port/__stats" | python3 -c "import json,sys; print(json.load(sys.stdin)['requests'])")
step ask-fake-provider "${fake[@]}" OFJ_HOME="$work/data-fake" "$OFJ" ask --thread "$thread" "How am I doing today?"
stats=$(curl -s "http://127.0.0.1:$port/__stats")
echo "  fake server: $stats (requests before: $before)"
echo "  checkpoints: $(sqlite3 "$work/data-fake/ofj.sqlite" "SELECT kind || ' #' || from_seq || '-#' || to_seq FROM agent_checkpoints WHERE thread_id = '$thread'" | tr '\n' ' ')"
sent_bytes=$(python3 -c "import json,sys; print(json.loads(sys.argv[1])['max_request_bytes'])" "$stats")
# gpt-4o-mini: 128k window; the default budget is the smaller of 200k and the window. Bytes/4
# over-estimates tokens for JSON; the request must stay under 4 bytes per token of the window.
if [ "$sent_bytes" -gt $((128000 * 4)) ]; then echo "  request of $sent_bytes bytes exceeds the 128k-token window"; fail=1; fi

step ask-fake-again "${fake[@]}" OFJ_HOME="$work/data-fake" "$OFJ" ask --thread "$thread" "And protein?"
echo "  fake server: $(curl -s "http://127.0.0.1:$port/__stats")"

printf '/threads\n/threads eat today\n/context\nwhat did I eat today\n/retry\n/exit\n' > "$work/repl.in"
STEP_INPUT=$work/repl.in step repl-resume "$OFJ" --resume
grep -q "Answering again: what did I eat" "$work/repl-resume.out" || { echo "  REPL output unexpected: $(head -c 600 "$work/repl-resume.out")"; fail=1; }
grep "^Context:" "$work/repl-resume.out" | head -1 | sed 's/^/  /'

printf '/threads no-such-words-anywhere\n/exit\n' > "$work/search.in"
STEP_INPUT=$work/search.in step threads-search-miss "$OFJ" --resume

step search-cli "$OFJ" search what did I eat
grep -q "^1\. " "$work/search-cli.out" || { echo "  ofj search found nothing: $(head -c 300 "$work/search-cli.out")"; fail=1; }
printf '/search eat today\n/open 1\n/exit\n' > "$work/search-repl.in"
STEP_INPUT=$work/search-repl.in step search-repl "$OFJ" --resume
grep -q "Opened" "$work/search-repl.out" || { echo "  /search then /open 1 failed: $(head -c 300 "$work/search-repl.out")"; fail=1; }
step threads-export "$OFJ" threads export "$thread" --format md -o "$work/thread.md"

step backup-export "$OFJ" backup export -o "$work/backup.json"
step csv-export "$OFJ" export csv -o "$work/entries.csv"
step diag-status "$OFJ" diag status

printf '/delete %s\ny\n/exit\n' "$thread" > "$work/delete.in"
STEP_INPUT=$work/delete.in step repl-delete "$OFJ"
echo "  messages left: $(sqlite3 "$db" "SELECT count(*) FROM agent_messages"), parts left: $(sqlite3 "$db" "SELECT count(*) FROM agent_message_parts")"
[ "$(sqlite3 "$db" "PRAGMA integrity_check")" = ok ] || { echo "integrity_check failed"; fail=1; }

[ "$fail" -eq 0 ] && echo "big thread: all steps passed" || echo "big thread: FAILED"
exit "$fail"
