#!/usr/bin/env python3
"""Loopback OpenAI-compatible server for benchmarks: answers /v1/chat/completions at once with a canned SSE stream.

Two streams, chosen per request (Python standard library only):
- a text-only answer (any request, and any request that already carries tool results);
- three tool calls (get_goals, get_journal_day, get_nutrition_context) when the last user message
  contains "THREE TOOLS" and no tool result has been sent yet; the follow-up request gets the text stream.
The chunks follow the shape of the recorded Chat Completions streams in
/work/shared/fixtures/providers/openai-chat/ (role chunk, content deltas, tool_calls deltas with
index/id/function name then arguments, finish_reason chunk, usage chunk, [DONE]).

Usage: fake_openai.py [--port 0]; prints the bound port on the first line of stdout.
GET /__stats returns request counters as JSON, with `handle_ms`: the server's own time in do_POST
summed over all requests (reading and parsing the body, writing the answer), which
tools/bench/check.sh takes off a REPL turn to leave the client's own overhead.
"""

import argparse
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CREATED = 1764400000
MODEL = "bench-model"
STATS = {"requests": 0, "text": 0, "tools": 0, "last_request_bytes": 0, "last_request_messages": 0, "max_request_bytes": 0, "handle_ms": 0.0}
LOCK = threading.Lock()


def chunk(delta, finish=None, usage=None):
    body = {"id": "chatcmpl-bench", "object": "chat.completion.chunk", "created": CREATED, "model": MODEL,
            "choices": [] if usage else [{"index": 0, "delta": delta, "finish_reason": finish}]}
    if usage:
        body["usage"] = usage
    return "data: " + json.dumps(body, separators=(",", ":")) + "\n\n"


def text_stream():
    words = ["You", " have", " logged", " breakfast", " and", " lunch", " today;", " protein", " is",
             " on", " track", " and", " fibre", " is", " a", " little", " low."]
    out = [chunk({"role": "assistant", "content": ""})]
    out += [chunk({"content": w}) for w in words]
    out.append(chunk({}, finish="stop"))
    out.append(chunk(None, usage={"prompt_tokens": 120, "completion_tokens": 17, "total_tokens": 137}))
    out.append("data: [DONE]\n\n")
    return "".join(out).encode()


def tools_stream():
    calls = [("get_goals", "{}"), ("get_journal_day", '{"date":"2026-08-21"}'), ("get_nutrition_context", "{}")]
    out = [chunk({"role": "assistant", "content": None})]
    for i, (name, args) in enumerate(calls):
        out.append(chunk({"tool_calls": [{"index": i, "id": f"call_bench_{i}", "type": "function",
                                          "function": {"name": name, "arguments": ""}}]}))
        half = len(args) // 2
        for part in (args[:half], args[half:]):
            if part:
                out.append(chunk({"tool_calls": [{"index": i, "function": {"arguments": part}}]}))
    out.append(chunk({}, finish="tool_calls"))
    out.append(chunk(None, usage={"prompt_tokens": 150, "completion_tokens": 40, "total_tokens": 190}))
    out.append("data: [DONE]\n\n")
    return "".join(out).encode()


TEXT = text_stream()
TOOLS = tools_stream()


def wants_tools(req):
    msgs = req.get("messages") or []
    if any(m.get("role") == "tool" for m in msgs):
        return False
    users = [m for m in msgs if m.get("role") == "user"]
    if not users:
        return False
    content = users[-1].get("content")
    if isinstance(content, list):
        content = " ".join(p.get("text", "") for p in content if isinstance(p, dict))
    return "THREE TOOLS" in (content or "")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        if self.path.endswith("/__stats"):
            with LOCK:
                body = json.dumps(STATS).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        self.send_error(404)

    def do_POST(self):
        started = time.perf_counter()
        try:
            self.answer_post()
        finally:
            with LOCK:
                STATS["handle_ms"] += (time.perf_counter() - started) * 1000

    def answer_post(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if not self.path.endswith("/chat/completions"):
            self.send_error(404)
            return
        try:
            req = json.loads(raw or b"{}")
        except ValueError:
            self.send_error(400)
            return
        tools = wants_tools(req)
        with LOCK:
            STATS["requests"] += 1
            STATS["tools" if tools else "text"] += 1
            STATS["last_request_bytes"] = len(raw)
            STATS["max_request_bytes"] = max(STATS["max_request_bytes"], len(raw))
            STATS["last_request_messages"] = len(req.get("messages") or [])
        body = TOOLS if tools else TEXT
        if req.get("stream") is False:
            # Non-streaming clients get the text answer as one JSON object.
            body = json.dumps({"id": "chatcmpl-bench", "object": "chat.completion", "created": CREATED, "model": MODEL,
                               "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"},
                                            "finish_reason": "stop"}]}).encode()
            ctype = "application/json"
        else:
            ctype = "text/event-stream"
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=0)
    args = ap.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
