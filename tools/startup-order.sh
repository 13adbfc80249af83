#!/usr/bin/env bash
# Writes tools/startup.order: the functions ofj runs on its common start-up paths (`--version`,
# `status`, `day`, a text-only `ofj ask` against tools/bench/fake_openai.py, the REPL to its first
# prompt), in first-run order, from `valgrind --tool=callgrind --demangle=no`. The release build
# links with it (`lld --symbol-ordering-file`, Package.swift), so that code sits together and the
# kernel maps far fewer of the binary's pages (BENCHMARKS.md, issue 39: `ofj day` 22 -> 16 MiB).
# Rerun after large changes (a stale file only costs memory; missing symbols are ignored):
#   tools/startup-order.sh [OFJ_BINARY]   (default .build/release/ofj; needs valgrind, python3, sqlite3)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
OFJ=${1:-$repo/.build/release/ofj}
work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
export OFJ_HOME="$work/home" HOME="$work" XDG_CONFIG_HOME="$work/config" TZ=UTC
mkdir -p "$OFJ_HOME"
"$OFJ" log "Toast" --kcal 250 --protein 8 > /dev/null
python3 tools/bench/fake_openai.py --port 0 > "$work/port" &
pids+=($!)
for _ in $(seq 1 100); do [ -s "$work/port" ] && break; sleep 0.1; done
export OPENAI_BASE_URL="http://127.0.0.1:$(head -1 "$work/port")/v1" OPENAI_API_KEY=order-not-a-key
cg() { valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/$1.out" "${@:2}" > /dev/null 2>&1 < /dev/null; }
cg version "$OFJ" --version
cg status "$OFJ" status
cg day "$OFJ" day
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
