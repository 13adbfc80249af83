#!/usr/bin/env bash
# Drives `ofj mcp` with the official MCP Python SDK (PyPI `mcp`) as a real client, installing the
# SDK into a venv under /tmp when it is missing. Usage: tools/mcp_client.sh [path to ofj]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
python="${PYTHON:-python3}"
venv="${OFJ_MCP_VENV:-/tmp/ofj-mcp-venv}"
ofj="${1:-$here/../.build/debug/ofj}"

if "$python" -c "import mcp.client.stdio" 2>/dev/null; then
  client_python="$python"
else
  if ! "$venv/bin/python" -c "import mcp.client.stdio" 2>/dev/null; then
    echo "mcp_client: installing the MCP Python SDK into $venv" >&2
    "$python" -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check mcp
  fi
  client_python="$venv/bin/python"
fi
"$client_python" "$here/test_mcp.py" "$ofj"
