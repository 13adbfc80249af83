#!/usr/bin/env bash
# Stream growth (issue 25 §4): wall time and peak RSS of `ofj ask` for one streamed answer of
# 1, 2, 4, 8, 16 and 32 MB, from tools/stream_growth_server.py (a loopback Chat Completions server
# writing the whole answer as fast as it is read, in 64-byte text deltas). Linear handling means
# time and memory per MB stay flat as the answer grows.
#
# Two series:
#   raised  OFJ_MAX_ANSWER_MB=64, so every size is handled whole (the growth being measured);
#   capped  the default 4 MB cap: answers past it end at 4 MB with "answer too long" (exit 1),
#           so their cost must stop growing at 4 MB.
# Each point is the median of RUNS runs (default 5), each with a fresh data folder.
# Usage: tools/stream-growth.sh [SIZES_MB...]   (default 1 2 4 8 16 32)
# Environment: OFJ_BIN (default .build/release/ofj, built if missing), RUNS, DELTA (bytes per
# delta, default 64), SERIES ("raised capped", or one of them).
set -euo pipefail
cd "$(dirname "$0")/.."
OFJ=${OFJ_BIN:-.build/release/ofj}
if [ ! -x "$OFJ" ]; then
  swift build -c release --product ofj 2>&1 | tail -2
fi
RUNS=${RUNS:-5}
DELTA=${DELTA:-64}
SERIES=${SERIES:-raised capped}
SIZES=("$@")
[ ${#SIZES[@]} -gt 0 ] || SIZES=(1 2 4 8 16 32)
WORK=$(mktemp -d /tmp/ofj-stream-growth.XXXXXX)
trap 'kill "$SERVER" 2>/dev/null || true; rm -rf "$WORK"' EXIT

python3 tools/stream_growth_server.py --delta "$DELTA" > "$WORK/port" &
SERVER=$!
for _ in $(seq 1 50); do [ -s "$WORK/port" ] && break; sleep 0.1; done
PORT=$(head -1 "$WORK/port")

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

echo "# $(date -u +%FT%TZ) $(git rev-parse --short HEAD) $OFJ, delta ${DELTA} B, median of $RUNS, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-7s %5s %9s %9s %9s %8s %s\n' series MB seconds "s/MB" "RSS MB" exit shown
for series in $SERIES; do
  for mb in "${SIZES[@]}"; do
    bytes=$((mb * 1048576))
    : > "$WORK/times"; : > "$WORK/rss"
    status=""; shown=0
    for run in $(seq 1 "$RUNS"); do
      home="$WORK/home-$series-$mb-$run"
      mkdir -p "$home"
      extra=()
      [ "$series" = raised ] && extra=(OFJ_MAX_ANSWER_MB=64)
      set +e
      /usr/bin/time -f "%e %M" -o "$WORK/time" env -i PATH=/usr/bin:/bin HOME="$home" OFJ_HOME="$home" \
        XDG_CONFIG_HOME="$home/config" XDG_STATE_HOME="$home/state" OFJ_PROVIDER=openai OFJ_MODEL=growth \
        OPENAI_BASE_URL="http://127.0.0.1:$PORT/v1" OPENAI_API_KEY=bench-not-a-key "${extra[@]}" \
        "$OFJ" ask "SIZE $bytes" > "$WORK/out" 2> "$WORK/err"
      status=$?
      set -e
      shown=$(wc -c < "$WORK/out")
      # (time prints "Command exited with non-zero status N" first when the answer failed)
      read -r secs kb < <(tail -1 "$WORK/time")
      echo "$secs" >> "$WORK/times"
      echo "$kb" >> "$WORK/rss"
      rm -rf "$home"
    done
    t=$(median < "$WORK/times")
    r=$(median < "$WORK/rss")
    printf '%-7s %5d %9.2f %9.3f %9.1f %8s %s\n' "$series" "$mb" "$t" "$(echo "$t / $mb" | bc -l)" "$(echo "$r / 1024" | bc -l)" "$status" "$shown"
  done
done
