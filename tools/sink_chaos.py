#!/usr/bin/env python3
"""Sink chaos driver (run through tools/sink-chaos.sh): ofj produces diagnostics while the sink
(tools/turso_server.py behind tools/sink_chaos_proxy.py) is down, slow, failing or mad.

Workers while the proxy's schedule runs:
  - an `ofj ask --yes` loop (writes and reads with the offline assistant), each process timed;
  - one long REPL fed through a pipe (read-only questions), each turn timed until its status line;
  - a sampler of the outbox (rows and payload bytes) every 0.25 s;
  - `ofj diag status` now and then (what the user would see about the sink).
Then the sink recovers for good, `ofj diag flush` runs until the outbox is empty, and the checks run:
outbox never above its bound, every produced event delivered or counted as dropped, drop reports
add up, no duplicates, no token or raw error anywhere. Standard library only. Exit status 1 when
a check fails; the summary is printed as JSON.
"""

import argparse
import json
import os
import re
import signal
import sqlite3
import statistics
import subprocess
import sys
import threading
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
OUTBOX_MAX_EVENTS = 500  # DiagnosticsOutbox.Limits defaults
OUTBOX_MAX_BYTES = 2 << 20
# Looks like a real Turso token (a JWT); must never show up anywhere but the request header.
TOKEN = ("eyJhbGciOiJFZERTQSIsInR5cCI6IkpXVCJ9.eyJhIjoicnciLCJpYXQiOjE3MzI4MDAwMDAsImlkIjoic2luay1jaGFvcyJ9."
         "Q2hhb3NUb2tlblNpZ25hdHVyZVRoYXRNdXN0TmV2ZXJMZWFr")
TOKEN_PARTS = [TOKEN, TOKEN.split(".")[2], TOKEN.split(".")[1]]

ASK_PROMPTS = ["log 2 eggs for breakfast", "I had a banana", "what did I eat today",
               "how much protein did I have this week", "log 150g greek yogurt as a snack",
               "how much sodium today"]
REPL_PROMPTS = ["what did I eat today", "how much protein did I have this week", "how much sodium today",
                "which foods gave me the most sugar this month"]
# Error output a user may see: anything with these is a raw error leaking through.
RAW_PATTERNS = [r"<html", r"<!DOCTYPE", r"Traceback", r"Fatal error", r"HranaError", r"HTTPError\(", r"\{\"",
                r"CURLE_", r"errno", r"Bearer", r"nginx", r"cloudflare", r"\\u", r"Optional\("]


def now():
    return time.time()


