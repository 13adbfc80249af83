#!/usr/bin/env bash
# The speed targets of issue 39, measured side by side and checked: prints one row per target with
# its figure, and exits 1 when one is missed. Run by hand (and before a release), never in `make test`:
# a timing is not a test on a shared machine. See BENCHMARKS.md ("Current figures").
#
# Usage: tools/bench/check.sh            (RUNS=15 pairs per target by default)
# Env:   RUNS, BENCH_DIR (scratch, default /tmp/ofj-check), OFJ (binary; default the release build,
#        built with `swift build -c release --static-swift-stdlib` as `make run` does when missing),
#        LLM_VENV (default $BENCH_DIR/llm-venv; `pip install llm` there when missing).
# Needs: python3 (with venv), sqlite3, /usr/bin/time (Debian: time). The 10-year journal is made once
# by tools/bench-journal.sh (JournalFixtures.generateYears(10, foods: 3_000, seed: 42)) and reused.
#
# Targets (issue 39): ofj --version >= 150x faster than llm --version, peak <= 13 MB; ofj day within
# 2x of the sqlite3 shell running the same queries on the same 10-year journal, peak <= 16 MB; a
# one-shot text turn of ofj ask >= 50x faster than llm's against the same instant server
# (tools/bench/fake_openai.py), peak <= 30 MB; REPL time to first prompt <= 15 ms; a REPL turn's own
# overhead (the turn less the server's own time) <= 5 ms on a 1,000-message thread; ofj status
# p95 <= 20 ms on the 10-year journal. The targets' MB are read as MiB (2^20 bytes), as the issue's
# figures were (/usr/bin/time's kB / 1024).
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$(pwd)
export PATH="/opt/swift/usr/bin:$PATH"
RUNS=${RUNS:-15}
B=${BENCH_DIR:-/tmp/ofj-check}
mkdir -p "$B"
OFJ=${OFJ:-$repo/.build/release/ofj}
LLM_VENV=${LLM_VENV:-$B/llm-venv}
LLM="$LLM_VENV/bin/llm"
DAY=2026-08-21   # a day in the middle of the generated journal (last day 2026-11-29)
QUESTION="How am I doing today?"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

[ -x "$OFJ" ] || swift build -c release --static-swift-stdlib --product ofj 2>&1 | tail -2
[ -x "$LLM" ] || { python3 -m venv "$LLM_VENV" && "$LLM_VENV/bin/pip" install -q llm; }
[ -x /usr/bin/time ] || { echo "check.sh: /usr/bin/time missing (apt-get install -y time)" >&2; exit 1; }
[ -f "$B/journal-10y.sqlite" ] || tools/bench-journal.sh "$B/journal-10y.sqlite" > "$B/journal-gen.log"
# ofj reads $OFJ_HOME/ofj.sqlite: copies keep the generated file pristine; the first open migrates.
for h in day ask repl; do
  mkdir -p "$B/home-$h"
  [ -f "$B/home-$h/ofj.sqlite" ] || { cp "$B/journal-10y.sqlite" "$B/home-$h/ofj.sqlite"; OFJ_HOME="$B/home-$h" "$OFJ" day "$DAY" > /dev/null; }
done

# The same queries `ofj day` makes for one day, for the sqlite3 shell.
cat > "$B/day.sql" <<SQL
SELECT e.meal, e.name, e.brand, e.servings, n.nutrient, n.total FROM journal_entries e
  JOIN journal_entry_nutrients n ON n.entry_seq = e.seq WHERE e.day = '$DAY' ORDER BY e.meal, e.seq, n.nutrient;
SELECT meal, count(*) FROM journal_entries WHERE day = '$DAY' GROUP BY meal;
SELECT * FROM journal_day_totals WHERE day = '$DAY';
SELECT value FROM journal_settings WHERE key = 'goals';
SQL

