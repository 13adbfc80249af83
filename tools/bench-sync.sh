#!/usr/bin/env bash
# Sync figures for BENCHMARKS.md against tools/turso_server.py on loopback, with the debug or
# release ofj given as OFJ (default .build/release/ofj, else .build/debug/ofj):
#  1. first sync of the generated 10-year journal (tools/bench-journal.sh makes it: ~40,000
#     entries, 3,000 foods) to an empty database — the whole `ofj sync` process;
#  2. one change: `ofj sync` after one `ofj log` (whole process), median of 7;
#  3. a pull of 1,000 changes made on another machine (whole `ofj sync`), median of 3.
# Usage: tools/bench-sync.sh [JOURNAL_DB]   (default /tmp/ofj-sync-bench-journal.sqlite)
set -euo pipefail
cd "$(dirname "$0")/.."
journal=${1:-/tmp/ofj-sync-bench-journal.sqlite}
ofj=${OFJ:-}
if [ -z "$ofj" ]; then
  if [ -x .build/release/ofj ]; then ofj=.build/release/ofj; else ofj=.build/debug/ofj; fi
fi
[ -f "$journal" ] || { echo "bench-sync: no journal at $journal; run tools/bench-journal.sh $journal first" >&2; exit 1; }
work=$(mktemp -d)
server_pid=
cleanup() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
python3 tools/turso_server.py --port 0 --quiet --db "$work/remote.sqlite" > "$work/port" &
server_pid=$!
for _ in $(seq 50); do [ -s "$work/port" ] && break; sleep 0.1; done
url="http://127.0.0.1:$(head -1 "$work/port")"
mkdir -p "$work/a" "$work/b"
cp "$journal" "$work/a/ofj.sqlite"
run() { # home, args...
  local home=$1; shift
  OFJ_HOME="$work/$home" HOME="$work" XDG_CONFIG_HOME="$work/config" OFJ_SYNC_URL="$url" TZ=UTC "$ofj" "$@"
}
ms() { date +%s%3N; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

echo "ofj: $ofj"
run a day >/dev/null   # migrates the generated file (adds the sync tables and stamps every record)
echo "records pending: $(sqlite3 "$work/a/ofj.sqlite" 'SELECT count(*) FROM sync_pending')"
t0=$(ms); run a sync; t1=$(ms)
echo "first sync (push) of the whole journal: $((t1 - t0)) ms"
t0=$(ms); run b sync; t1=$(ms)
echo "first sync (pull) of the whole journal on a new machine: $((t1 - t0)) ms"

for i in $(seq 7); do
  # Logged with sync unset (one-shot commands push at exit otherwise), then timed as `ofj sync`.
  OFJ_SYNC_URL= OFJ_HOME="$work/a" HOME="$work" XDG_CONFIG_HOME="$work/config" TZ=UTC "$ofj" log "bench change $i" --kcal 100 >/dev/null
  t0=$(ms); run a sync >/dev/null; t1=$(ms)
  echo $((t1 - t0))
done | median | sed 's/^/one change, whole ofj sync process (median of 7): /; s/$/ ms/'

for i in $(seq 3); do
  sqlite3 "$work/a/ofj.sqlite" "UPDATE journal_entries SET servings = servings + 1 WHERE seq IN (SELECT seq FROM journal_entries ORDER BY seq LIMIT 1000 OFFSET $((i * 1000)))"
  run a sync >/dev/null
  t0=$(ms); out=$(run b sync); t1=$(ms)
  echo "$((t1 - t0)) $out" >&2
  echo $((t1 - t0))
done | median | sed 's/^/pull of 1,000 changes, whole ofj sync process (median of 3): /; s/$/ ms/'

a=$(sqlite3 "$work/a/ofj.sqlite" 'SELECT count(*), total(servings) FROM journal_entries')
b=$(sqlite3 "$work/b/ofj.sqlite" 'SELECT count(*), total(servings) FROM journal_entries')
echo "entries (count, total servings): a=$a b=$b"
[ "$a" = "$b" ] || { echo "bench-sync: the two machines differ" >&2; exit 1; }
