#!/usr/bin/env bash
# swift-format in lint mode over Sources and Tests with the checked-in .swift-format: every rule
# the config enables is enforced; exits 1 on any finding. The pretty printer's layout findings
# (Indentation, AddLines, RemoveLine, Spacing, TrailingComma, LineLength, EndOfLineComment) are
# not: the code aligns continuation lines by hand, which no swift-format option expresses, and
# enforcing them would mean reformatting the whole tree. TrailingWhitespace stays enforced.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
out=$(swift-format lint --strict --parallel --recursive Sources Tests 2>&1)
findings=$(grep -E '^[^ ]+:[0-9]+:[0-9]+: (error|warning): \[' <<<"$out" \
  | grep -vE ': \[(Indentation|AddLines|RemoveLine|Spacing|TrailingComma|LineLength|EndOfLineComment)\] ')
# Anything else swift-format says (an unparsable file, an unknown rule in the config) is a finding too.
other=$(grep -vE '^[^ ]+:[0-9]+:[0-9]+: (error|warning): \[' <<<"$out" | grep -v '^$')
if [ -n "$findings$other" ]; then
  printf '%s\n' "$findings" "$other" | grep -v '^$' | head -50
  echo "swift-format: $(printf '%s\n' "$findings" "$other" | grep -vc '^$') finding(s)"
  exit 1
fi
echo "swift-format: no findings"