# The instant server, for both clients.
portfile="$B/fake.port"; : > "$portfile"
python3 tools/bench/fake_openai.py --port 0 > "$portfile" 2> "$B/fake.err" &
pids+=($!)
for _ in $(seq 1 100); do [ -s "$portfile" ] && break; sleep 0.1; done
PORT=$(head -1 "$portfile")
[ -n "$PORT" ] || { echo "check.sh: tools/bench/fake_openai.py did not start: $(cat "$B/fake.err")" >&2; exit 1; }
export OPENAI_BASE_URL="http://127.0.0.1:$PORT/v1" OPENAI_API_KEY=bench-not-a-key
mkdir -p "$B/llm-home"
cat > "$B/llm-home/extra-openai-models.yaml" <<YAML
- model_id: bench
  model_name: bench-model
  api_base: "http://127.0.0.1:$PORT/v1"
YAML
export LLM_USER_PATH="$B/llm-home"
stats() { python3 -c 'import json,sys,urllib.request; print(json.load(urllib.request.urlopen(sys.argv[1]))[sys.argv[2]])' "http://127.0.0.1:$PORT/__stats" "$1"; }

# Sanity: both clients reach the server and get its answer.
OFJ_HOME="$B/home-ask" "$OFJ" ask "$QUESTION" --provider openai | grep -q "fibre is a little low" || { echo "check.sh: ofj ask did not get the server's answer" >&2; exit 1; }
"$LLM" -m bench "$QUESTION" | grep -q "fibre is a little low" || { echo "check.sh: llm did not get the server's answer" >&2; exit 1; }
. tools/bench/fill-thread.sh
fill_thread "$B/home-repl/ofj.sqlite" bench-thread-1000 1000

load() { cut -d' ' -f1-3 /proc/loadavg; }
echo "# tools/bench/check.sh  $(date -u +%FT%TZ)  RUNS=$RUNS  $(nproc) cores  load $(load) (1/5/15 min)"
echo "# $("$OFJ" --version), llm $("$LLM" --version | awk '{print $NF}'), $(sqlite3 --version | cut -d' ' -f1) (sqlite3 shell), journal $(sqlite3 "$B/home-day/ofj.sqlite" "SELECT count(*) FROM journal_entries") entries"
log="$B/check-$(date -u +%Y%m%dT%H%M%SZ).log"

