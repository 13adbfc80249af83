#!/usr/bin/env bash
# Writes tools/startup.order: the functions ofj runs on its common start-up paths (`--version`,
# `status`, `day`, a text-only `ofj ask` against tools/bench/fake_openai.py, the REPL to its first
# prompt), path by path in the order callgrind lists them (`valgrind --tool=callgrind --demangle=no`;
# that order follows the traced binary's layout, so lists from two builds differ a little and their
# peaks by up to ~1 MiB: measure after regenerating). The release build
# links with it (`lld --symbol-ordering-file`, Package.swift), so that code sits together and the
# kernel maps far fewer of the binary's pages (BENCHMARKS.md, issue 39: `ofj day` 22 -> 17 MiB).
# Rerun after large changes (a stale file only costs memory; missing symbols are ignored):
#   tools/startup-order.sh [OFJ_BINARY [JOURNAL [DAY]]]   (default .build/release/ofj; needs valgrind, python3)
# JOURNAL: an ofj.sqlite to read (the 10-year one of tools/bench-journal.sh gives the better order:
# a day with every meal and nutrient); without it a day of four meals is logged.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
OFJ=${1:-$repo/.build/release/ofj}
JOURNAL=${2:-}
DAY=${3:-}
work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
export OFJ_HOME="$work/home"
mkdir -p "$OFJ_HOME"
day=
if [ -n "$JOURNAL" ]; then
  cp "$JOURNAL" "$OFJ_HOME/ofj.sqlite"
  day=${DAY:-$(python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT max(day) FROM journal_entries").fetchone()[0])' "$JOURNAL")}
else
  for meal in breakfast lunch dinner snack; do
    "$OFJ" log "Bench $meal" --kcal 250 --protein 8 --carbs 30 --fat 9 --meal "$meal" > /dev/null
  done
fi
"$OFJ" day > /dev/null   # migrates and checks a copied journal outside the traced runs
python3 tools/bench/fake_openai.py --port 0 > "$work/port" &
pids+=($!)
for _ in $(seq 1 100); do [ -s "$work/port" ] && break; sleep 0.1; done
export OPENAI_BASE_URL="http://127.0.0.1:$(head -1 "$work/port")/v1" OPENAI_API_KEY=order-not-a-key
cg() { valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/$1.out" "${@:2}" > /dev/null 2>&1 < /dev/null; }
cg version "$OFJ" --version
cg status "$OFJ" status
cg day "$OFJ" day $day
cg ask "$OFJ" ask "How am I doing today?" --provider openai
python3 tools/bench/repl_probe.py --runs 1 -- valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/repl.out" \
  "$OFJ" --provider openai > /dev/null
python3 - "$work" "$repo/tools/startup.order" <<'PY'
import re, sys
work, target = sys.argv[1], sys.argv[2]
order, seen = [], set()
for name in ["version", "status", "day", "repl", "ask"]:
    names = {}
    for line in open(f"{work}/{name}.out", errors="replace"):
        m = re.match(r"^c?fn=\((\d+)\)(?: (.*))?$", line.strip())
        if not m:
            continue
        ident, text = m.groups()
        if text:
            names[ident] = re.sub(r"'\d+$", "", text)
        fn = names.get(ident)
        if fn and fn not in seen and not fn.startswith("0x") and " " not in fn:
            seen.add(fn)
            order.append(fn)
with open(target, "w") as f:
    f.write("\n".join(order) + "\n")
print(f"{len(order)} functions -> {target}")
PY
