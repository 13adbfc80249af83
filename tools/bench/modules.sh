# Sourced by the in-process benchmarks: builds SQLiteKit, Agent, HTTP and Providers -O -wmo as
# static libraries in $work (no package changes), for a bench main compiled against them.
# Needs $work and $repo set.
bench_module() { # name, sources...
  local name=$1; shift
  (cd "$work" && swiftc -O -wmo -parse-as-library -module-name "$name" -emit-module -emit-library -static \
    -I "$work" -I "$repo/Sources/CSQLite" -I "$repo/Sources/CCurl" -o "$work/lib$name.a" "$@")
}
bench_modules() {
  bench_module SQLiteKit $(find "$repo/Sources/SQLiteKit" -name "*.swift")
  bench_module Agent $(find "$repo/Sources/Agent" -name "*.swift")
  bench_module HTTP $(find "$repo/Sources/HTTP" -name "*.swift")
  bench_module Providers $(find "$repo/Sources/Providers" -name "*.swift")
}
