#!/usr/bin/env bash
# Secrets and content sweep (RELIABILITY.md "Secrets and content sweep").
#
# Plants an API key in the credentials file, another in the environment, a Turso token, a food
# named ZEBRA-PLANTED-FOOD and a message text QUOKKA-PLANTED-MESSAGE; runs a session: the REPL
# on a pseudo-terminal (history on) with --record, `ofj ask` runs, a loopback provider that
# answers 401 and quotes the key, bad input, doctor, diag flush to tools/turso_server.py, backup
# and CSV exports. Then searches every file and every byte of output:
# - keys and the Turso token: nowhere (database, WAL, history, outbox, sink, exports, recording,
#   stdout/stderr of every command, server logs);
# - journal content: only in the database, the backup/CSV exports and the recording the person
#   asked for — never in the outbox, the sink, diag output, doctor or error output.
# Exits non-zero on a leak. Usage: tools/secret-sweep.sh [OFJ_BINARY] (default .build/debug/ofj)
set -uo pipefail
cd "$(dirname "$0")/.."
OFJ=$(realpath "${1:-.build/debug/ofj}")
[ -x "$OFJ" ] || { echo "build first: swift build"; exit 1; }
work=$(mktemp -d /tmp/ofj-sweep.XXXXXX)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
[ -n "${KEEP:-}" ] && trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; echo "kept $work"' EXIT

KEY_FILE=sk-PLANTEDfilekey7Q2w9E4r6T8y0U1i3O5p
KEY_ENV=AIzaPLANTEDenvkeyZ9x8C7v6B5n4M3
TURSO_TOKEN=PLANTEDtursotokenQwErTy123456789
FOOD=ZEBRA-PLANTED-FOOD
MESSAGE=QUOKKA-PLANTED-MESSAGE
# Attachments (issue 19): a string in a PNG's metadata (tEXt chunk), one inside a PDF, and one in
# the files' names. Bytes and names must reach only the database (and the provider they are sent to).
IMAGE_TEXT=PLATYPUS-PLANTED-IMAGE
PDF_TEXT=NARWHAL-PLANTED-PDF
FILE_NAME=OKAPI-PLANTED-NAME
out=$work/out          # every command's stdout and stderr, one file each
mkdir -p "$out" "$work/config/ofj"

# The Turso-compatible sink, tracing every request body it receives.
python3 tools/turso_server.py --port 0 --db "$work/sink.sqlite" --token "$TURSO_TOKEN" --trace \
  > "$work/turso.port" 2> "$work/turso.trace" &
pids+=($!)
# A provider that refuses the key and quotes it back, as some real ones do.
cat > "$work/deny.py" <<'PY'
import json, sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
class H(BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        key = (self.headers.get("Authorization") or "").removeprefix("Bearer ")
        body = json.dumps({"error": {"message": f"Incorrect API key provided: {key}. You can find your API key at https://platform.openai.com/account/api-keys.",
                                     "type": "invalid_request_error", "code": "invalid_api_key"}}).encode()
        self.send_response(401); self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body))); self.end_headers(); self.wfile.write(body)
s = ThreadingHTTPServer(("127.0.0.1", 0), H); print(s.server_address[1], flush=True); s.serve_forever()
PY
python3 "$work/deny.py" > "$work/deny.port" &
pids+=($!)
python3 tools/bench/fake_openai.py > "$work/fake.port" &
pids+=($!)
for f in turso deny fake; do for _ in $(seq 100); do [ -s "$work/$f.port" ] && break; sleep 0.1; done; done
turso_port=$(head -1 "$work/turso.port"); deny_port=$(head -1 "$work/deny.port"); fake_port=$(head -1 "$work/fake.port")

export HOME=$work OFJ_HOME=$work/data XDG_CONFIG_HOME=$work/config XDG_STATE_HOME=$work/state LANG=C.UTF-8 TERM=xterm
export OFJ_PROVIDER=offline GEMINI_API_KEY=$KEY_ENV
export TURSO_DATABASE_URL=http://127.0.0.1:$turso_port TURSO_AUTH_TOKEN=$TURSO_TOKEN
printf 'OPENAI_API_KEY=%s\n' "$KEY_FILE" > "$work/config/ofj/credentials"
chmod 600 "$work/config/ofj/credentials"
deny=(env OFJ_PROVIDER=openai OFJ_MODEL=gpt-4o-mini OPENAI_BASE_URL="http://127.0.0.1:$deny_port/v1")
fake=(env OFJ_PROVIDER=openai OFJ_MODEL=gpt-4o-mini OPENAI_BASE_URL="http://127.0.0.1:$fake_port/v1")

