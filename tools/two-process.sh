#!/usr/bin/env bash
# Two (and more) ofj processes on one OFJ_HOME, ROUNDS times (RELIABILITY.md "Two processes on
# one database"). Each round, on a fresh data folder, starts at once: two `ofj ask --yes --thread T`
# on the same thread (offline assistant, an approved write each), two `ofj log` and one `ofj day`.
# Checks per round:
# - every process exits 0, or (only the asks on T) 1 with exactly the one-line busy message;
# - no stderr mentions SQLite, SQLITE_BUSY or "database is locked";
# - stored user messages on T = asks that succeeded + 1; no run on T was suspended or cancelled
#   (which would mean one process interfered with the other's run); every run completed;
# - journal rows = 2 logs + one per successful ask; committed ledger rows = successful asks;
# - PRAGMA integrity_check is ok.
# Usage: tools/two-process.sh [ROUNDS=100] [OFJ_BINARY]
set -uo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-100}
OFJ=$(realpath "${2:-.build/debug/ofj}")
[ -x "$OFJ" ] || { echo "build first: swift build"; exit 1; }
work=$(mktemp -d /tmp/ofj-two.XXXXXX)
trap 'rm -rf "$work"' EXIT
busy="ofj: This thread is still answering; wait for it to finish, or stop it (Ctrl-C) and try again."
failed=0 refused=0 both=0
for round in $(seq 1 "$ROUNDS"); do
  h=$work/r$round
  export OFJ_HOME=$h/data HOME=$h XDG_CONFIG_HOME=$h/config XDG_STATE_HOME=$h/state OFJ_PROVIDER=offline LANG=C.UTF-8
  "$OFJ" ask "what did I eat today" > /dev/null 2>&1
  db=$OFJ_HOME/ofj.sqlite
  t=$(sqlite3 "$db" "SELECT id FROM agent_threads LIMIT 1")
  for i in 1 2; do ("$OFJ" ask --yes --thread "$t" "log 2 eggs for breakfast" > "$h/ask$i.out" 2> "$h/ask$i.err"; echo $? > "$h/ask$i.rc") & done
  for i in 1 2; do ("$OFJ" log "Food $i" --kcal 100 > "$h/log$i.out" 2> "$h/log$i.err"; echo $? > "$h/log$i.rc") & done
  ("$OFJ" day > "$h/day.out" 2> "$h/day.err"; echo $? > "$h/day.rc") &
  wait
  problems=()
  ok_asks=0
  for i in 1 2; do
    rc=$(cat "$h/ask$i.rc")
    if [ "$rc" = 0 ]; then ok_asks=$((ok_asks + 1))
    elif [ "$rc" = 1 ] && [ "$(cat "$h/ask$i.err")" = "$busy" ]; then refused=$((refused + 1))
    else problems+=("ask$i exit $rc: $(head -c 200 "$h/ask$i.err")"); fi
  done
  [ "$ok_asks" = 2 ] && both=$((both + 1))
  for p in log1 log2 day; do [ "$(cat "$h/$p.rc")" = 0 ] || problems+=("$p exit $(cat "$h/$p.rc"): $(head -c 200 "$h/$p.err")"); done
  grep -l -i -E "sqlite|database is locked" "$h"/*.err > /dev/null 2>&1 && problems+=("raw SQLite error: $(cat "$h"/*.err | head -c 300)")
  users=$(sqlite3 "$db" "SELECT count(*) FROM agent_messages WHERE thread_id = '$t' AND role = 'user'")
  [ "$users" = $((ok_asks + 1)) ] || problems+=("user messages $users, expected $((ok_asks + 1))")
  bad_runs=$(sqlite3 "$db" "SELECT count(*) FROM agent_runs WHERE thread_id = '$t' AND phase <> 'completed'")
  [ "$bad_runs" = 0 ] || problems+=("$bad_runs run(s) not completed: $(sqlite3 "$db" "SELECT phase || ' ' || coalesce(error_class, '') FROM agent_runs WHERE thread_id = '$t'" | tr '\n' ';')")
  entries=$(sqlite3 "$db" "SELECT count(*) FROM journal_entries")
  [ "$entries" = $((2 + ok_asks)) ] || problems+=("journal rows $entries, expected $((2 + ok_asks))")
  ledger=$(sqlite3 "$db" "SELECT count(*) FROM agent_ledger WHERE outcome = 'committed'")
  [ "$ledger" = "$ok_asks" ] || problems+=("committed ledger rows $ledger, expected $ok_asks")
  [ "$(sqlite3 "$db" "PRAGMA integrity_check")" = ok ] || problems+=("integrity_check failed")
  if [ ${#problems[@]} -gt 0 ]; then
    failed=$((failed + 1))
    echo "round $round FAILED:"; printf '  %s\n' "${problems[@]}"
  fi
  rm -rf "$h"
done
echo "two processes: $ROUNDS rounds, $failed failed; second ask refused as busy in $refused, both asks ran one after the other in $both"
[ "$failed" -eq 0 ]
