#!/usr/bin/env bash
# Drives `ofj mcp` with the official MCP Python SDK (PyPI `mcp`) as a real client, in the 2025
# (initialize) and 2026-07-28 (server/discover, input_required) eras, installing the SDK into a
# venv under /tmp when it is missing or too old to speak 2026-07-28 (tested with mcp 2.3.0).
# Usage: tools/mcp_client.sh [path to ofj]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
python="${PYTHON:-python3}"
venv="${OFJ_MCP_VENV:-/tmp/ofj-mcp-venv}"
ofj="${1:-$here/../.build/debug/ofj}"
# Both eras: the stdio client, the Client with its auto mode, and 2026-07-28 in its version table.
probe='import mcp.client.stdio; from mcp import Client; from mcp_types.version import MODERN_PROTOCOL_VERSIONS; assert "2026-07-28" in MODERN_PROTOCOL_VERSIONS'

if "$python" -c "$probe" 2>/dev/null; then
  client_python="$python"
else
  if ! "$venv/bin/python" -c "$probe" 2>/dev/null; then
    echo "mcp_client: installing the MCP Python SDK into $venv" >&2
    [ -x "$venv/bin/python" ] || "$python" -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "mcp==2.3.0"
  fi
  client_python="$venv/bin/python"
fi
"$client_python" "$here/test_mcp.py" "$ofj"
