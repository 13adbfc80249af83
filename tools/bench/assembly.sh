#!/usr/bin/env bash
# Times request assembly in-process for stored threads in an optimised (-O -wmo) build: compiles
# SQLiteKit, Agent, HTTP and Providers with tools/bench/assembly-main.swift into a scratch binary
# (no package changes). Usage: tools/bench/assembly.sh DB THREAD_ID...
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="/opt/swift/usr/bin:$PATH"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
repo=$(pwd)
. tools/bench/modules.sh
bench_modules
(cd "$work" && swiftc -O -I "$work" -I "$repo/Sources/CSQLite" -I "$repo/Sources/CCurl" -L "$work" \
  -lProviders -lHTTP -lAgent -lSQLiteKit -lsqlite3 -lcurl -o "$work/assembly-bench" "$repo/tools/bench/assembly-main.swift")
"$work/assembly-bench" "$@"
