#!/usr/bin/env bash
# Times `ofj weight` and `ofj expenditure` as whole processes on the 10-year journal of
# tools/bench-journal.sh plus a weigh-in every day for ten years (3,652 rows).
# Usage: tools/bench-person.sh [OFJ_BINARY]  (default .build/release/ofj; build it with
# `swift build -c release --product ofj`). Uses hyperfine (Debian: apt-get install hyperfine).
set -euo pipefail
cd "$(dirname "$0")/.."
ofj=${1:-.build/release/ofj}
src=/tmp/ofj-journal-bench.sqlite
[ -f "$src" ] || tools/bench-journal.sh "$src" >/dev/null
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
cp "$src" "$home/ofj.sqlite"
python3 - "$home/ofj.sqlite" <<'PY'
import datetime, random, sqlite3, sys, uuid
c = sqlite3.connect(sys.argv[1])
r = random.Random(42)
day, end, w, rows, ms = datetime.date(2016, 12, 3), datetime.date(2026, 12, 2), 82.0, [], 1795000000000
while day <= end:
    w += r.gauss(0, 0.03)
    rows.append((str(uuid.UUID(int=r.getrandbits(128), version=4)), day.isoformat(), round(w + r.gauss(0, 0.3), 2), "cli", ms, ms))
    day += datetime.timedelta(days=1)
c.executemany("INSERT INTO journal_weights (id, day, kg, source, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)", rows)
c.commit()
PY
export OFJ_HOME="$home" HOME="$home" XDG_CONFIG_HOME="$home/config" XDG_STATE_HOME="$home/state" OFJ_PROVIDER=offline TZ=UTC
"$ofj" day >/dev/null   # migrates the copy once
hyperfine -N -w 3 -r "${RUNS:-30}" "$ofj weight" "$ofj expenditure" "$ofj expenditure --json" "$ofj trend weight --days 90" \
  "$ofj weight --days 3650 --json" "$ofj day"
