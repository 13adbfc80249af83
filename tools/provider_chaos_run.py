#!/usr/bin/env python3
"""Provider chaos harness (run through tools/provider-chaos.sh [TURNS] [SEED]).

Starts tools/chaos_provider.py on loopback, then for each turn runs
`ofj ask --yes --provider P --model chaos-model "log chaos food NNNN for lunch"`, rotating
through five providers (openrouter: Chat Completions; anthropic: Messages; gemini; openai:
Responses; azure: Responses on the Azure route), all on one OFJ_HOME. A failed turn is asked
again like a person would, up to three more times, choosing per turn (seeded) between:
- "same thread": reopen the thread (what `ofj --resume` opens) and ask again there
  (`ofj ask --thread ID`); a person does this because the error line says "Ask again";
- "new ask": run the same `ofj ask` again (a new thread), but only when nothing on screen said
  the food was logged (a person does not ask again for what they saw done);
- "ctrl-c": press Ctrl-C (SIGINT) when an ask shows no result after 4 s (a stall), then
  `ofj --resume` and `/continue`, answering `y` to the approval card if it appears; if that
  does not finish the turn, go on as "same thread".

Checks, all of which must hold:
- no crash: every exit status is 0 or 1 (the documented ones for these runs), never a signal;
- every failure is exactly one line on stderr, starting "ofj: ", with no raw transport, JSON,
  Foundation or libcurl text, no stack trace, no key and no prompt text; a success prints nothing
  on stderr; keys never appear on stdout either;
- no duplicate writes: at most one journal entry per turn's food, exactly one committed ledger row
  per entry (and none without its entry), and every entry's tool result reached the model (the
  server saw it) while the server never saw a result for an entry that does not exist;
- the server never saw a history a real provider would refuse (tool calls without results...);
- PRAGMA integrity_check is ok.
Prints a summary (fault counts, outcomes) and writes it as JSON to <work dir>/summary.json.
"""

import json
import os
import random
import re
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROVIDERS = ["openrouter", "anthropic", "gemini", "openai", "azure"]
KEYS = {
    "OPENROUTER_API_KEY": "sk-chaos-or-5d41402abc4b2a76b9719d91",
    "ANTHROPIC_API_KEY": "sk-chaos-an-7d793037a0760186574b0282",
    "GEMINI_API_KEY": "sk-chaos-ge-9e107d9d372bb6826bd81d35",
    "OPENAI_API_KEY": "sk-chaos-oa-e4d909c290d0fb1ca068ffad",
    "AZURE_OPENAI_API_KEY": "sk-chaos-az-45c48cce2e2d7fbdea1afc51",
}
# Text that must never reach the person's terminal as an error line.
RAW = [re.compile(p) for p in [
    r"sk-chaos", r"chaos food", r"[{}\[\]]\s*\"", r"\"\w+\"\s*:", r"\\u[0-9a-fA-F]{4}",
    r"Error Domain", r"NSError", r"NSURLError", r"Foundation\.", r"Swift\.", r"Fatal error", r"Optional\(",
    r"CURLE_", r"[Cc]url", r"Recv failure", r"Send failure", r"Failed to connect", r"Couldn't", r"after \d+ ms",
    r"errno", r"Connection reset by peer", r"Operation timed out",
    r"^\s*#\d+ ", r"\bat 0x[0-9a-f]+", r"Backtrace", r"\.swift:\d+",
    r"HTTPError\.", r"ChatError", r"DecodingError", r"ProviderStreamError", r"DeadlineExpired",
]]


def ofj_env(work, port):
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "LC_ALL", "TMPDIR")}
    env.update({
        "HOME": work, "OFJ_HOME": f"{work}/home", "XDG_CONFIG_HOME": f"{work}/config", "XDG_STATE_HOME": f"{work}/state",
        "XDG_DATA_HOME": f"{work}/data", "NO_COLOR": "1", "TZ": "UTC",
        "OPENROUTER_BASE_URL": f"http://127.0.0.1:{port}/api/v1",
        "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{port}/v1",
        "GEMINI_BASE_URL": f"http://127.0.0.1:{port}/v1beta",
        "AZURE_OPENAI_ENDPOINT": f"http://127.0.0.1:{port}",
    })
    env.update(KEYS)
    os.makedirs(f"{work}/config/ofj", exist_ok=True)
    # OPENAI_BASE_URL would switch openai to Chat Completions; config.json keeps it on Responses.
    with open(f"{work}/config/ofj/config.json", "w") as f:
        json.dump({"providers": {"openai": {"base_url": f"http://127.0.0.1:{port}/v1", "wire": "responses"}}}, f)
    return env


