#!/usr/bin/env python3
"""A chaos proxy in front of tools/turso_server.py: the sink goes down, slow or mad, then recovers.

turso_server.py keeps its normal behaviour; this proxy sits between ofj and it and, per mode:
  normal    forward every request unchanged
  refused   the listening socket is closed: clients get "connection refused"
  stall     accept and read the request, never answer (until the mode changes or 120 s)
  slow      wait --slow-delay seconds (default 15, beyond the sink's 10 s first-byte timeout),
            then forward: the server may commit after the client gave up
  lagged    wait 3 s then forward (within the timeouts, beyond `ofj ask`'s 2 s exit flush)
  500       answer 500/502/503 with text or an HTML error page, without forwarding
  commit500 forward (the server commits), then answer 500: the acknowledgement is lost
  reset     forward (the server commits), then close the connection without an answer
  garbage   a 200 (or other status) that is not a Hrana answer: HTML, non-JSON text, empty,
            truncated JSON (of the real, committed answer), wrong Hrana shapes, invalid UTF-8,
            a Content-Length longer than the body, 11 MB of padding; picked at random
  drip      200 head, then one byte every 4 s (under the idle timeout) until the mode changes

Modes change on a schedule (--schedule "normal:30,refused:60,..." seconds each; afterwards the
proxy stays normal) or through the control port:
  POST /mode {"mode": "garbage"}   GET /state -> {"mode", "requests": {mode: n}, "forwarded", ...}
First stdout line: "<proxy port> <control port>". Standard library only.
"""

import argparse
import http.client
import json
import random
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODES = ["normal", "refused", "stall", "slow", "lagged", "500", "commit500", "reset", "garbage", "drip"]
GARBAGE = ["html200", "html502", "text", "empty", "truncated", "results_object", "results_count",
           "unknown_type", "batch_shape", "top_array", "null", "bad_utf8", "short_body", "huge",
           "deep", "wrong_content", "echo_token", "echo_token_json"]


class State:
    def __init__(self, upstream, slow_delay, seed):
        self.upstream = upstream
        self.slow_delay = slow_delay
        self.lock = threading.Lock()
        self.mode = "normal"
        self.generation = 0  # bumps on every mode change (stalls and drips end then)
        self.requests = {}
        self.garbage = {}
        self.forwarded = 0
        self.log = []
        self.rng = random.Random(seed)

    def set_mode(self, mode):
        with self.lock:
            if mode == self.mode:
                return
            self.mode = mode
            self.generation += 1
            self.log.append((time.time(), mode))
        print("mode %s %.3f" % (mode, time.time()), flush=True)

    def snapshot(self):
        with self.lock:
            return {"mode": self.mode, "requests": dict(self.requests), "garbage": dict(self.garbage),
                    "forwarded": self.forwarded, "generation": self.generation}

    def count(self, mode, kind=None):
        with self.lock:
            self.requests[mode] = self.requests.get(mode, 0) + 1
            if kind:
                self.garbage[kind] = self.garbage.get(kind, 0) + 1


def forward(state, method, path, headers, body):
    conn = http.client.HTTPConnection("127.0.0.1", state.upstream, timeout=60)
    try:
        keep = {k: v for k, v in headers.items() if k.lower() in ("content-type", "authorization", "accept")}
        conn.request(method, path, body=body, headers=keep)
        r = conn.getresponse()
        data = r.read()
        with state.lock:
            state.forwarded += 1
        return r.status, r.getheader("Content-Type", "application/json"), data
    finally:
        conn.close()


