#!/usr/bin/env bash
# Issue 18 figures: (1) a cached `ofj barcode CODE` as a whole process against `ofj day`, side by
# side (hyperfine -N in one run, then alternating rounds with tools/bench/interleave.py, because the
# machine is shared and its speed drifts); (2) the per-machine rate limit (15 Open Food Facts
# product reads a minute) holding across 4 processes started together, counted at a loopback fake
# Open Food Facts (tools/fake_off.py).
#
# Usage: tools/bench-packaged.sh [OFJ_BINARY]   (default .build/release/ofj; build it as the
# Makefile does: swift build -c release --static-swift-stdlib). RUNS (default 100), TRIALS
# (default 3), WORKERS (default 4) and PER_WORKER (default 6) can be set in the environment.
# Needs python3; hyperfine is used when installed (apt-get install -y hyperfine).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
ofj=$(realpath "${1:-.build/release/ofj}")
runs=${RUNS:-100}
trials=${TRIALS:-3}
workers=${WORKERS:-4}
per_worker=${PER_WORKER:-6}
fixture="$repo/Tests/PackagedFoodsTests/Fixtures/off-product-3029330003533.json"
work=$(mktemp -d)
server_pid=""
cleanup() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

python3 "$repo/tools/fake_off.py" "$fixture" "$work/port" &
server_pid=$!
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.05; done
base="http://127.0.0.1:$(cat "$work/port")"
requests() { python3 -c 'import json,sys,urllib.request; print(json.load(urllib.request.urlopen(sys.argv[1] + "/__stats"))["product_requests"])' "$base"; }

echo "ofj: $ofj"
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at start"

# 1. Cached barcode vs day. One journal entry, one product fetched once into the cache.
home="$work/home"
mkdir -p "$home"
export HOME="$home" OFJ_HOME="$home" OPENFOODFACTS_BASE_URL="$base" NO_COLOR=1 TZ=UTC
"$ofj" log Oatmeal --kcal 150 >/dev/null
"$ofj" barcode 3029330003533 >/dev/null
before=$(requests)
"$ofj" barcode 3029330003533 | grep -q "from cache, fetched" || { echo "the second lookup was not answered from the cache" >&2; exit 1; }
echo
echo "== cached barcode vs day =="
if command -v hyperfine >/dev/null; then
  hyperfine -N --warmup 3 --runs "$runs" --export-json "$work/startup.json" \
    -n "ofj day" "$ofj day" -n "ofj barcode (cached)" "$ofj barcode 3029330003533"
  python3 - "$work/startup.json" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
day, bar = r["ofj day"]["median"] * 1000, r["ofj barcode (cached)"]["median"] * 1000
print(f"hyperfine medians: day {day:.1f} ms, cached barcode {bar:.1f} ms, ratio {bar / day:.2f}x")
PY
fi
echo "interleaved ($runs rounds, alternating order):"
python3 "$repo/tools/bench/interleave.py" "$runs" "day=$ofj day" "barcode=$ofj barcode 3029330003533"
after=$(requests)
echo "requests to the fake server during the timed runs: $((after - before)) (expected 0: every lookup came from the cache)"

# 2. Rate limit across processes: fresh home per trial, WORKERS processes waiting on one start
# signal, each looking up PER_WORKER distinct barcodes in turn.
echo
echo "== rate limit across $workers processes started together ($per_worker lookups each) =="
codes=$(python3 - "$((workers * per_worker))" <<'PY'
import sys
for i in range(int(sys.argv[1])):
    body = "31%010d" % i
    s = sum(int(d) * (3 if k % 2 == 0 else 1) for k, d in enumerate(reversed(body)))
    print(body + str((10 - s % 10) % 10))
PY
)
mapfile -t code_list <<<"$codes"
for trial in $(seq "$trials"); do
  home="$work/limit-$trial"
  mkdir -p "$home"
  export HOME="$home" OFJ_HOME="$home"
  "$ofj" day >/dev/null   # creates and migrates the database, as a person's first run would
  start=$(requests)
  rm -f "$work/go"
  pids=()
  for w in $(seq 0 $((workers - 1))); do
    (
      while [ ! -e "$work/go" ]; do sleep 0.005; done
      for k in $(seq 0 $((per_worker - 1))); do
        code=${code_list[$((w * per_worker + k))]}
        if "$ofj" barcode "$code" >/dev/null 2>"$work/err-$trial-$w-$k"; then echo ok; else
          if grep -q "ofj keeps to at most the published rate" "$work/err-$trial-$w-$k"; then echo limited; else echo "other: $(cat "$work/err-$trial-$w-$k")"; fi
        fi
      done >"$work/out-$trial-$w"
    ) &
    pids+=($!)
  done
  sleep 0.2
  touch "$work/go"
  for p in "${pids[@]}"; do wait "$p"; done
  reached=$(( $(requests) - start ))
  ok=$(cat "$work"/out-"$trial"-* | grep -c '^ok$' || true)
  limited=$(cat "$work"/out-"$trial"-* | grep -c '^limited$' || true)
  other=$(cat "$work"/out-"$trial"-* | grep -c '^other' || true)
  echo "trial $trial: $((workers * per_worker)) lookups, $reached reached the server (budget 15), $ok found, $limited refused by the local limit, $other other"
done
echo "machine: load average $(cut -d' ' -f1-3 /proc/loadavg) at end"
