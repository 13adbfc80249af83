# Sourced by tools/bench/run.sh and tools/bench/check.sh; needs $OFJ (the ofj binary) and, for the
# one real turn, OPENAI_BASE_URL/OPENAI_API_KEY pointing at tools/bench/fake_openai.py.
# fill_thread DB THREAD N: one real turn on THREAD, then its (user, assistant) messages copied until
# the thread holds N messages. Skipped when the thread already holds N or more.
fill_thread() {
  local db=$1 thread=$2 n=$3
  [ "$(sqlite3 "$db" "SELECT count(*) FROM agent_messages WHERE thread_id = '$thread'")" -ge "$n" ] && return
  # `ask --thread` refuses an unknown id, so the thread row is made first (as ofj would make it).
  sqlite3 "$db" "INSERT OR IGNORE INTO agent_threads (id, title, created_at, updated_at) VALUES ('$thread', 'bench', strftime('%s','now'), strftime('%s','now'))"
  OFJ_HOME="$(dirname "$db")" "$OFJ" ask "How am I doing today?" --provider openai --thread "$thread" > /dev/null
  sqlite3 "$db" <<SQL
BEGIN;
CREATE TEMP TABLE tmpl AS SELECT row_number() OVER (ORDER BY seq) - 1 AS r, id, role, seq, run_id, turn, created_at
  FROM agent_messages WHERE thread_id = '$thread';
WITH RECURSIVE k(i) AS (SELECT (SELECT max(seq) FROM tmpl) + 1
                        UNION ALL SELECT i + 1 FROM k WHERE i < (SELECT min(seq) FROM tmpl) + $n - 1)
INSERT INTO agent_messages (thread_id, seq, run_id, role, turn, state, created_at)
SELECT '$thread', k.i, t.run_id, t.role, t.turn, 'complete', t.created_at
  FROM k JOIN tmpl t ON t.r = (k.i - (SELECT min(seq) FROM tmpl)) % (SELECT count(*) FROM tmpl);
INSERT INTO agent_message_parts (message_id, ordinal, kind, body, call_id, name, is_error, provider, subkind)
SELECT m.id, p.ordinal, p.kind, p.body, p.call_id, p.name, p.is_error, p.provider, p.subkind
  FROM agent_messages m
  JOIN tmpl t ON t.r = (m.seq - (SELECT min(seq) FROM tmpl)) % (SELECT count(*) FROM tmpl)
  JOIN agent_message_parts p ON p.message_id = t.id
 WHERE m.thread_id = '$thread' AND m.id NOT IN (SELECT id FROM tmpl);
COMMIT;
SQL
}
