#!/usr/bin/env bash
# Times full-text search (ConversationStore.searchThreads) on a 100,000-message thread in an
# optimised (-O) build: compiles SQLiteKit and Agent with tools/bench/search-main.swift into a
# scratch binary (no package changes) and runs it. Usage: tools/bench-search.sh [DB_PATH]
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
repo=$(pwd)
db=${1:-/tmp/ofj-search-bench.sqlite}
. tools/bench/modules.sh
bench_module SQLiteKit "$repo"/Sources/SQLiteKit/*.swift
bench_module Agent $(find "$repo/Sources/Agent" -name '*.swift')
(cd "$work" && swiftc -O -I "$work" -I "$repo/Sources/CSQLite" -L "$work" \
  -lAgent -lSQLiteKit -lsqlite3 -o "$work/search-bench" "$repo/tools/bench/search-main.swift")
"$work/search-bench" "$db"
rm -f "$db" "$db-wal" "$db-shm"
