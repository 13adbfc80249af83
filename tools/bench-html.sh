#!/usr/bin/env bash
# Times fetch_url's HTML-to-text reduction of a 2 MB page (BENCHMARKS.md target: under 20 ms) in an
# optimised (-O) build: compiles Sources/Research/HTMLReducer.swift with tools/bench/html-main.swift
# into a scratch binary (no package changes) and runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
repo=$(pwd)
(cd "$work" && swiftc -O -wmo -parse-as-library -module-name HTMLBench -o "$work/html-bench" \
  "$repo/Sources/Research/HTMLReducer.swift" "$repo/tools/bench/html-main.swift")
"$work/html-bench"
