#!/usr/bin/env bash
# Renders `ofj report` in a real browser and checks the picture: a small journal (30 days, two
# without entries, one whose entries lack calories) in a scratch OFJ_HOME, `ofj report` for it,
# headless Chromium (Debian's `chromium`, installed here when missing) to a PNG, and
# tools/check_report_png.py on the PNG (size, not blank, energy bars and goal line drawn).
# Usage: tools/report-render.sh [OFJ_BINARY] [OUT_DIR]   (part of `make test`; a few seconds)
set -euo pipefail
cd "$(dirname "$0")/.."
ofj=${1:-.build/debug/ofj}
if [ -n "${2:-}" ]; then out=$2; mkdir -p "$out"; else out=$(mktemp -d); trap 'rm -rf "$out"' EXIT; fi
width=820 height=1100
if ! command -v chromium >/dev/null; then
  echo "ofj: installing Debian package: chromium (for the report render test)" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >/dev/null
fi
home="$out/home"
rm -rf "$home" && mkdir -p "$home"
export OFJ_HOME="$home/data" HOME="$home" XDG_CONFIG_HOME="$home/config" OFJ_PROVIDER=offline
for d in $(seq 1 30); do
  day=$(printf '2026-10-%02d' "$d")
  case $d in
    9|17) continue ;;                                   # no entries: no bar
    23) "$ofj" log "Herbal tea" --kcal 0 --date "$day" >/dev/null    # a day of 0 kcal: a sliver, not a gap
        continue ;;
  esac
  "$ofj" log "Porridge" --kcal $((350 + d * 7)) --protein 12 --carbs 60 --fat 8 --nutrient fiber_g=6 --nutrient iron_mg=3 --date "$day" --meal breakfast >/dev/null
  "$ofj" log "Lentil stew" --kcal $((700 + (d * 53) % 600)) --protein 30 --carbs 80 --fat 20 --nutrient fiber_g=12 --date "$day" --meal dinner >/dev/null
done
"$ofj" report --from 2026-10-01 --to 2026-10-30 -o "$out/report.html" >/dev/null
if grep -qiE '<script|https?://|src=' "$out/report.html"; then echo "report.html has a script or a network reference" >&2; exit 1; fi
# A fresh profile, no network: the report must render from the file alone.
timeout 60 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run --disable-extensions \
  --user-data-dir="$out/profile" --proxy-server="127.0.0.1:9" --force-device-scale-factor=1 \
  --window-size="$width,$height" --screenshot="$out/report.png" "file://$out/report.html" >"$out/chromium.log" 2>&1 || {
  tail -5 "$out/chromium.log" >&2; echo "chromium failed" >&2; exit 1; }
python3 tools/check_report_png.py "$out/report.png" "$width" "$height"