def run_ofj(ofj, env, args, interrupt_after=None):
    """Runs ofj; with `interrupt_after`, presses Ctrl-C (SIGINT) if it is still running then."""
    start = time.monotonic()
    p = subprocess.Popen([ofj] + args, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    interrupted = False
    if interrupt_after is not None:
        try:
            p.wait(timeout=interrupt_after)
        except subprocess.TimeoutExpired:
            p.send_signal(signal.SIGINT)
            interrupted = True
    out, err = p.communicate(timeout=600)
    return {"rc": p.returncode, "out": out.decode("utf-8", "replace"), "err": err.decode("utf-8", "replace"),
            "secs": round(time.monotonic() - start, 2), "interrupted": interrupted}


def latest_run_phase(db_path):
    con = sqlite3.connect(db_path, timeout=5)
    try:
        row = con.execute("SELECT r.id, r.phase FROM agent_runs r JOIN agent_threads t ON t.id = r.thread_id "
                          "ORDER BY t.updated_at DESC, t.id, r.created_at DESC, r.rowid DESC LIMIT 1").fetchone()
        return row if row else (None, None)
    except sqlite3.OperationalError:
        return (None, None)  # busy: ask again at the next poll
    finally:
        con.close()


def resume_and_continue(ofj, env, db_path, provider):
    """What a person does after Ctrl-C: `ofj --resume`, then `/continue`, answering `y` when the
    approval card appears; `/exit` once the answer ended. Driven through pipes (the REPL reads
    plain lines when stdin is not a terminal); the run's phase in the database says when."""
    start = time.monotonic()
    p = subprocess.Popen([ofj, "--resume", "--provider", provider, "--model", "chaos-model"], env=env,
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    # Read the output as it comes, so a full pipe never blocks the REPL while we poll.
    chunks = {"out": [], "err": []}
    readers = [threading.Thread(target=lambda f=f, k=k: chunks[k].extend(iter(lambda: f.read1(65536), b"")), daemon=True)
               for f, k in ((p.stdout, "out"), (p.stderr, "err"))]
    for r in readers:
        r.start()
    run_id, phase = latest_run_phase(db_path)
    p.stdin.write(b"/continue\n")
    p.stdin.flush()
    answered, went_active, approvals = set(), False, 0
    while time.monotonic() - start < 120 and p.poll() is None:
        time.sleep(0.1)
        rid, phase = latest_run_phase(db_path)
        if rid != run_id:
            break  # something else started; should not happen
        if phase in ("queued", "preparing", "waiting_for_provider", "executing_tools", "awaiting_approval", "finalizing"):
            went_active = True
        if phase == "awaiting_approval" and approvals not in answered:
            answered.add(approvals)
            approvals += 1
            p.stdin.write(b"y\n")
            p.stdin.flush()
        elif went_active and phase in ("completed", "failed", "cancelled", "suspended"):
            break
    try:
        p.stdin.write(b"/exit\n")
        p.stdin.close()
    except OSError:
        pass
    try:
        p.wait(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
    for r in readers:
        r.join(timeout=10)
    out, err = b"".join(chunks["out"]), b"".join(chunks["err"])
    return {"rc": p.returncode, "out": out.decode("utf-8", "replace"), "err": err.decode("utf-8", "replace"),
            "secs": round(time.monotonic() - start, 2), "interrupted": False, "continued_phase": phase, "approvals": approvals}


def check_attempt(a):
    """Problems with one ofj invocation's exit status and output."""
    problems = []
    rc = a["rc"]
    if a.get("how") == "resume + /continue":
        # The REPL: it reports on stdout; it must exit 0 and never show a key or a crash.
        if a["real_rc"] != 0:
            problems.append(f"REPL exit status {a['real_rc']}")
        for text in (a["out"], a["err"]):
            for r in RAW[:1] + [re.compile(p) for p in (r"Fatal error", r"Backtrace", r"\.swift:\d+")]:
                if r.search(text):
                    problems.append(f"/{r.pattern}/ in the REPL output")
        return problems
    if a.get("interrupted"):
        if rc not in (0, 1, 130):
            problems.append(f"exit status {rc} after Ctrl-C")
        lines = [l for l in a["err"].split("\n") if l != ""]
        if len(lines) > 1:
            problems.append(f"{len(lines)} stderr lines after Ctrl-C: {lines[:4]!r}")
        return problems
    if rc < 0 or rc >= 128 or rc not in (0, 1):
        problems.append(f"exit status {rc}" + (f" (signal {signal.Signals(-rc).name})" if rc < 0 else ""))
    # A successful ask prints nothing on stderr, except the note --yes gives when it approved a
    # write after untrusted content (a search) was read: that note is the product telling the truth.
    lines = [l for l in a["err"].split("\n") if l != "" and not l.startswith("ofj: --yes approved ")]
    if rc == 0 and lines:
        problems.append(f"success with stderr: {lines[:3]!r}")
    if rc != 0:
        if len(lines) != 1:
            problems.append(f"{len(lines)} stderr lines: {lines[:4]!r}")
        for l in lines:
            if not l.startswith("ofj: "):
                problems.append(f"stderr line without 'ofj: ': {l[:200]!r}")
            for r in RAW:
                if r.search(l):
                    problems.append(f"raw text /{r.pattern}/ in: {l[:300]!r}")
    if "sk-chaos" in a["out"]:
        problems.append("a key on stdout")
    return problems


def latest_thread(db_path):
    con = sqlite3.connect(db_path)
    try:
        row = con.execute("SELECT id FROM agent_threads ORDER BY updated_at DESC, id LIMIT 1").fetchone()
        return row[0] if row else None
    finally:
        con.close()


def main():
    turns = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    ofj = os.environ.get("OFJ_BIN", f"{ROOT}/.build/debug/ofj")
    stall = os.environ.get("CHAOS_STALL", "25")
    keep = os.environ.get("CHAOS_KEEP") == "1"
    if not os.access(ofj, os.X_OK):
        print(f"provider-chaos: {ofj} not found; run swift build first", file=sys.stderr)
        return 2
    work = tempfile.mkdtemp(prefix="ofj-chaos-")
    log_path = f"{work}/server.jsonl"
    server = subprocess.Popen([sys.executable, f"{ROOT}/tools/chaos_provider.py", "--seed", str(seed), "--log", log_path, "--stall", stall]
                              + (["--only", os.environ["CHAOS_ONLY"]] if os.environ.get("CHAOS_ONLY") else []),
                              stdout=subprocess.PIPE, text=True)
    port = int(server.stdout.readline())
    env = ofj_env(work, port)
    db_path = f"{work}/home/ofj.sqlite"
    rng = random.Random(seed * 7919 + 17)
    attempts, problems = [], []
    started = time.monotonic()
    try:
        for t in range(1, turns + 1):
            provider = PROVIDERS[(t - 1) % len(PROVIDERS)]
            food = f"chaos food {t:04d}"
            prompt = f"log {food} for lunch"
            base = ["ask", "--yes", "--provider", provider, "--model", "chaos-model"]
            strategy = rng.choice(["same thread", "new ask", "ctrl-c"])
            # A person who sees nothing happen for a few seconds presses Ctrl-C (normal turns here
            # take about a second; stalls wait out 8-10 s deadlines).
            a = run_ofj(ofj, env, base + [prompt], interrupt_after=4 if strategy == "ctrl-c" else None)
            a.update(turn=t, provider=provider, attempt=1, how="ask")
            attempts.append(a)
            n = 1
            if a["interrupted"] and a["rc"] == 130:
                # ... and then resumes the interrupted answer.
                n += 1
                a = resume_and_continue(ofj, env, db_path, provider)
                a.update(turn=t, provider=provider, attempt=n, how="resume + /continue")
                attempts.append(a)
                logged = any(food == name for (name,) in sqlite3.connect(db_path).execute("SELECT name FROM journal_entries"))
                a["real_rc"] = a["rc"]
                a["rc"] = 0 if a["continued_phase"] == "completed" or logged else 1
            if strategy == "ctrl-c":
                strategy = "same thread"  # after Ctrl-C, or when no stall came, they go on in the thread
            while a["rc"] != 0 and n < 4:
                shown_logged = any(food in x["out"] and "logged" in x["out"].lower() for x in attempts if x["turn"] == t)
                if strategy == "new ask" and shown_logged:
                    break
                n += 1
                if strategy == "same thread":
                    thread = latest_thread(db_path)
                    a = run_ofj(ofj, env, base + ["--thread", thread, prompt])
                else:
                    a = run_ofj(ofj, env, base + [prompt])
                a.update(turn=t, provider=provider, attempt=n, how=strategy)
                attempts.append(a)
            if t % 20 == 0:
                ok = sum(1 for x in attempts if x["rc"] == 0)
                print(f"  turn {t}/{turns}: {len(attempts)} asks, {ok} succeeded, {time.monotonic() - started:.0f}s", flush=True)
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()

    for a in attempts:
        for p in check_attempt(a):
            problems.append(f"turn {a['turn']} attempt {a['attempt']} ({a['provider']}): {p}")

    requests = [json.loads(l) for l in open(log_path, encoding="utf-8")]
    con = sqlite3.connect(db_path)
    entries = con.execute("SELECT id, name FROM journal_entries").fetchall()
    ledger = con.execute("SELECT call_id, tool_name, outcome, result FROM agent_ledger").fetchall()
    integrity = con.execute("PRAGMA integrity_check").fetchone()[0]
    runs = dict(con.execute("SELECT phase, count(*) FROM agent_runs GROUP BY phase").fetchall())
    con.close()

    per_food = {}
    for eid, name in entries:
        per_food.setdefault(name, []).append(eid.upper())
    for name, ids in per_food.items():
        if len(ids) > 1:
            problems.append(f"duplicate write: {len(ids)} journal entries for {name!r}")
    entry_ids = {eid.upper() for eid, _ in entries}
    committed = [r for r in ledger if r[2] == "committed"]
    ledger_ids = []
    for call_id, tool, outcome, result in committed:
        m = re.search(r"[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}", result or "")
        ledger_ids.append(m.group(0).upper() if m else None)
    for eid in entry_ids:
        c = ledger_ids.count(eid)
        if c != 1:
            problems.append(f"journal entry {eid} has {c} committed ledger rows")
    for lid in ledger_ids:
        if lid not in entry_ids:
            problems.append(f"committed ledger row for {lid} without its journal entry")
    seen = {r["entry_id"] for q in requests for r in q["results"] if r.get("entry_id")}
    for eid in entry_ids - seen:
        problems.append(f"entry {eid} was written but its result never reached the model")
    for eid in seen - entry_ids:
        problems.append(f"the model was told entry {eid} was logged, but it is not in the journal")
    for q in requests:
        if q.get("invalid"):
            problems.append(f"request {q['request']} ({q['wire']}): history a provider would refuse: {q['invalid']}")
        if not q.get("key_sent"):
            problems.append(f"request {q['request']} ({q['wire']}) carried no key")
    if integrity != "ok":
        problems.append(f"integrity_check: {integrity}")

    faults = {}
    for q in requests:
        faults[q["fault"]] = faults.get(q["fault"], 0) + 1
    by_turn = {}
    for a in attempts:
        by_turn.setdefault(a["turn"], []).append(a)
    logged_turns = sum(1 for t in by_turn if f"chaos food {t:04d}" in per_food)
    first_try = sum(1 for t, xs in by_turn.items() if xs[0]["rc"] == 0)
    failure_lines = {}
    for a in attempts:
        if a["rc"] != 0 and a["how"] != "resume + /continue":
            line = re.sub(r"\d+(\.\d+)? s\b", "N s", a["err"].strip())
            failure_lines[line] = failure_lines.get(line, 0) + 1
    summary = {
        "turns": turns, "seed": seed, "asks": len(attempts), "model_requests": len(requests), "faults": faults,
        "asks_succeeded": sum(1 for a in attempts if a["rc"] == 0), "asks_failed": sum(1 for a in attempts if a["rc"] != 0),
        "turns_ok_first_try": first_try, "turns_logged": logged_turns, "journal_entries": len(entries),
        "committed_ledger_rows": len(committed), "runs_by_phase": runs, "integrity": integrity,
        "exit_codes": {str(k): sum(1 for a in attempts if a.get("real_rc", a["rc"]) == k) for k in sorted({a.get("real_rc", a["rc"]) for a in attempts})},
        "retries": {"same thread": sum(1 for a in attempts if a["how"] == "same thread"),
                    "new ask": sum(1 for a in attempts if a["how"] == "new ask"),
                    "ctrl-c then resume + /continue": sum(1 for a in attempts if a["how"] == "resume + /continue")},
        "failure_lines": dict(sorted(failure_lines.items(), key=lambda kv: -kv[1])),
        "seconds": round(time.monotonic() - started, 1), "problems": problems, "work": work,
    }
    with open(f"{work}/summary.json", "w") as f:
        json.dump({**summary, "attempts": attempts}, f, indent=1)
    print(f"provider chaos: {turns} turns, seed {seed}, {len(attempts)} asks, {len(requests)} model requests, {summary['seconds']} s")
    print("  faults injected: " + ", ".join(f"{k} {v}" for k, v in sorted(faults.items())))
    print(f"  asks: {summary['asks_succeeded']} succeeded, {summary['asks_failed']} failed (exit codes {summary['exit_codes']}); "
          f"retries: {summary['retries']}")
    print(f"  turns: {first_try} clean on the first try, {logged_turns} logged in the end; journal entries {len(entries)}, "
          f"committed ledger rows {len(committed)}; runs {runs}; integrity {integrity}")
    print("  failure lines seen:")
    for line, c in list(summary["failure_lines"].items())[:40]:
        print(f"    {c:4d}  {line[:220]}")
    if problems:
        print(f"  PROBLEMS ({len(problems)}):")
        for p in problems[:60]:
            print("    " + p)
        print(f"  details: {work}/summary.json")
        return 1
    print("  no problems")
    if not keep:
        subprocess.run(["rm", "-rf", work])
    return 0


if __name__ == "__main__":
    sys.exit(main())
