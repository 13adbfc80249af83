#!/usr/bin/env bash
# Installs the Debian packages ofj needs to build and test, only when missing.
set -euo pipefail
need=()
for pkg in libsqlite3-dev libcurl4-openssl-dev libedit-dev sqlite3 python3 python3-venv; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
  echo "ofj: installing Debian packages: ${need[*]}" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
fi
command -v swift >/dev/null || { echo "ofj: the Swift toolchain is not on PATH (expected /opt/swift/usr/bin)" >&2; exit 1; }