def make_handler(state):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "sink-chaos/1"

        def log_message(self, fmt, *args):
            pass

        def reply(self, status, body, content_type="application/json", length=None):
            data = body if isinstance(body, bytes) else body.encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data) if length is None else length))
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(data)
            self.close_connection = True

        def drop(self):
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

        def wait_while(self, generation, seconds):
            end = time.monotonic() + seconds
            while time.monotonic() < end:
                if state.generation != generation:
                    return False
                time.sleep(0.2)
            return True

        def do_GET(self):
            self.handle_request("GET", b"")

        def do_POST(self):
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            self.handle_request("POST", body)

        def handle_request(self, method, body):
            with state.lock:
                mode, generation = state.mode, state.generation
            headers = dict(self.headers.items())
            try:
                self.dispatch(mode, generation, method, body, headers)
            except (BrokenPipeError, ConnectionResetError, socket.timeout, OSError):
                self.close_connection = True

        def dispatch(self, mode, generation, method, body, headers):
            if mode in ("normal", "refused"):  # refused: a connection accepted just before the switch
                state.count("normal")
                status, ctype, data = forward(state, method, self.path, headers, body)
                return self.reply(status, data, ctype)
            if mode == "stall":
                state.count(mode)
                self.wait_while(generation, 120)
                return self.drop()
            if mode == "slow":
                state.count(mode)
                self.wait_while(generation, state.slow_delay)
                status, ctype, data = forward(state, method, self.path, headers, body)
                return self.reply(status, data, ctype)
            if mode == "lagged":
                state.count(mode)
                time.sleep(3)
                status, ctype, data = forward(state, method, self.path, headers, body)
                return self.reply(status, data, ctype)
            if mode == "500":
                kind = state.rng.choice(["500", "502", "503", "html"])
                state.count(mode, kind)
                if kind == "html":
                    page = "<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body><h1>502</h1>" + "x" * 2000 + "</body></html>"
                    return self.reply(502, page, "text/html")
                return self.reply(int(kind), "internal error: upstream connect error or disconnect/reset before headers", "text/plain")
            if mode == "commit500":
                state.count(mode)
                forward(state, method, self.path, headers, body)
                return self.reply(500, "Internal Server Error", "text/plain")
            if mode == "reset":
                state.count(mode)
                forward(state, method, self.path, headers, body)
                return self.drop()
            if mode == "drip":
                state.count(mode)
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", "1000000")
                self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.flush()
                while state.generation == generation:
                    self.wfile.write(b" ")
                    self.wfile.flush()
                    if not self.wait_while(generation, 4):
                        break
                return self.drop()
            if mode == "garbage":
                return self.garbage(method, body, headers)
            state.count("unknown")
            return self.reply(500, "unknown chaos mode", "text/plain")

        def garbage(self, method, body, headers):
            kind = state.rng.choice(GARBAGE)
            state.count("garbage", kind)
            if kind == "html200":
                return self.reply(200, "<html><body><h1>Welcome to nginx!</h1></body></html>", "text/html")
            if kind == "html502":
                return self.reply(502, "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>cloudflare</body></html>", "text/html")
            if kind == "text":
                return self.reply(200, "OK", "text/plain")
            if kind == "empty":
                return self.reply(200, b"")
            if kind == "truncated":
                status, ctype, data = forward(state, method, self.path, headers, body)
                return self.reply(200, data[: max(1, len(data) // 2)])
            if kind == "results_object":
                return self.reply(200, '{"baton":null,"base_url":null,"results":{"type":"ok"}}')
            if kind == "results_count":
                return self.reply(200, '{"baton":null,"base_url":null,"results":[{"type":"ok","response":{"type":"close"}}]}')
            if kind == "unknown_type":
                return self.reply(200, '{"baton":null,"results":[{"type":"maybe"},{"type":"maybe"},{"type":"maybe"}]}')
            if kind == "batch_shape":
                ok = '{"type":"ok","response":{"type":"batch","result":{"step_results":[null]}}}'
                return self.reply(200, '{"baton":null,"results":[%s,%s,{"type":"ok","response":{"type":"close"}}]}' % (ok, ok))
            if kind == "top_array":
                return self.reply(200, '[{"type":"ok"}]')
            if kind == "null":
                return self.reply(200, "null")
            if kind == "bad_utf8":
                return self.reply(200, b'{"results":"\xff\xfe\xc3\x28"}')
            if kind == "short_body":
                return self.reply(200, '{"baton":null,"results":[', length=5000)
            if kind == "huge":
                return self.reply(200, b'{"results":[' + b" " * (11 << 20) + b"]}")
            if kind == "deep":
                return self.reply(200, "[" * 100000 + "]" * 100000)
            if kind == "wrong_content":
                return self.reply(200, '{"error":"this is not the sink you are looking for","Authorization":"Bearer reflected"}')
            auth = headers.get("Authorization", "")
            if kind == "echo_token":
                return self.reply(400, "rejected header Authorization: %s (token %s)" % (auth, auth.replace("Bearer ", "")), "text/plain")
            if kind == "echo_token_json":
                return self.reply(403, json.dumps({"message": "token %s is not valid" % auth.replace("Bearer ", "")}))
            return self.reply(200, "?")

    return Handler


class Listener:
    """The proxy's listening socket, closed in "refused" mode and reopened on the same port."""

    def __init__(self, state, port):
        self.state = state
        self.port = port
        self.httpd = None
        self.thread = None

    def open(self):
        if self.httpd:
            return
        ThreadingHTTPServer.allow_reuse_address = True
        for _ in range(50):
            try:
                self.httpd = ThreadingHTTPServer(("127.0.0.1", self.port), make_handler(self.state))
                break
            except OSError:
                time.sleep(0.1)
        else:
            raise SystemExit("sink_chaos_proxy: cannot reopen port %d" % self.port)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
        self.thread.start()

    def close(self):
        if not self.httpd:
            return
        self.httpd.shutdown()
        self.httpd.server_close()
        self.httpd = None


def apply(state, listener, mode):
    if mode not in MODES:
        raise ValueError("unknown mode " + mode)
    if mode == "refused":
        state.set_mode(mode)
        listener.close()
    else:
        listener.open()
        state.set_mode(mode)


def make_control(state, listener):
    class Control(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt, *args):
            pass

        def answer(self, status, obj):
            data = json.dumps(obj).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            if self.path == "/state":
                return self.answer(200, state.snapshot())
            self.answer(404, {"error": "not found"})

        def do_POST(self):
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b"{}"
            if self.path != "/mode":
                return self.answer(404, {"error": "not found"})
            try:
                cfg = json.loads(body)
                apply(state, listener, str(cfg.get("mode", "normal")))
            except (ValueError, AttributeError) as e:
                return self.answer(400, {"error": str(e)})
            self.answer(200, state.snapshot())

    return Control


def run_schedule(state, listener, schedule, repeat):
    for _ in range(repeat):
        for mode, seconds in schedule:
            apply(state, listener, mode)
            time.sleep(seconds)
    apply(state, listener, "normal")
    print("schedule done %.3f" % time.time(), flush=True)


def parse_schedule(text):
    out = []
    for item in filter(None, (s.strip() for s in text.split(","))):
        mode, _, seconds = item.partition(":")
        if mode not in MODES:
            raise SystemExit("unknown mode in schedule: " + mode)
        out.append((mode, float(seconds or 30)))
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description="Chaos proxy in front of a Turso-compatible server")
    p.add_argument("--upstream", type=int, required=True, help="port of tools/turso_server.py on 127.0.0.1")
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--control-port", type=int, default=0)
    p.add_argument("--schedule", default="", help='e.g. "refused:60,slow:60,garbage:60" (seconds)')
    p.add_argument("--repeat", type=int, default=1)
    p.add_argument("--slow-delay", type=float, default=15.0)
    p.add_argument("--seed", type=int, default=None)
    args = p.parse_args(argv)

    state = State(args.upstream, args.slow_delay, args.seed)
    listener = Listener(state, args.port)
    listener.open()
    control = ThreadingHTTPServer(("127.0.0.1", args.control_port), make_control(state, listener))
    control.daemon_threads = True
    print("%d %d" % (listener.port, control.server_address[1]), flush=True)
    if args.schedule:
        threading.Thread(target=run_schedule, args=(state, listener, parse_schedule(args.schedule), args.repeat),
                         daemon=True).start()
    try:
        control.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    import signal
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    sys.exit(main())
