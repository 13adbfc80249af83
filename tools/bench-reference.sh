#!/usr/bin/env bash
# Times reference-food loading and search in an optimised (-O) build: compiles Sources/ReferenceFoods
# with tools/bench/reference-main.swift into a scratch binary (no package changes) and runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The package normally generates Bundle.module; the benchmark reads the directory directly.
printf 'import Foundation\nextension Foundation.Bundle { static let module = Bundle.main }\n' > "$work/bundle.swift"
repo=$(pwd)
# Compile inside the scratch directory so swiftc's module side files do not land in the repository.
(cd "$work" && swiftc -O -wmo -parse-as-library -module-name ReferenceFoods -o "$work/reference-bench" \
  "$repo"/Sources/ReferenceFoods/*.swift "$work/bundle.swift" "$repo/tools/bench/reference-main.swift")
"$work/reference-bench" Sources/ReferenceFoods/Resources
