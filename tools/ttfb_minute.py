#!/usr/bin/env python3
"""Time to first byte of a thread's next message in the same minute and in a new minute.

A local server reuses its KV cache only for an identical prompt prefix, so anything in the
request that changes with the clock before the stable part (system rules, tool specs, earlier
turns) makes the first message of every new minute re-read the whole prompt. This measures it
against a real llama.cpp `llama-server` that you start yourself, e.g.

    llama-server -m gemma-3-270m-q4_k_m.gguf --host 127.0.0.1 --port 8091 --jinja -c 16384 -np 1

It puts a small forwarding proxy between ofj and the server that notes, per request, the time
from the request's arrival to the first byte of the server's answer (the server answers only
once the prompt is read), and runs with a fresh OFJ_HOME:

    1. `ofj ask "..."` on a new thread (fills the server's cache),
    2. just after the next minute boundary, a second message     -> new-minute TTFB,
    3. right after it, in that same minute, a third message      -> same-minute TTFB
       (a round whose third message slipped into another minute is reported and not counted),

ROUNDS times (--rounds), printing each figure and the medians. The proxy caps each answer at
--max-tokens (default 8) so the small model's long answers do not push the next message into
another minute; it changes nothing before the first byte. The server's own `timings` (prompt
tokens read vs. taken from the cache) are printed beside them. The TTFB is that of the turn's
own request (the one carrying the tools); a build that first sends a compaction request has it
counted in the message's whole time, printed too.
Never part of `make test`.

Usage: tools/ttfb_minute.py --ofj PATH --llama http://127.0.0.1:8091 [--rounds 3] [--dump DIR] [--json]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

UPSTREAM = ""
MAX_TOKENS = 8
DUMP = None  # a folder to keep each request body in (--dump)
EVENTS = []  # (path, request_bytes, ttfb_seconds, cached_tokens, prompt_tokens, minute at arrival, has tools)
LOCK = threading.Lock()


class Proxy(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def forward(self, method):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        start = time.monotonic()
        minute = time.strftime("%H:%M")
        has_tools = False
        headers = {"Content-Type": self.headers.get("Content-Type", "application/json")}
        if body is not None and self.path.endswith("/chat/completions") and DUMP:
            with open(os.path.join(DUMP, f"request-{len(EVENTS) + 1:02}.json"), "wb") as f:
                f.write(body)
        if body is not None and self.path.endswith("/chat/completions"):
            # Ask the server to report its timings (how much of the prompt came from the cache).
            try:
                req = json.loads(body)
                has_tools = bool(req.get("tools"))
                req["max_tokens"] = MAX_TOKENS
                req.pop("max_completion_tokens", None)
                body = json.dumps(req).encode()
            except ValueError:
                pass
        upstream = urllib.request.Request(UPSTREAM + self.path, data=body, method=method, headers=headers)
        try:
            resp = urllib.request.urlopen(upstream, timeout=600)
            status = resp.status
        except urllib.error.HTTPError as e:
            resp, status = e, e.code
        first = resp.read(1)
        ttfb = time.monotonic() - start
        rest = resp.read()
        data = first + rest
        self.send_response(status)
        self.send_header("Content-Type", resp.headers.get("Content-Type", "application/json"))
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        if self.path.endswith("/chat/completions"):
            cached = prompt = None
            for line in data.decode("utf-8", "replace").splitlines():
                if line.startswith("data: {"):
                    try:
                        t = json.loads(line[6:]).get("timings")
                    except ValueError:
                        continue
                    if t:
                        cached, prompt = t.get("cache_n"), t.get("prompt_n")
            with LOCK:
                EVENTS.append((self.path, len(body or b""), ttfb, cached, prompt, minute, has_tools))

    def do_GET(self):
        self.forward("GET")

    def do_POST(self):
        self.forward("POST")


def run(ofj, env, args):
    out = subprocess.run([ofj] + args, env=env, capture_output=True, text=True, timeout=900)
    return out


def main():
    global UPSTREAM, MAX_TOKENS, DUMP
    ap = argparse.ArgumentParser()
    ap.add_argument("--ofj", required=True)
    ap.add_argument("--llama", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--max-tokens", type=int, default=8)
    ap.add_argument("--dump", help="a folder to keep each request body in")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    DUMP = args.dump
    UPSTREAM = args.llama.rstrip("/")
    MAX_TOKENS = args.max_tokens
    server = ThreadingHTTPServer(("127.0.0.1", 0), Proxy)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    same, new = [], []
    rows = []
    with tempfile.TemporaryDirectory() as home:
        os.makedirs(os.path.join(home, "config", "ofj"))
        with open(os.path.join(home, "config", "ofj", "config.json"), "w") as f:
            json.dump({"provider": "llamacpp", "providers": {"llamacpp": {"base_url": f"http://127.0.0.1:{port}/v1"}}}, f)
        env = {k: v for k, v in os.environ.items() if not k.startswith("OFJ_")}
        env.update({"OFJ_HOME": home, "HOME": home, "XDG_CONFIG_HOME": os.path.join(home, "config"),
                    "XDG_STATE_HOME": os.path.join(home, "state"), "NO_COLOR": "1"})
        for r in range(args.rounds):
            thread = None
            minutes = {}
            for label, text in (("fill", "I had two eggs for breakfast."), ("new", "And a slice of toast."),
                                ("same", "What about lunch?")):
                if label == "new":
                    minute = time.localtime().tm_min
                    while time.localtime().tm_min == minute:
                        time.sleep(0.2)
                    time.sleep(1)
                before = len(EVENTS)
                started = time.monotonic()
                run(args.ofj, env, ["ask"] + (["--thread", thread] if thread else []) + [text])
                if thread is None:
                    listed = json.loads(run(args.ofj, env, ["threads", "--json"]).stdout)
                    thread = listed["threads"][0]["id"]
                got = [e for e in EVENTS[before:] if e[0].endswith("/chat/completions")]
                if not got:
                    sys.exit(f"ttfb_minute: ofj sent no request for the {label} message")
                # The turn's own request is the one with the tools; one before it (a build that
                # compacts first) is counted in the message's whole time, not in its TTFB.
                turn = next((e for e in got if e[6]), got[0])
                _, size, ttfb, cached, prompt, at, _ = turn
                whole = time.monotonic() - started
                minutes[label] = at
                counted = label != "same" or minutes["same"] == minutes["new"]
                rows.append({"round": r + 1, "message": label, "request_bytes": size, "ttfb_s": round(ttfb, 3),
                             "cached_tokens": cached, "prompt_tokens_read": prompt, "minute": at,
                             "requests": len(got), "whole_s": round(whole, 3),
                             "counted": counted})
                if label == "same" and counted:
                    same.append(ttfb)
                elif label == "new":
                    new.append(ttfb)
    server.shutdown()
    if not same or not new:
        sys.exit("ttfb_minute: no round had its third message in the second message's minute; "
                 "the server reads the prompt too slowly for this measurement")
    summary = {"rounds": args.rounds, "same_minute_median_s": round(statistics.median(same), 3),
               "new_minute_median_s": round(statistics.median(new), 3),
               "ratio": round(statistics.median(new) / statistics.median(same), 2), "rows": rows}
    if args.json:
        print(json.dumps(summary, indent=1))
        return
    for row in rows:
        print(f"round {row['round']} {row['message']:4} {row['minute']}  {row['request_bytes']:6} bytes  "
              f"ttfb {row['ttfb_s']:8.3f} s  cache {row['cached_tokens']}  read {row['prompt_tokens_read']}  "
              f"({row['requests']} request(s), whole message {row['whole_s']:.1f} s)"
              + ("" if row["counted"] else "  (not counted: another minute)"))
    print(f"median ttfb: same minute {summary['same_minute_median_s']} s, new minute "
          f"{summary['new_minute_median_s']} s ({summary['ratio']}x)")


if __name__ == "__main__":
    main()
