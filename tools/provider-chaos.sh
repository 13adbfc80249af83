#!/usr/bin/env bash
# Provider chaos: TURNS scripted write turns ("log chaos food N for lunch", approved with --yes)
# through `ofj ask` against tools/chaos_provider.py, a loopback server speaking Chat Completions,
# Anthropic Messages, Gemini and Responses that injects 429s, 500/503s, resets, stalls, truncated
# JSON, invalid UTF-8, oversized events and error events at random (seeded). Failed turns are
# asked again like a person would. Checks: no crash, one clear stderr line per failure, no
# duplicate writes (journal, ledger, what the model was told), valid histories, integrity.
# Usage: tools/provider-chaos.sh [TURNS (default 200)] [SEED (default 1)]
# Environment: OFJ_BIN (default .build/debug/ofj), CHAOS_STALL (longest stall, default 25 s),
# CHAOS_ONLY (comma-separated fault kinds), CHAOS_KEEP=1 keeps the work directory.
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 tools/provider_chaos_run.py "${1:-200}" "${2:-1}"
