#!/usr/bin/env bash
# Runs the local Turso server's own protocol tests, then its compatibility test against the official
# `libsql` Python client, installing libsql from PyPI into a venv under /tmp when it is missing.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
python="${PYTHON:-python3}"
venv="${OFJ_LIBSQL_VENV:-/tmp/ofj-libsql-venv}"

"$python" "$here/test_turso_server.py"

if "$python" -c "import libsql" 2>/dev/null; then
  compat_python="$python"
else
  if ! "$venv/bin/python" -c "import libsql" 2>/dev/null; then
    echo "turso_compat: installing the libsql client into $venv" >&2
    "$python" -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check libsql
  fi
  compat_python="$venv/bin/python"
fi
"$compat_python" "$here/test_turso_compat.py"
