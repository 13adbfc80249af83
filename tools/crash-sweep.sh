#!/usr/bin/env bash
# Crash sweep: for every fault point, run a write turn ("log 2 eggs for breakfast" through the
# offline assistant, approved with --yes) in a process that SIGKILLs itself at that point, start
# ofj again and /continue the suspended run, then check: the user's message is kept, the write
# happened exactly once (journal rows and ledger rows), the run ended completed, and
# PRAGMA integrity_check is ok. Then undo after the crash: `ofj undo` killed inside its
# transaction changes nothing, `ofj undo --yes` removes the entry (its before-image was committed
# with the write), and undoing that undo puts it back. Last, an attached file: `ofj ask --attach`
# against a loopback OpenAI-compatible server, killed at `attachment_save` (after the request, while
# the file is stored in the background): the message keeps a placeholder that says "not saved",
# attaching the file again stores it once, and deleting the thread leaves no file behind.
# Usage: tools/crash-sweep.sh [ROUNDS] (default 3 per point; `make test` runs 1).
set -uo pipefail
cd "$(dirname "$0")/.."
ofj=${OFJ_BIN:-.build/debug/ofj}
rounds=${1:-3}
points="run_started before_model_request after_first_text_delta after_model_turn after_read_result before_approval after_approval inside_write_transaction after_write_commit before_finalize"
fail=0; runs=0
for point in $points; do
  for round in $(seq 1 "$rounds"); do
    home=$(mktemp -d)
    { (OFJ_HOME=$home OFJ_PROVIDER=offline OFJ_FAULT=$point exec "$ofj" ask --yes "log 2 eggs for breakfast" >/dev/null 2>&1); } 2>/dev/null
    killed=$?
    db=$home/ofj.sqlite
    q() { sqlite3 "$db" "$1"; }
    # Resume the interrupted run as a person would: /continue, answering "y" when the write was
    # not committed yet (the card is shown again). Nothing is resumed when the point was not reached.
    answers='/continue\n'
    [ "$(q "SELECT count(*) FROM agent_ledger")" = 0 ] && answers='/continue\ny\n'
    printf "$answers" | OFJ_HOME=$home OFJ_PROVIDER=offline "$ofj" --resume >/dev/null 2>&1
    entries=$(q "SELECT count(*) FROM journal_entries")
    ledger=$(q "SELECT count(*) FROM agent_ledger WHERE outcome = 'committed'")
    users=$(q "SELECT count(*) FROM agent_messages m JOIN agent_message_parts p ON p.message_id = m.id WHERE m.role = 'user' AND p.body LIKE '%log 2 eggs for breakfast%'")
    phase=$(q "SELECT phase FROM agent_runs ORDER BY created_at LIMIT 1")
    integrity=$(q "PRAGMA integrity_check")
    # Undo after the crash: killed inside the undo's transaction (nothing changes), then undone,
    # then the undo undone.
    { (OFJ_HOME=$home OFJ_FAULT=inside_undo_transaction exec "$ofj" undo --yes </dev/null >/dev/null 2>&1); } 2>/dev/null
    after_kill=$(q "SELECT count(*) FROM journal_entries")
    OFJ_HOME=$home "$ofj" undo --yes </dev/null >/dev/null 2>&1
    undone=$(q "SELECT count(*) FROM journal_entries")
    OFJ_HOME=$home "$ofj" undo --yes </dev/null >/dev/null 2>&1
    redone=$(q "SELECT count(*) FROM journal_entries")
    steps=$(q "SELECT count(*) FROM journal_undo_steps")
    undo_integrity=$(q "PRAGMA integrity_check")
    runs=$((runs + 1))
    if [ "$entries" != 1 ] || [ "$ledger" != 1 ] || [ "$users" != 1 ] || [ "$phase" != completed ] || [ "$integrity" != ok ]; then
      echo "FAIL $point round $round (exit $killed): entries=$entries ledger=$ledger user_messages=$users phase=$phase integrity=$integrity"
      fail=$((fail + 1))
    elif [ "$after_kill" != 1 ] || [ "$undone" != 0 ] || [ "$redone" != 1 ] || [ "$steps" != 3 ] || [ "$undo_integrity" != ok ]; then
      echo "FAIL undo after $point round $round: after_killed_undo=$after_kill undone=$undone redone=$redone undo_steps=$steps integrity=$undo_integrity"
      fail=$((fail + 1))
    fi
    rm -rf "$home"
  done
  echo "point $point: $rounds rounds"
done

# Killed while an attached file is stored in the background.
work=$(mktemp -d)
python3 tools/bench/fake_openai.py --port 0 > "$work/port" &
server=$!
for _ in $(seq 50); do [ -s "$work/port" ] && break; sleep 0.1; done
python3 - "$work/photo.jpg" <<'PY'
import os, sys
with open(sys.argv[1], "wb") as f:
    f.write(b"\xff\xd8\xff\xe0" + os.urandom(1_000_000) + b"\xff\xd9")
PY
sha=$(sha256sum "$work/photo.jpg" | cut -d' ' -f1)
for round in $(seq 1 "$rounds"); do
  home=$(mktemp -d)
  db=$home/ofj.sqlite
  q() { sqlite3 "$db" "$1"; }
  o() { OFJ_HOME=$home OPENAI_API_KEY=k OPENAI_BASE_URL="http://127.0.0.1:$(head -1 "$work/port")/v1" "$ofj" "$@"; }
  { (OFJ_FAULT=attachment_save o ask --provider openai --model gpt-4.1 "log this" --attach "$work/photo.jpg" >/dev/null 2>&1); } 2>/dev/null
  killed=$?
  thread=$(q "SELECT id FROM agent_threads LIMIT 1")
  placeholders=$(q "SELECT count(*) FROM attachments WHERE remote = 2 AND bytes IS NULL")
  shown=$(o threads show "$thread" 2>&1 | grep -c "not saved (ofj stopped while saving it)")
  o ask --thread "$thread" --provider openai --model gpt-4.1 "here it is again" --attach "$work/photo.jpg" >/dev/null 2>&1
  stored=$(q "SELECT count(*) FROM attachments WHERE sha256 = '$sha' AND remote = 0 AND length(bytes) = 1000006")
  integrity=$(q "PRAGMA integrity_check")
  o threads delete "$thread" --yes >/dev/null 2>&1
  left=$(q "SELECT count(*) FROM attachments")
  runs=$((runs + 1))
  if [ "$killed" != 137 ] || [ "$placeholders" != 1 ] || [ "$shown" != 1 ] || [ "$stored" != 1 ] || [ "$integrity" != ok ] || [ "$left" != 0 ]; then
    echo "FAIL attachment_save round $round: exit=$killed placeholders=$placeholders shown=$shown stored=$stored integrity=$integrity left=$left"
    fail=$((fail + 1))
  fi
  rm -rf "$home"
done
kill $server 2>/dev/null
rm -rf "$work"
echo "point attachment_save: $rounds rounds"
echo "crash sweep: $((runs - fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