# field NAME RESULT-LINE: one value of pairs.py's RESULT record.
field() { printf '%s\n' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
pairs() { python3 tools/bench/pairs.py "$@" | tee -a "$log" | grep '^RESULT'; }
rows=()
missed=0
# row TARGET FIGURE OK: one line of the table; OK is 1 when the target is met.
row() {
  local verdict=met
  [ "$3" = 1 ] || { verdict=MISSED; missed=$((missed + 1)); }
  rows+=("| $1 | $2 | $verdict |")
}
ge() { python3 -c 'import sys; print(int(float(sys.argv[1]) >= float(sys.argv[2])))' "$1" "$2"; }
le() { python3 -c 'import sys; print(int(float(sys.argv[1]) <= float(sys.argv[2])))' "$1" "$2"; }
fmt() { python3 -c 'import sys; print(f"{float(sys.argv[1]):.{int(sys.argv[2])}f}")' "$1" "$2"; }

r=$(OFJ_HOME="$B/home-day" pairs pair --runs "$RUNS" version -- "$OFJ" --version ::: "$LLM" --version)
ratio=$(field ratio "$r"); peak=$(field a_peak_mib "$r")
row '`ofj --version` ≥ 150x faster than `llm --version`' "$(fmt "$(field a_ms "$r")" 1) vs $(fmt "$(field b_ms "$r")" 1) ms = **$(fmt "$ratio" 0)x**" "$(ge "$ratio" 150)"
row '`ofj --version` peak ≤ 13 MB' "$(fmt "$peak" 1) MiB" "$(le "$peak" 13)"

r=$(OFJ_HOME="$B/home-day" pairs pair --runs "$RUNS" day -- "$OFJ" day "$DAY" ::: sqlite3 "$B/home-day/ofj.sqlite" ".read $B/day.sql")
ratio=$(python3 -c 'import sys; print(1 / float(sys.argv[1]))' "$(field ratio "$r")"); peak=$(field a_peak_mib "$r")
row '`ofj day` within 2x of the `sqlite3` shell, same queries, 10-year journal' "$(fmt "$(field a_ms "$r")" 1) vs $(fmt "$(field b_ms "$r")" 1) ms = **$(fmt "$ratio" 2)x**" "$(le "$ratio" 2)"
row '`ofj day` peak ≤ 16 MB' "$(fmt "$peak" 1) MiB" "$(le "$peak" 16)"

r=$(OFJ_HOME="$B/home-ask" pairs pair --runs "$RUNS" ask -- "$OFJ" ask "$QUESTION" --provider openai ::: "$LLM" -m bench "$QUESTION")
ratio=$(field ratio "$r"); peak=$(field a_peak_mib "$r")
row '`ofj ask` text turn ≥ 50x faster than `llm`, same instant server' "$(fmt "$(field a_ms "$r")" 1) vs $(fmt "$(field b_ms "$r")" 1) ms = **$(fmt "$ratio" 1)x**" "$(ge "$ratio" 50)"
row '`ofj ask` text turn peak ≤ 30 MB' "$(fmt "$peak" 1) MiB" "$(le "$peak" 30)"

r=$(OFJ_HOME="$B/home-day" pairs alone --runs "$((RUNS * 2))" status -- "$OFJ" status)
p95=$(field a_p95_ms "$r")
row '`ofj status` p95 ≤ 20 ms, 10-year journal' "p95 $(fmt "$p95" 1) ms (median $(fmt "$(field a_ms "$r")" 1) ms, n=$((RUNS * 2)))" "$(le "$p95" 20)"

# The REPL on a pseudo-terminal (tools/bench/repl_probe.py): the first prompt on a new thread.
out=$(OFJ_HOME="$B/home-repl" python3 tools/bench/repl_probe.py --runs "$RUNS" -- "$OFJ" --provider openai | tee -a "$log" | tail -1)
first=$(printf '%s\n' "$out" | sed -n 's/.*first prompt \([0-9.]*\) ms.*/\1/p')
row 'REPL time to first prompt ≤ 15 ms' "$first ms (median of $RUNS)" "$(le "$first" 15)"

# Two turns on the 1,000-message thread, each from the line sent to the next prompt, less the
# server's own time per request (its do_POST, summed by the server). The second turn is the
# figure: the first also loads libcurl and its libraries, once per process (shown beside it).
before=$(stats handle_ms); reqs0=$(stats requests)
out=$(OFJ_HOME="$B/home-repl" python3 tools/bench/repl_probe.py --runs "$RUNS" --ask "$QUESTION" --ask "$QUESTION" -- "$OFJ" --provider openai --thread bench-thread-1000 | tee -a "$log" | tail -1)
after=$(stats handle_ms); reqs1=$(stats requests)
turn1=$(printf '%s\n' "$out" | sed -n 's/.*, turn 1 \([0-9.]*\) ms.*/\1/p')
turn=$(printf '%s\n' "$out" | sed -n 's/.*turn to next prompt \([0-9.]*\) ms.*/\1/p')
server=$(python3 -c 'import sys; a,b,n0,n1=map(float,sys.argv[1:]); print((b-a)/max(1,n1-n0))' "$before" "$after" "$reqs0" "$reqs1")
own=$(python3 -c 'import sys; print(float(sys.argv[1]) - float(sys.argv[2]))' "$turn" "$server")
row 'REPL turn overhead ≤ 5 ms, 1,000-message thread' "$(fmt "$own" 1) ms (second turn $turn ms less the server's $(fmt "$server" 1) ms; first turn $turn1 ms)" "$(le "$own" 5)"

echo "# load after: $(load); details: $log"
echo
echo "| target | measured (medians, side by side) | verdict |"
echo "|---|---|---|"
printf '%s\n' "${rows[@]}"
[ "$missed" -eq 0 ] || { echo; echo "$missed target(s) missed"; exit 1; }
