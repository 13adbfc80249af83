#!/bin/sh
# Builds and runs the libFuzzer targets of tools/fuzz/ (see RELIABILITY.md "## Fuzzing").
#   tools/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]      default: 60 s, every target
# Targets: sse json gemini chat responses anthropic schema transcript hrana mcp packaged urlpolicy htmlreduce.
# The product modules are built once with coverage and AddressSanitizer (`swift build -c release
# -Xswiftc -sanitize=fuzzer,address`, in .build/fuzz; SwiftPM's `--sanitize fuzzer --sanitize
# address` passes two flags, swiftc keeps the last, and the modules get no coverage). Each harness
# is linked against them with `swiftc -sanitize=fuzzer,address`. Seeds are generated into
# .build/fuzz/work/seeds by tools/fuzz/seeds.py; inputs that found new coverage accumulate in
# .build/fuzz/work/corpus/<target>; tools/fuzz/*.dict are the mutation dictionaries.
# A crash, a hang (-timeout) or running out of memory (-rss_limit_mb) stops that target, leaves the
# input in .build/fuzz/work/crashes/<target>/ and makes the script exit 1 (after the other targets).
# Reproduce one input: SWIFT_BACKTRACE=enable=no .build/fuzz/work/bin/<target> <input file>
# (Swift's backtracer takes over a minute per crash under AddressSanitizer).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export PATH=/opt/swift/usr/bin:$PATH

all="sse json gemini chat responses anthropic schema transcript hrana mcp packaged urlpolicy htmlreduce"
seconds=60
case "${1:-}" in ''|*[!0-9]*) ;; *) seconds=$1; shift ;; esac
targets=${*:-$all}
for t in $targets; do
    case " $all " in *" $t "*) ;; *) echo "unknown target '$t'; targets: $all" >&2; exit 2 ;; esac
done

fixtures=${OFJ_FIXTURES:-}
if [ -z "$fixtures" ]; then
    d=$root
    while [ "$d" != / ]; do
        [ -d "$d/shared/fixtures/providers" ] && { fixtures=$d/shared/fixtures/providers; break; }
        d=$(dirname "$d")
    done
fi
[ -n "$fixtures" ] || { echo "provider fixtures not found (../shared/fixtures/providers); set OFJ_FIXTURES" >&2; exit 2; }

build=$root/.build/fuzz
work=$build/work
mkdir -p "$work/bin" "$work/logs"

echo "building the product modules with fuzzer and address sanitizer instrumentation (.build/fuzz)..."
spm="swift build -c release --build-path $build -Xswiftc -sanitize=fuzzer,address -Xswiftc -enable-testing"
$spm --target Transcripts >"$work/logs/build.log" 2>&1 || { tail -30 "$work/logs/build.log"; echo "build failed" >&2; exit 2; }
$spm --target MCP >>"$work/logs/build.log" 2>&1 || { tail -30 "$work/logs/build.log"; echo "build failed" >&2; exit 2; }
$spm --target PackagedFoods >>"$work/logs/build.log" 2>&1 || { tail -30 "$work/logs/build.log"; echo "build failed" >&2; exit 2; }
$spm --target Research >>"$work/logs/build.log" 2>&1 || { tail -30 "$work/logs/build.log"; echo "build failed" >&2; exit 2; }
bin=$($spm --show-bin-path)

rm -rf "$work/seeds"
python3 "$root/tools/fuzz/seeds.py" "$root" "$fixtures" "$work/seeds" || exit 2

modules() { # the product modules each harness links
    case $1 in
        sse) echo HTTP ;;
        json) echo Base ;;
        gemini|chat|responses|anthropic) echo Base SQLiteKit Agent HTTP Providers ;;
        schema) echo Base SQLiteKit Nutrition ReferenceFoods Journal Agent NutritionTools ;;
        hrana) echo Base OutputSafety HTTP Hrana ;;
        mcp) echo Base SQLiteKit Agent MCP ;;
        packaged) echo Base SQLiteKit Nutrition HTTP PackagedFoods ;;
        urlpolicy|htmlreduce) echo Base SQLiteKit Agent HTTP Research ;;
        transcript) echo Base OutputSafety SQLiteKit Nutrition ReferenceFoods Journal Agent HTTP Providers Hrana Diagnostics NutritionTools REPL Transcripts ;;
    esac
}

harness() {
    case $1 in
        gemini|chat|responses|anthropic) echo "providers.swift -D FUZZ_$(echo "$1" | tr a-z A-Z)" ;;
        *) echo "$1.swift" ;;
    esac
}

dictionary() { # libFuzzer dictionaries: tokens the mutator splices in
    case $1 in
        transcript) echo "$root/tools/fuzz/transcript.dict" ;;
        urlpolicy) echo "$root/tools/fuzz/url.dict" ;;
        htmlreduce) echo "$root/tools/fuzz/html.dict" ;;
        *) echo "$root/tools/fuzz/json.dict" ;;
    esac
}

maxlen() {
    case $1 in schema) echo 4096 ;; hrana) echo 8192 ;; urlpolicy) echo 512 ;; *) echo 16384 ;; esac
}

status=0
for t in $targets; do
    objects=
    for m in $(modules "$t"); do objects="$objects $(ls "$bin/$m.build/"*.o | tr '\n' ' ')"; done
    # shellcheck disable=SC2046,SC2086
    if ! (cd "$root/tools/fuzz" && swiftc -O -swift-version 6 -parse-as-library -sanitize=fuzzer,address -module-name "Fuzz_$t" \
            -I "$bin/Modules" -I "$root/Sources/CSQLite" -I "$root/Sources/CCurl" -I "$root/Sources/CEditLine" \
            $(pkg-config --cflags libedit 2>/dev/null | sed 's/\(-[^ ]*\)/-Xcc \1/g') \
            $(harness "$t") $objects -lsqlite3 -ledit -o "$work/bin/$t") >"$work/logs/$t.build.log" 2>&1; then
        tail -30 "$work/logs/$t.build.log"
        echo "$t: harness did not build" >&2
        exit 2
    fi
    mkdir -p "$work/corpus/$t" "$work/crashes/$t"
    SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1 "$work/bin/$t" "$work/corpus/$t" "$work/seeds/$t" \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len="$(maxlen "$t")" -dict="$(dictionary "$t")" \
        -artifact_prefix="$work/crashes/$t/" -print_final_stats=1 >"$work/logs/$t.log" 2>&1
    rc=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/logs/$t.log" | tail -1)
    cov=$(grep -o 'cov: [0-9]* ft: [0-9]* corp: [0-9]*' "$work/logs/$t.log" | tail -1)
    if [ "$rc" -eq 0 ]; then
        printf '%-10s ok     %s runs in %s s, %s, no crash\n' "$t" "${runs:-?}" "$seconds" "${cov:-cov: ?}"
    else
        status=1
        input=$(ls -t "$work/crashes/$t/" 2>/dev/null | head -1)
        why=$(grep -m1 -o 'ERROR: [A-Za-z]*: [^(]*\|Fatal error: .*\|ERROR: libFuzzer: [a-z-]*' "$work/logs/$t.log" | head -1)
        printf '%-10s FAIL   after %s runs: %s; input %s; log %s\n' "$t" "${runs:-?}" "${why:-exit $rc}" \
            "$work/crashes/$t/$input" "$work/logs/$t.log"
    fi
done
exit $status
