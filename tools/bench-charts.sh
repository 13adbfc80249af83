#!/usr/bin/env bash
# Times `ofj trend --days 365` and `ofj report` for a year as whole processes (hyperfine, medians)
# on the generated 10-year journal (tools/bench-journal.sh: JournalFixtures.generateYears, 10
# years ending 2026-11-29, 3,000 foods, seed 42; generated on the first run and reused after).
# Usage: tools/bench-charts.sh [OFJ_BINARY] [JOURNAL]
#        (defaults: .build/release/ofj, built by `make release`; /tmp/ofj-journal-bench.sqlite)
set -euo pipefail
cd "$(dirname "$0")/.."
ofj=$(realpath "${1:-.build/release/ofj}")
src=${2:-/tmp/ofj-journal-bench.sqlite}
runs=${RUNS:-30}
command -v hyperfine >/dev/null || { echo "hyperfine missing: apt-get install -y hyperfine" >&2; exit 1; }
[ -f "$src" ] || tools/bench-journal.sh "$src" >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/home"
cp "$src" "$work/home/ofj.sqlite"
export OFJ_HOME="$work/home" HOME="$work" XDG_CONFIG_HOME="$work/config" LANG=C.UTF-8
"$ofj" day >/dev/null # the first open applies the app's migrations to the generated file
echo "journal: $(sqlite3 "$work/home/ofj.sqlite" "SELECT count(*) FROM journal_entries") entries; load: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs"
"$ofj" trend --days 365 | tail -2
"$ofj" report --from 2025-11-30 --to 2026-11-29 -o "$work/year.html" --force
echo "report: $(wc -c < "$work/year.html") bytes"
hyperfine -N -w 3 -r "$runs" --export-json "$work/times.json" \
  "$ofj trend --days 365" \
  "$ofj trend energy_kcal protein_g --weeks 52" \
  "$ofj month 2026-11" \
  "$ofj report --from 2025-11-30 --to 2026-11-29 -o $work/year.html --force" \
  "$ofj day 2026-08-21" >/dev/null
python3 - "$work/times.json" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    cmd = r["command"].split("/ofj ", 1)[-1]
    cpu = (r["user"] + r["system"]) * 1000  # hyperfine gives means of user and system time
    print(f"{r['median'] * 1000:8.1f} ms median wall (min {r['min'] * 1000:.1f}, max {r['max'] * 1000:.1f}, {len(r['times'])} runs), "
          f"{cpu:.1f} ms CPU (user+sys, mean)  ofj {cmd}")
PY
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