n=0
run() { # run NAME CMD...: stdout/stderr kept under $out
  local name=$1; shift
  n=$((n + 1))
  "$@" > "$out/$n-$name.stdout" 2> "$out/$n-$name.stderr" < /dev/null
  echo "$?" > "$out/$n-$name.status"
}

run log-food "$OFJ" log "$FOOD" --kcal 321 --protein 12 --meal lunch
run ask-log "$OFJ" ask --yes "log 2 eggs for breakfast"
run ask-message "$OFJ" ask "I had a banana $MESSAGE"
run ask-json "$OFJ" ask --json "what did I eat today"
run ask-record "$OFJ" ask --yes --record "$work/ask.ofjt" "log 150g greek yogurt as a snack"
run ask-401 "${deny[@]}" "$OFJ" ask "how much protein $MESSAGE"
run ask-401-json "${deny[@]}" "$OFJ" ask --json "what about $FOOD"
run ask-fake "${fake[@]}" "$OFJ" ask "How am I doing today? $MESSAGE"
# Attachments: a label PNG with planted metadata and a PDF, sent to the fake provider and to the
# one that refuses the key; refused by the offline assistant; a truncated PNG; a missing file.
mkdir -p "$work/pics"
python3 - "$work/pics" "$IMAGE_TEXT" "$PDF_TEXT" "$FILE_NAME" <<'PY'
import struct, sys, zlib
folder, image_text, pdf_text, name = sys.argv[1:5]
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff)
png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))
       + chunk(b"tEXt", b"Comment\0" + image_text.encode()) + chunk(b"IDAT", zlib.compress(b"\0\xff\xff\xff")) + chunk(b"IEND", b""))
open(f"{folder}/{name}-label.png", "wb").write(png)
open(f"{folder}/{name}-cut.png", "wb").write(png[:-20])
pdf = f"%PDF-1.4\n1 0 obj << /Title ({pdf_text}) >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n".encode()
open(f"{folder}/{name}-menu.pdf", "wb").write(pdf)
PY
label="$work/pics/$FILE_NAME-label.png"
menu="$work/pics/$FILE_NAME-menu.pdf"
run ask-attach-fake "${fake[@]}" "$OFJ" ask "read this label" --attach "$label" --attach "$menu"
run ask-attach-401 "${deny[@]}" "$OFJ" ask "read this label" --attach "$label"
run bad-attach-offline "$OFJ" ask "read this label" --attach "$label"
run bad-attach-cut "${fake[@]}" "$OFJ" ask "read this label" --attach "$work/pics/$FILE_NAME-cut.png"
run bad-attach-missing "${fake[@]}" "$OFJ" ask "read this label" --attach "$work/pics/$FILE_NAME-missing.png"
run bad-attach-dir "${fake[@]}" "$OFJ" ask "read this label" --attach "$work/pics"

# Error paths. Their arguments carry no planted text (an error may quote what was just typed),
# so any planted text in their output came from the database or the environment.
run bad-kcal "$OFJ" log "Plain name" --kcal -5
run bad-nutrient "$OFJ" log "Plain name" --kcal 5 --nutrient "zebra_mg=7"
run bad-date "$OFJ" day 2026-02-30
run bad-thread "$OFJ" ask --thread no-such-thread hi
run bad-entry "$OFJ" log --food nothing-like-it
run bad-import "$OFJ" backup import "$work/config/ofj/credentials"
run bad-provider "$OFJ" ask --provider nosuch hi
run bad-key-anthropic env OFJ_PROVIDER=anthropic "$OFJ" ask hi
run doctor "$OFJ" doctor
run doctor-401 "${deny[@]}" "$OFJ" doctor
run foods "$OFJ" foods ZEBRA
run day "$OFJ" day
run backup "$OFJ" backup export -o "$work/backup.json"
run csv "$OFJ" export csv -o "$work/entries.csv"

