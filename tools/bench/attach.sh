#!/usr/bin/env bash
# Attachment benchmark (issue 19): how much attaching a 10 MB image adds before the request
# starts, and how much it grows peak RSS. Builds SQLiteKit, Agent, HTTP and Providers -O -wmo
# with tools/bench/attach-main.swift (no package changes), starts tools/bench/fake_openai.py on
# loopback, and runs RUNS (default 9) alternating runs without and with the attachment, each in a
# fresh process and a fresh database. Prints every run and the medians.
# Usage: tools/bench/attach.sh [SIZE_BYTES]
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="/opt/swift/usr/bin:$PATH"
size=${1:-10000000}
runs=${RUNS:-9}
work=$(mktemp -d)
server=""
trap '[ -n "$server" ] && kill $server 2>/dev/null; rm -rf "$work"' EXIT
repo=$(pwd)
. tools/bench/modules.sh
bench_modules
(cd "$work" && swiftc -O -parse-as-library -I "$work" -I "$repo/Sources/CSQLite" -I "$repo/Sources/CCurl" -L "$work" \
  -lProviders -lHTTP -lAgent -lSQLiteKit -lsqlite3 -ldl -o "$work/attach-bench" "$repo/tools/bench/attach-main.swift")
# A "JPEG" of random bytes between the start and end markers (only the markers are checked).
python3 - "$work/photo.jpg" "$size" <<'PY'
import os, sys
n = int(sys.argv[2])
with open(sys.argv[1], "wb") as f:
    f.write(b"\xff\xd8\xff\xe0" + os.urandom(n - 6) + b"\xff\xd9")
PY
python3 tools/bench/fake_openai.py --port 0 > "$work/port" &
server=$!
for _ in $(seq 50); do [ -s "$work/port" ] && break; sleep 0.1; done
port=$(head -1 "$work/port")
for i in $(seq "$runs"); do
  for mode in none attach; do
    rm -f "$work/db"*
    "$work/attach-bench" "$mode" "$work/photo.jpg" "$work/db.sqlite" "$port" | tee -a "$work/results"
  done
done
python3 - "$work/results" "$size" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
size = int(sys.argv[2])
def med(mode, col): return statistics.median(float(r[col]) for r in rows if r[0] == mode)
t_none, t_att = med("none", 1), med("attach", 1)
r_none, r_att = med("none", 5), med("attach", 5)
print(f"file {size/1e6:.1f} MB, {len(rows)//2} runs each")
print(f"median ms to send: none {t_none:.1f}, attach {t_att:.1f}, added {t_att - t_none:.1f} ms (target < 50)")
for col, name in ((10, "read"), (12, "submit"), (14, "assemble+encode")):
    print(f"  attach phase {name}: median {statistics.median(float(r[col]) for r in rows if r[0] == 'attach'):.1f} ms")
print(f"median peak RSS: none {r_none/1024:.1f} MB, attach {r_att/1024:.1f} MB, growth {(r_att - r_none)/1024:.1f} MB "
      f"= {(r_att - r_none)*1024/size:.2f}x the file (target < 3x)")
PY
