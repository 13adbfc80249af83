#!/usr/bin/env bash
# Sink chaos: ofj records diagnostics (an `ofj ask --yes` loop and one long REPL, offline
# assistant) while the Turso sink (tools/turso_server.py behind tools/sink_chaos_proxy.py) is
# refused, stalled, failing with 5xx, answering garbage, slow, losing acknowledgements after
# commit, lagging or dripping, on a schedule; then it recovers and `ofj diag flush` delivers the rest.
# Checks: outbox never above 500 rows / 2 MiB, every produced event delivered or counted as
# dropped, drop reports add up, no duplicates on the sink, no token or raw error anywhere.
# Prints a JSON summary (also WORKDIR/summary.json); exit 1 when a check fails.
#
# Usage: tools/sink-chaos.sh [--schedule "refused:60,garbage:60,..."] [--repeat N] [--seed S]
#                            [--no-repl] [--workdir DIR]
# Default schedule: ~7 minutes (one round). Modes: see tools/sink_chaos_proxy.py.
set -euo pipefail
cd "$(dirname "$0")/.."
ofj=${OFJ_BIN:-.build/debug/ofj}
[ -x "$ofj" ] || swift build >/dev/null
work=""
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --workdir) work=$2; shift 2 ;;
    *) args+=("$1"); shift ;;
  esac
done
keep=1
if [ -z "$work" ]; then work=$(mktemp -d /tmp/sink-chaos.XXXXXX); keep=0; fi
# A private copy, so that a rebuild during a long run does not change the binary under test.
mkdir -p "$work"
cp "$ofj" "$work/ofj"
status=0
python3 tools/sink_chaos.py --ofj "$work/ofj" --workdir "$work" ${args[@]+"${args[@]}"} || status=$?
if [ "$keep" = 0 ] && [ "$status" = 0 ]; then rm -rf "$work"; else echo "sink-chaos: files kept in $work" >&2; fi
exit "$status"