# The REPL on a pseudo-terminal (libedit, so the history file is written), recorded.
cat > "$work/drive_repl.py" <<'PY'
import os, pty, select, sys, time
lines = sys.argv[2].split("\x1f")
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], [sys.argv[1]] + sys.argv[3:])
buf = b""
def read_until(needle, timeout=60):
    global buf
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        r, _, _ = select.select([fd], [], [], 0.05)
        if r:
            try: data = os.read(fd, 65536)
            except OSError: return False
            if not data: return False
            buf += data
            if needle in buf: return True
    return False
read_until(b"\xe2\x80\xba ")           # the prompt
for line in lines:
    mark = len(buf)
    os.write(fd, line.encode() + b"\r")
    time.sleep(0.2)
    if line.startswith("/exit"): break
    # Wait for the next prompt (or an approval question, answered by the next line).
    end = time.monotonic() + 60
    while time.monotonic() < end:
        if not read_until(b"", 0.2): pass
        tail = buf[mark:]
        if tail.count(b"\xe2\x80\xba ") >= 1 and (b"\n" in tail) or b"[y]es" in tail: break
read_until(b"\x00", 3)
_, status = os.waitpid(pid, 0)
sys.stdout.buffer.write(buf)
sys.exit(os.waitstatus_to_exitcode(status))
PY
repl_lines="log 2 eggs for breakfast"$'\x1f'"y"$'\x1f'"I had $FOOD for lunch, $MESSAGE"$'\x1f'"/foods ZEBRA"$'\x1f'"/threads"$'\x1f'"/threads $MESSAGE"$'\x1f'"/day"$'\x1f'"/usage"$'\x1f'"/context"$'\x1f'"/diag"$'\x1f'"/provider openai"$'\x1f'"/exit"
run repl python3 "$work/drive_repl.py" "$OFJ" "$repl_lines" --record "$work/repl.ofjt"
run repl-401 "${deny[@]}" python3 "$work/drive_repl.py" "$OFJ" "what about $MESSAGE"$'\x1f'"/exit"
# Thread exports and full-text search (issue 22): the person's own conversation, never a key.
sweep_thread=$(sqlite3 "$work/data/ofj.sqlite" "SELECT m.thread_id FROM agent_messages m JOIN agent_message_parts p ON p.message_id = m.id WHERE p.body LIKE '%$FOOD%' AND p.body LIKE '%$MESSAGE%' LIMIT 1")
run thread-md "$OFJ" threads export "$sweep_thread" --format md -o "$work/thread.md"
run thread-json "$OFJ" threads export "$sweep_thread" --format json -o "$work/thread.json"
run search "$OFJ" search "$MESSAGE"
run search-json "$OFJ" search "$FOOD" --json
run diag-status "$OFJ" diag status
run diag-export-local "$OFJ" diag export --local -o "$work/diag-local.csv"
run diag-flush "$OFJ" diag flush
run diag-export "$OFJ" diag export -o "$work/diag-export.jsonl"
sleep 0.5

# SWEEP_SELFTEST=1 plants a leak in an error output, to show that the checks catch one.
[ -n "${SWEEP_SELFTEST:-}" ] && echo "ofj: failed for $FOOD with $KEY_FILE" > "$out/99-selftest.stderr"

# ---- checks
leaks=0
leak() { echo "LEAK: $*"; leaks=$((leaks + 1)); }
sqlite3 "$OFJ_HOME/ofj.sqlite" "PRAGMA wal_checkpoint(FULL)" > /dev/null
sqlite3 "$OFJ_HOME/ofj.sqlite" ".dump diagnostics_outbox" > "$work/outbox.sql"
sqlite3 "$work/sink.sqlite" ".dump" > "$work/sink.sql" 2>/dev/null || : > "$work/sink.sql"
delivered=$(grep -c "INSERT INTO" "$work/sink.sql")
outbox_rows=$(grep -c "INSERT INTO" "$work/outbox.sql")

# Keys: nowhere at all (the credentials file itself excepted).
for secret in "$KEY_FILE" "$KEY_ENV" "$TURSO_TOKEN" "${KEY_FILE:3:20}" "${KEY_ENV:4:20}" "${TURSO_TOKEN:7:20}"; do
  while IFS= read -r f; do
    [ "$f" = "$work/config/ofj/credentials" ] && continue
    leak "secret '${secret:0:12}…' in ${f#$work/}"
  done < <(grep -rlaF -- "$secret" "$work" 2>/dev/null)
done

