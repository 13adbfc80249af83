#!/usr/bin/env bash
# Several ofj processes starting at the same moment on a new database (RELIABILITY.md "Two
# processes on one database", item 4). Each round makes a fresh OFJ_HOME and starts PROCS
# `ofj day` at once; a process fails if it exits non-zero or writes anything to stderr.
# Usage: tools/start-race.sh [ROUNDS=200] [OFJ_BINARY=.build/debug/ofj] [PROCS=4]
set -uo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-200}
ofj=$(realpath "${2:-.build/debug/ofj}")
procs=${3:-4}
[ -x "$ofj" ] || { echo "build first: swift build"; exit 1; }
work=$(mktemp -d /tmp/ofj-race.XXXXXX)
trap 'rm -rf "$work"' EXIT
failed=0
for round in $(seq 1 "$rounds"); do
  h=$work/r$round
  mkdir -p "$h"
  for k in $(seq 1 "$procs"); do
    (OFJ_HOME=$h/data HOME=$h XDG_CONFIG_HOME=$h/config OFJ_PROVIDER=offline "$ofj" day > /dev/null 2> "$h/err$k"; echo $? > "$h/rc$k") &
  done
  wait
  for k in $(seq 1 "$procs"); do
    if [ "$(cat "$h/rc$k")" != 0 ] || [ -s "$h/err$k" ]; then
      failed=$((failed + 1))
      echo "round $round, process $k: exit $(cat "$h/rc$k"): $(head -c 300 "$h/err$k")"
    fi
  done
  rm -rf "$h"
done
echo "start race: $failed of $((rounds * procs)) processes failed ($rounds rounds of $procs)"
[ "$failed" = 0 ]
