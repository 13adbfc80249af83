#!/usr/bin/env bash
# Times JournalStore on a generated 10-year journal (~40,000 entries, 3,000 foods) in an optimised
# (-O) build: compiles Base, SQLiteKit, OutputSafety, Nutrition, ReferenceFoods and Journal with tools/bench/journal-main.swift
# into a scratch binary (no package changes) and runs it. Usage: tools/bench-journal.sh [DB_PATH]
# (the journal is generated on the first run and reused after; delete the file to regenerate).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
repo=$(pwd)
db=${1:-/tmp/ofj-journal-bench.sqlite}
# The package normally generates Bundle.module; the benchmark never loads reference resources.
printf 'import Foundation\nextension Foundation.Bundle { static let module = Bundle.main }\n' > "$work/bundle.swift"
. tools/bench/modules.sh
bench_module Base "$repo"/Sources/Base/*.swift
bench_module SQLiteKit "$repo"/Sources/SQLiteKit/*.swift
bench_module OutputSafety "$repo"/Sources/OutputSafety/*.swift
bench_module Nutrition "$repo"/Sources/Nutrition/*.swift
bench_module ReferenceFoods "$repo"/Sources/ReferenceFoods/*.swift "$work/bundle.swift"
bench_module Journal "$repo"/Sources/Journal/*.swift
(cd "$work" && swiftc -O -I "$work" -I "$repo/Sources/CSQLite" -L "$work" \
  -lJournal -lReferenceFoods -lNutrition -lOutputSafety -lSQLiteKit -lBase -lsqlite3 -o "$work/journal-bench" "$repo/tools/bench/journal-main.swift")
"$work/journal-bench" "$db"