# Journal content: only where the person's own data belongs.
allowed_content() {
  case "$1" in
    "$work/data/"*|"$work/backup.json"|"$work/entries.csv"|"$work/ask.ofjt"|"$work/repl.ofjt"|"$work/state/ofj/history") return 0 ;;
    "$work/thread.md"|"$work/thread.json"|"$out/"*-search.stdout|"$out/"*-search-json.stdout) return 0 ;;
    # What the person typed or asked to see, on their own terminal (answers, /foods, day views).
    "$out/"*-log-food.stdout|"$out/"*-foods.stdout|"$out/"*-day.stdout|"$out/"*-repl.stdout|"$out/"*-repl-401.stdout) return 0 ;;
    "$out/"*-ask-*.stdout) return 0 ;;
    # The messages sent to the person's own provider.
    "$work/fake.port"|"$work/deny.py"|"$work/drive_repl.py") return 0 ;;
  esac
  return 1
}
for secret in "$FOOD" "$MESSAGE" "ZEBRA" "QUOKKA"; do
  while IFS= read -r f; do
    allowed_content "$f" && continue
    leak "journal content '$secret' in ${f#$work/}"
  done < <(grep -rlaF -- "$secret" "$work" 2>/dev/null | grep -v "/outbox.sql$\|/sink.sql$")
  grep -qaF -- "$secret" "$work/outbox.sql" && leak "journal content '$secret' in the diagnostics outbox"
  grep -qaF -- "$secret" "$work/sink.sql" && leak "journal content '$secret' in the Turso sink"
done
# Attachment bytes and names: only in the database. The fake provider's port file and the
# attachments folder hold them by construction; error lines and diagnostics must not.
for secret in "$IMAGE_TEXT" "$PDF_TEXT" "$FILE_NAME"; do
  while IFS= read -r f; do
    case "$f" in "$work/data/"*|"$work/pics/"*) continue ;; esac
    leak "attachment content or name '$secret' in ${f#$work/}"
  done < <(grep -rlaF -- "$secret" "$work" 2>/dev/null | grep -v "/outbox.sql$\|/sink.sql$")
  grep -qaF -- "$secret" "$work/outbox.sql" && leak "attachment content or name '$secret' in the diagnostics outbox"
  grep -qaF -- "$secret" "$work/sink.sql" && leak "attachment content or name '$secret' in the Turso sink"
done
# Inside the database the PNG is stored as it was (its metadata string readable in the blob).
grep -qaF -- "$IMAGE_TEXT" "$work/data/ofj.sqlite" "$work/data/ofj.sqlite-wal" 2>/dev/null \
  || { echo "MISSING: the attached PNG is not in the database (the attach run did not work)"; leaks=$((leaks + 1)); }
grep -qaF -- "$PDF_TEXT" "$work/data/ofj.sqlite" "$work/data/ofj.sqlite-wal" 2>/dev/null \
  || { echo "MISSING: the attached PDF is not in the database"; leaks=$((leaks + 1)); }

# Where content must be (or the sweep tested nothing).
for f in "$work/backup.json" "$work/entries.csv" "$work/repl.ofjt" "$work/thread.md" "$work/thread.json"; do
  grep -qaF -- "$FOOD" "$f" || { echo "MISSING: $FOOD not in ${f#$work/} (the session did not run as planned)"; leaks=$((leaks + 1)); }
done
grep -qaF -- "$MESSAGE" "$work/state/ofj/history" || { echo "MISSING: $MESSAGE not in the history file"; leaks=$((leaks + 1)); }
grep -qaF "ofj: " "$out/"*-ask-401.stderr || { echo "MISSING: no error line for the 401"; leaks=$((leaks + 1)); }
# Error output is one line per failure.
for f in "$out"/*-bad-*.stderr "$out"/*-ask-401.stderr; do
  [ "$(wc -l < "$f")" -le 1 ] || { echo "NOT ONE LINE: ${f#$out/}: $(head -c 300 "$f")"; leaks=$((leaks + 1)); }
done

echo "commands run: $n; outbox rows: $outbox_rows; rows delivered to the sink: $delivered"
for f in "$out"/*-ask-401.stderr "$out"/*-bad-*.stderr; do printf '  %-22s %s\n' "$(basename "$f" .stderr)" "$(head -c 200 "$f")"; done
[ "$leaks" -eq 0 ] && echo "secret sweep: no leaks" || echo "secret sweep: $leaks problem(s)"
exit $(( leaks > 0 ))
