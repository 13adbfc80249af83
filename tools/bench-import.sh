#!/usr/bin/env bash
# Import speed (issue 23 §4): `ofj import cronometer` of ROWS generated rows (default 100,000)
# side by side with `ofj backup import` of the same entries (a backup exported after one import),
# each into a fresh data folder, ROUNDS rounds (default 5) alternating the two. Prints every run
# (wall seconds, CPU seconds = user + system, peak RSS) and the medians. Target: the CSV import
# within 2x of the backup import. On a shared machine compare CPU seconds: wall time includes
# waiting for a core.
# Usage: tools/bench-import.sh [ROWS] [ROUNDS]      OFJ=path/to/ofj (default .build/release/ofj)
# CSV_ONLY=1 times only the CSV import (for 1,000,000 rows: its memory stays bounded, while the
# backup import of a million entries holds the whole JSON document).
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${1:-100000}
rounds=${2:-5}
ofj=${OFJ:-.build/release/ofj}
[ -x "$ofj" ] || { echo "bench-import: no $ofj; build it with: swift build -c release --product ofj" >&2; exit 1; }
ofj=$(cd "$(dirname "$ofj")" && pwd)/$(basename "$ofj")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HOME="$work" XDG_CONFIG_HOME="$work/config" XDG_STATE_HOME="$work/state" OFJ_PROVIDER=offline TZ=UTC

# Cronometer's servings export shape: one row per food, a year of days, 12 nutrient columns.
python3 - "$rows" "$work/servings.csv" <<'EOF'
import sys, datetime
rows, path = int(sys.argv[1]), sys.argv[2]
foods = [("Oats, Rolled, Dry", "40.00 g"), ("Milk, 2%", "1.00 cup"), ("Banana", "1.00 medium"), ("Chicken Breast", "150.00 g"),
         ("Rice, White, Cooked", "1.00 cup"), ("Broccoli", "100.00 g"), ("Olive Oil", "1.00 tbsp"), ("Egg, Whole", "2.00 large")]
groups = ["Breakfast", "Lunch", "Dinner", "Snacks"]
start = datetime.date(2020, 1, 1)
with open(path, "w") as f:
    f.write("Day,Time,Group,Food Name,Amount,Energy (kcal),Protein (g),Carbs (g),Fat (g),Fiber (g),Sugars (g),Saturated (g),"
            "Sodium (mg),Potassium (mg),Calcium (mg),Iron (mg),Vitamin D (IU),Category\n")
    per_day = 12
    for i in range(rows):
        day = start + datetime.timedelta(days=i // per_day)
        name, amount = foods[i % len(foods)]
        k = 50 + (i * 37) % 600
        f.write(f"{day},{8 + (i % per_day)}:{i % 60:02d} AM,{groups[i % 4]},\"{name} #{i % 997}\",{amount},{k}.5,{k/20:.2f},{k/8:.2f},"
                f"{k/30:.2f},{(i%9)/2:.1f},{(i%13)/2:.1f},{(i%7)/3:.2f},{(i*7)%900},{(i*11)%800},{(i*3)%300},{(i%17)/5:.2f},{(i%5)*20},Food\n")
EOF
echo "bench-import: $rows rows ($(du -h "$work/servings.csv" | cut -f1)), $rounds rounds, $("$ofj" --version)"

csv_only=${CSV_ONLY:-0}
if [ "$csv_only" != 1 ]; then
  # The same entries as a backup: import once, export.
  OFJ_HOME="$work/seed" "$ofj" import cronometer "$work/servings.csv" > /dev/null
  OFJ_HOME="$work/seed" "$ofj" backup export -o "$work/backup.json" > /dev/null
  echo "bench-import: backup of the same entries $(du -h "$work/backup.json" | cut -f1)"
fi

run() { # label, data dir, command...
  local label=$1 home=$2; shift 2
  rm -rf "$home"
  local out
  out=$( { OFJ_HOME="$home" /usr/bin/time -f "%e %U %S %M" "$@" > /dev/null; } 2>&1 | tail -1)
  local n wall user sys rss
  n=$(sqlite3 "$home/ofj.sqlite" "SELECT count(*) FROM journal_entries")
  read -r wall user sys rss <<< "$out"
  local cpu
  cpu=$(python3 -c "print(f'{$user + $sys:.2f}')")
  echo "$label $wall $cpu $rss $n" >> "$work/times"
  printf '  %-14s wall %6.2f s  cpu %6.2f s  peak RSS %7d KB  entries %s\n' "$label" "$wall" "$cpu" "$rss" "$n"
}
for ((r = 1; r <= rounds; r++)); do
  echo "round $r"
  run csv-import "$work/a" "$ofj" import cronometer "$work/servings.csv"
  [ "$csv_only" = 1 ] || run backup-import "$work/b" "$ofj" backup import "$work/backup.json"
done
python3 - "$work/times" <<'EOF'
import sys, statistics
runs = {}
for line in open(sys.argv[1]):
    label, wall, cpu, rss, n = line.split()
    runs.setdefault(label, []).append((float(wall), float(cpu), int(rss), int(n)))
wall = {k: statistics.median(r[0] for r in v) for k, v in runs.items()}
cpu = {k: statistics.median(r[1] for r in v) for k, v in runs.items()}
for k, v in runs.items():
    print(f"median {k}: wall {wall[k]:.2f} s, cpu {cpu[k]:.2f} s, peak RSS {statistics.median(r[2] for r in v):.0f} KB, entries {v[0][3]}")
if 'backup-import' in runs: print(f"ratio csv-import / backup-import: wall {wall['csv-import'] / wall['backup-import']:.2f}, cpu {cpu['csv-import'] / cpu['backup-import']:.2f} (target <= 2)")
EOF
