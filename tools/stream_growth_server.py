#!/usr/bin/env python3
"""Loopback Chat Completions server that streams one very long text answer at full speed.

For tools/stream-growth.sh (issue 25 §4): how time and memory of `ofj ask` grow with the size of
a streamed answer. Python standard library only.

POST …/chat/completions answers with a Chat Completions SSE stream whose text deltas add up to
the size asked for in the last user message ("SIZE <bytes>"), or --bytes when the message names
none; "ENDLESS" streams deltas until the client goes away. Each delta carries --delta bytes of
text (default 64, words of lowercase letters and spaces). The whole stream is built before the
status line goes out, so the client reads it as fast as the loopback allows.

Usage: stream_growth_server.py [--port 0] [--bytes N] [--delta 64]; prints the port on stdout.
"""

import argparse
import json
import re
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SIZE = re.compile(r"SIZE (\d+)")


def chunk(delta, finish=None):
    body = {"id": "chatcmpl-growth", "object": "chat.completion.chunk", "created": 1764400000, "model": "growth",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    return ("data: " + json.dumps(body, separators=(",", ":")) + "\n\n").encode()


def text_piece(size):
    words = "oatmeal with milk and honey is a fine breakfast for a cold morning "
    return (words * (size // len(words) + 1))[:size]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    total = 0
    delta = 64

    def log_message(self, *args):
        pass

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            req = json.loads(raw or b"{}")
        except ValueError:
            self.send_error(400)
            return
        users = [m for m in req.get("messages") or [] if m.get("role") == "user"]
        last = str(users[-1].get("content")) if users else ""
        piece = chunk({"content": text_piece(self.delta)})
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        if "ENDLESS" in last:
            self.send_header("Connection", "close")
            self.end_headers()
            block = chunk({"role": "assistant", "content": ""}) + piece * 1024
            try:
                while True:
                    self.wfile.write(block)
                    block = piece * 1024
            except (BrokenPipeError, ConnectionResetError):
                return
        match = SIZE.search(last)
        total = int(match.group(1)) if match else self.total
        count, rest = divmod(total, self.delta)
        parts = [chunk({"role": "assistant", "content": ""}), piece * count]
        if rest:
            parts.append(chunk({"content": text_piece(rest)}))
        parts.append(chunk({}, finish="stop"))
        parts.append(b"data: [DONE]\n\n")
        body = b"".join(parts)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--bytes", type=int, default=1 << 20)
    ap.add_argument("--delta", type=int, default=64)
    args = ap.parse_args()
    Handler.total = args.bytes
    Handler.delta = args.delta
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
