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
module() { # name, sources...
  local name=$1; shift
  (cd "$work" && swiftc -O -wmo -parse-as-library -module-name "$name" -emit-module -emit-library -static \
    -I "$work" -I "$repo/Sources/CSQLite" -I "$repo/Sources/CCurl" -o "$work/lib$name.a" "$@")
}
module SQLiteKit "$repo"/Sources/SQLiteKit/*.swift
module Agent $(find "$repo/Sources/Agent" -name "*.swift")
module HTTP "$repo"/Sources/HTTP/*.swift
module Providers "$repo"/Sources/Providers/*.swift
(cd "$work" && swiftc -O -I "$work" -I "$repo/Sources/CSQLite" -I "$repo/Sources/CCurl" -L "$work" \
  -lProviders -lHTTP -lAgent -lSQLiteKit -lsqlite3 -lcurl -o "$work/assembly-bench" "$repo/tools/bench/assembly-main.swift")
"$work/assembly-bench" "$@"