class Run:
    def __init__(self, args):
        self.args = args
        self.dir = args.workdir
        os.makedirs(self.dir, exist_ok=True)
        self.home = os.path.join(self.dir, "home")
        os.makedirs(self.home, exist_ok=True)
        self.db = os.path.join(self.home, "ofj.sqlite")
        self.sink_db = os.path.join(self.dir, "sink.sqlite")
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.asks = []      # (mode, seconds, exit)
        self.turns = []     # (mode, wall seconds, reported seconds)
        self.flushes_timed = []  # (mode, seconds, exit) of `ofj diag flush`
        self.samples = []   # (t, rows, bytes)
        self.statuses = set()
        self.stderr_lines = []
        self.failures = []
        self.procs = []

    # MARK: processes

    def env(self, url):
        e = {k: v for k, v in os.environ.items() if not k.startswith(("OFJ_", "TURSO_", "OPENAI", "ANTHROPIC", "GEMINI"))}
        e.update(OFJ_HOME=self.home, OFJ_PROVIDER="offline", TURSO_DATABASE_URL=url, TURSO_AUTH_TOKEN=TOKEN,
                 HOME=self.home, XDG_CONFIG_HOME=os.path.join(self.home, "config"), NO_COLOR="1")
        return e

    def start_servers(self):
        server = subprocess.Popen([sys.executable, os.path.join(HERE, "turso_server.py"), "--port", "0", "--quiet",
                                   "--token", TOKEN, "--db", self.sink_db], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.procs.append(server)
        self.sink_port = int(server.stdout.readline())
        proxy = subprocess.Popen([sys.executable, os.path.join(HERE, "sink_chaos_proxy.py"), "--upstream", str(self.sink_port),
                                  "--schedule", self.args.schedule, "--repeat", str(self.args.repeat), "--seed", str(self.args.seed)],
                                 stdout=subprocess.PIPE, stderr=open(os.path.join(self.dir, "proxy.err"), "w"))
        self.procs.append(proxy)
        self.proxy = proxy
        port, control = proxy.stdout.readline().split()
        self.url = "http://127.0.0.1:%s" % port.decode()
        self.control = "http://127.0.0.1:%s" % control.decode()
        self.schedule_done = threading.Event()
        self.mode_log = []
        threading.Thread(target=self.watch_proxy, daemon=True).start()

    def watch_proxy(self):
        for line in self.proxy.stdout:
            text = line.decode().strip()
            if text.startswith("mode "):
                with self.lock:
                    self.mode_log.append(text)
            if text.startswith("schedule done"):
                self.schedule_done.set()

    def state(self):
        with urllib.request.urlopen(self.control + "/state", timeout=5) as r:
            return json.loads(r.read())

    def mode(self):
        try:
            return self.state()["mode"]
        except OSError:
            return "?"

    def ofj(self, *arguments, timeout=120):
        started = now()
        r = subprocess.run([self.args.ofj, *arguments], env=self.env(self.url), capture_output=True, timeout=timeout)
        elapsed = now() - started
        err = r.stderr.decode("utf-8", "replace")
        with self.lock:
            self.stderr_lines += [line for line in err.splitlines() if line.strip()]
        return r, elapsed

    # MARK: ledger

    def install_ledger(self):
        """Counts every event the outbox stores, by id, with a trigger in ofj's own database."""
        r, _ = self.ofj("diag", "status")
        if r.returncode != 0:
            raise SystemExit("ofj diag status failed: " + r.stderr.decode())
        c = sqlite3.connect(self.db, timeout=30)
        c.executescript("""
            CREATE TABLE IF NOT EXISTS chaos_ledger (id TEXT PRIMARY KEY, at REAL);
            CREATE TRIGGER IF NOT EXISTS chaos_ledger_insert AFTER INSERT ON diagnostics_outbox
            BEGIN INSERT OR IGNORE INTO chaos_ledger VALUES (NEW.id, julianday('now')); END;
        """)
        c.commit()
        c.close()

    # MARK: workers

    def ask_loop(self):
        i = 0
        while not self.stop.is_set():
            mode = self.mode()
            prompt = ASK_PROMPTS[i % len(ASK_PROMPTS)]
            r, elapsed = self.ofj("ask", "--yes", prompt)
            with self.lock:
                self.asks.append((mode, elapsed, r.returncode))
            if r.returncode != 0:
                self.failures.append("ofj ask %r exited %d: %s" % (prompt, r.returncode, r.stderr.decode()[-300:]))
            i += 1
            if i % 7 == 0:
                s, _ = self.ofj("diag", "status")
                with self.lock:
                    self.statuses.add(re.sub(r"\d+", "N", s.stdout.decode() + s.stderr.decode()))

    def flush_loop(self):
        """`ofj diag flush` every few seconds: an explicit flush ignores the stored backoff, so every
        mode of the schedule meets real requests even while automatic delivery is backing off."""
        while not self.stop.is_set():
            mode = self.mode()
            r, elapsed = self.ofj("diag", "flush", timeout=300)
            with self.lock:
                self.flushes_timed.append((mode, elapsed, r.returncode))
                self.statuses.add(re.sub(r"\d+", "N", r.stdout.decode() + r.stderr.decode()))
            self.stop.wait(self.args.flush_every)

    def repl_loop(self):
        p = subprocess.Popen([self.args.ofj], env=self.env(self.url), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=open(os.path.join(self.dir, "repl.err"), "wb"), bufsize=0)
        self.procs.append(p)
        i = 0
        status = re.compile(rb"tokens \xc2\xb7 \$[0-9.]+ \xc2\xb7 ([0-9.]+)s\n")
        buf = b""
        while not self.stop.is_set():
            mode = self.mode()
            started = now()
            p.stdin.write((REPL_PROMPTS[i % len(REPL_PROMPTS)] + "\n").encode())
            while True:
                m = status.search(buf)
                if m:
                    buf = buf[m.end():]
                    break
                chunk = os.read(p.stdout.fileno(), 65536)
                if not chunk:
                    self.failures.append("the REPL ended early")
                    return
                buf += chunk
            with self.lock:
                self.turns.append((mode, now() - started, float(m.group(1))))
            i += 1
            time.sleep(self.args.repl_pause)
        started = now()
        p.stdin.close()
        rest = p.stdout.read()
        p.wait(timeout=60)
        self.repl_exit = now() - started
        if p.returncode != 0:
            self.failures.append("the REPL exited %d" % p.returncode)
        with open(os.path.join(self.dir, "repl.err"), "rb") as f:
            with self.lock:
                self.stderr_lines += [l for l in f.read().decode("utf-8", "replace").splitlines() if l.strip()]

    def sampler(self):
        c = sqlite3.connect("file:%s?mode=ro" % self.db, uri=True, timeout=30)
        while not self.stop.is_set():
            try:
                rows, size = c.execute("SELECT COUNT(*), COALESCE(SUM(size), 0) FROM diagnostics_outbox").fetchone()
                with self.lock:
                    self.samples.append((now(), rows, size))
            except sqlite3.OperationalError:
                pass
            time.sleep(0.25)
        c.close()

    # MARK: run

    def run(self):
        self.start_servers()
        self.install_ledger()
        workers = [threading.Thread(target=self.sampler), threading.Thread(target=self.ask_loop)]
        if not self.args.no_repl:
            workers.append(threading.Thread(target=self.repl_loop))
        if self.args.flush_every > 0:
            workers.append(threading.Thread(target=self.flush_loop))
        started = now()
        for w in workers:
            w.start()
        self.schedule_done.wait()
        self.stop.set()
        for w in workers:
            w.join()
        self.chaos_seconds = now() - started
        # Recovered for good: deliver everything that is left.
        flushes = 0
        recover_started = now()
        # Removed-but-sent events are checked with the sink after they settle (60 s).
        while now() - recover_started < 150:
            flushes += 1
            r, _ = self.ofj("diag", "flush")
            if self.outbox_rows() == 0 and r.returncode == 0 and self.unconfirmed_rows() == 0:
                break
            time.sleep(2)
        self.recover_seconds = now() - recover_started
        self.flushes = flushes
        return self.check()

    def unconfirmed_rows(self):
        c = sqlite3.connect(self.db, timeout=30)
        try:
            return c.execute("SELECT COUNT(*) FROM diagnostics_unconfirmed").fetchone()[0]
        except sqlite3.OperationalError:
            return 0
        finally:
            c.close()

    def outbox_rows(self):
        c = sqlite3.connect(self.db, timeout=30)
        try:
            return c.execute("SELECT COUNT(*) FROM diagnostics_outbox").fetchone()[0]
        finally:
            c.close()

    # MARK: checks

    def check(self):
        c = sqlite3.connect(self.db, timeout=30)
        produced = {r[0] for r in c.execute("SELECT id FROM chaos_ledger")}
        delivered_counter, dropped, reported, last_error = c.execute(
            "SELECT delivered, dropped, dropped_reported, last_error FROM diagnostics_state").fetchone()
        pending = c.execute("SELECT COUNT(*) FROM diagnostics_outbox").fetchone()[0]
        try:
            unconfirmed = c.execute("SELECT COUNT(*) FROM diagnostics_unconfirmed").fetchone()[0]
        except sqlite3.OperationalError:  # before the unconfirmed-drops accounting
            unconfirmed = 0
        outbox_text = "\n".join(r[0] for r in c.execute("SELECT payload FROM diagnostics_outbox"))
        c.close()
        s = sqlite3.connect(self.sink_db, timeout=30)
        rows = s.execute("SELECT id, status, result_count, error_message FROM ofj_ai_diagnostic_events").fetchall()
        s.close()
        remote_ids = [r[0] for r in rows]
        drop_reports = [r for r in rows if r[1] == "outbox_dropped"]
        events = [r for r in rows if r[1] != "outbox_dropped"]
        event_ids = {r[0] for r in events}
        missing = produced - event_ids
        unknown = event_ids - produced
        reported_drops = sum(r[2] or 0 for r in drop_reports)

        def expect(ok, what):
            if not ok:
                self.failures.append(what)

        max_rows = max((x[1] for x in self.samples), default=0)
        max_bytes = max((x[2] for x in self.samples), default=0)
        expect(max_rows <= OUTBOX_MAX_EVENTS, "outbox reached %d rows (bound %d)" % (max_rows, OUTBOX_MAX_EVENTS))
        expect(max_bytes <= OUTBOX_MAX_BYTES, "outbox reached %d bytes" % max_bytes)
        expect(pending == 0, "%d events still pending after recovery" % pending)
        expect(unconfirmed == 0, "%d removed events still unconfirmed after recovery" % unconfirmed)
        expect(len(remote_ids) == len(set(remote_ids)), "duplicate ids on the sink")
        expect(not unknown, "%d sink events the outbox never stored" % len(unknown))
        expect(len(missing) == dropped, "produced %d, delivered %d, dropped %d: %d unaccounted"
               % (len(produced), len(produced & event_ids), dropped, len(missing) - dropped))
        expect(reported == dropped, "drops counted %d, reported %d" % (dropped, reported))
        expect(reported_drops == dropped, "the sink's drop reports add up to %d, the outbox dropped %d" % (reported_drops, dropped))
        expect(last_error is None, "last error after recovery: %r" % last_error)

        # Secrets and raw errors: stderr of every ofj process, the outbox, the state row, both databases.
        haystacks = {"stderr": "\n".join(self.stderr_lines), "outbox": outbox_text,
                     "statuses": "\n".join(self.statuses), "sink rows": json.dumps(rows)}
        for name in ("ofj.sqlite", "ofj.sqlite-wal"):
            path = os.path.join(self.home, name)
            if os.path.exists(path):
                haystacks[name] = open(path, "rb").read().decode("latin-1")
        for path in (self.sink_db, self.sink_db + "-wal"):
            if os.path.exists(path):
                haystacks[os.path.basename(path)] = open(path, "rb").read().decode("latin-1")
        for name, text in haystacks.items():
            for part in TOKEN_PARTS:
                expect(part not in text, "the token (or part of it) appears in " + name)
        for line in set(self.stderr_lines) | set("\n".join(self.statuses).splitlines()):
            for pattern in RAW_PATTERNS:
                if re.search(pattern, line):
                    self.failures.append("raw error shown: %r" % line[:200])

        def med(xs):
            return round(statistics.median(xs), 3) if xs else None

        def p95(xs):
            return round(sorted(xs)[int(len(xs) * 0.95)], 3) if xs else None

        with open(os.path.join(self.dir, "timings.json"), "w") as f:
            json.dump({"asks": self.asks, "turns": self.turns, "diag_flushes": self.flushes_timed,
                       "outbox_samples": self.samples}, f)

        good = ("normal",)
        ask_by_mode = {}
        for mode, secs, _ in self.asks:
            ask_by_mode.setdefault(mode, []).append(secs)
        turn_by_mode = {}
        for mode, secs, _ in self.turns:
            turn_by_mode.setdefault(mode, []).append(secs)
        summary = {
            "schedule": self.args.schedule, "repeat": self.args.repeat,
            "chaos_seconds": round(self.chaos_seconds, 1), "recover_seconds": round(self.recover_seconds, 1),
            "final_flushes": self.flushes,
            "produced": len(produced), "delivered": len(produced & event_ids), "dropped": dropped,
            "drop_reports": len(drop_reports), "reported_drops": reported_drops, "sink_rows": len(remote_ids),
            "delivered_counter": delivered_counter, "outbox_max_rows": max_rows, "outbox_max_bytes": max_bytes,
            "asks": len(self.asks), "repl_turns": len(self.turns),
            "ask_median_good": med([s for m, s, _ in self.asks if m in good]),
            "ask_median_bad": med([s for m, s, _ in self.asks if m not in good]),
            "ask_median_by_mode": {m: [med(v), len(v)] for m, v in sorted(ask_by_mode.items())},
            "ask_max": round(max((s for _, s, _ in self.asks), default=0), 3),
            "ask_p95_good": p95([s for m, s, _ in self.asks if m in good]),
            "ask_p95_bad": p95([s for m, s, _ in self.asks if m not in good]),
            "ask_max_good": round(max((s for m, s, _ in self.asks if m in good), default=0), 3),
            "turn_median_good": med([s for m, s, _ in self.turns if m in good]),
            "turn_median_bad": med([s for m, s, _ in self.turns if m not in good]),
            "turn_median_by_mode": {m: [med(v), len(v)] for m, v in sorted(turn_by_mode.items())},
            "turn_max": round(max((s for _, s, _ in self.turns), default=0), 3),
            "turn_p95_good": p95([s for m, s, _ in self.turns if m in good]),
            "turn_p95_bad": p95([s for m, s, _ in self.turns if m not in good]),
            "turn_max_good": round(max((s for m, s, _ in self.turns if m in good), default=0), 3),
            "repl_exit_seconds": round(getattr(self, "repl_exit", 0), 3),
            "diag_flushes": len(self.flushes_timed),
            "diag_flush_median_by_mode": {m: [med([s for mm, s, _ in self.flushes_timed if mm == m]),
                                              len([1 for mm, _, _ in self.flushes_timed if mm == m])]
                                          for m in sorted({mm for mm, _, _ in self.flushes_timed})},
            "diag_flush_max": round(max((s for _, s, _ in self.flushes_timed), default=0), 3),
            "proxy": self.state(),
            "diag_status_lines": sorted({l for s in self.statuses for l in s.splitlines() if "rror" in l or l.startswith("ofj:")}),
            "failures": self.failures,
        }
        return summary

    def cleanup(self):
        for p in self.procs:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    p.kill()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--ofj", required=True)
    p.add_argument("--workdir", required=True)
    p.add_argument("--schedule", default="normal:20,refused:60,stall:40,500:60,garbage:60,slow:40,commit500:30,reset:30,lagged:30,drip:30,normal:20")
    p.add_argument("--repeat", type=int, default=1)
    p.add_argument("--seed", type=int, default=11)
    p.add_argument("--repl-pause", type=float, default=0.5)
    p.add_argument("--no-repl", action="store_true")
    p.add_argument("--flush-every", type=float, default=3.0, help="seconds between `ofj diag flush` runs (0: none)")
    args = p.parse_args()
    run = Run(args)
    try:
        summary = run.run()
    finally:
        run.cleanup()
    print(json.dumps(summary, indent=1))
    with open(os.path.join(args.workdir, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    return 1 if summary["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
