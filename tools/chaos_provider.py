#!/usr/bin/env python3
"""Loopback provider chaos server: a scripted model behind the real wire formats, with faults.

Speaks four provider APIs on one port (Python standard library only):
- Chat Completions   POST …/chat/completions                         (OpenRouter, OpenAI-compatible)
- Anthropic Messages POST …/messages
- Gemini             POST …/models/{model}:streamGenerateContent?alt=sse
- Responses          POST …/responses and …/openai/v1/responses      (OpenAI, Azure)
The streams follow the recordings in /work/shared/fixtures/providers (see WIRE-NOTES.md):
OpenRouter comment lines and [DONE]; Anthropic padded JSON, ping events and message_stop;
Gemini CRLF framing, whole functionCall parts and no terminator; Responses typed events with
sequence numbers ending in response.completed.

The scripted model: when the last user message asks to log "chaos food N" and the request has
no successful result for that food yet, it calls log_food for it; when the request ends with a
tool result, or the history already holds the food's successful result, it answers in text.

Faults, one per request, drawn from a seeded random generator (the harness sends requests one
at a time, so a seed replays the same run): clean answers, HTTP 429 with and without a retry
hint, 500, 503, connection resets before the answer and in the middle of the stream, stalls
before the first event and in the middle (longer than ofj's deadlines), a truncated JSON event,
invalid UTF-8 in an event, an oversized event (several MB on one data line), an error event
inside a 200 stream, and a stream that ends without its terminal marker.

Every request is appended to --log as one JSON line: the fault, what the model did, the tool
results it carried (with the journal entry ids they report) and any history problem. A request
whose history a real provider would reject (a tool call without its result, a result without
its call, roles out of order) is answered with HTTP 400 like the provider would, and logged
with "invalid".

Usage: chaos_provider.py --seed N --log FILE [--port 0] [--stall 25] [--clean-weight 40] [--only KIND,…]
Prints the bound port on the first line of stdout. GET /__stats returns counters as JSON.
"""

import argparse
import json
import random
import re
import select
import socket
import struct
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

KEY_PATTERN = "sk-chaos-"  # the harness's fake keys start with this; error bodies quote one
FOOD = re.compile(r"chaos food (\d+)")
UUID = re.compile(r"[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}")

# Fault kinds and their weights (the clean weight is set from the command line).
FAULTS = [
    ("http_429_retry_after", 5), ("http_429_no_hint", 4), ("http_500", 5), ("http_503", 5),
    ("reset_before_answer", 4), ("reset_mid_stream", 7), ("stall_first_event", 2), ("stall_mid_stream", 2),
    ("truncated_json", 5), ("invalid_utf8", 5), ("oversized_event", 4), ("error_event", 4), ("eof_no_terminator", 4),
]


class State:
    def __init__(self, seed, log_path, stall, clean_weight, only=None):
        self.rng = random.Random(seed)
        self.lock = threading.Lock()
        self.log = open(log_path, "a", encoding="utf-8")
        self.stall = stall
        self.kinds = [("clean", clean_weight)] + FAULTS
        if only:
            self.kinds = [(k, w) for k, w in self.kinds if k in only]
        self.counter = 0
        self.stats = {}

    def draw(self):
        with self.lock:
            self.counter += 1
            total = sum(w for _, w in self.kinds)
            x = self.rng.uniform(0, total)
            for kind, w in self.kinds:
                x -= w
                if x <= 0:
                    break
            # Per-request parameters come from the same generator, drawn in a fixed order.
            params = {"u": self.rng.random(), "v": self.rng.random(), "w": self.rng.random(), "n": self.rng.randrange(1 << 30)}
            self.stats[kind] = self.stats.get(kind, 0) + 1
            return self.counter, kind, params

    def record(self, entry):
        with self.lock:
            self.log.write(json.dumps(entry, sort_keys=True) + "\n")
            self.log.flush()


STATE = None

# ---------------------------------------------------------------------------------------------
# Reading requests: a neutral view of the conversation, whatever the wire.


class Conversation:
    """items: ordered list of ("user_text", text) / ("call", id, name, args) / ("result", id, text) / ("assistant_text", text)."""

    def __init__(self):
        self.items = []
        self.invalid = None


def text_of(content):
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        out = []
        for p in content:
            if isinstance(p, dict):
                if isinstance(p.get("text"), str):
                    out.append(p["text"])
                elif "content" in p:
                    out.append(text_of(p["content"]))
            elif isinstance(p, str):
                out.append(p)
        return "".join(out)
    if isinstance(content, dict):
        return json.dumps(content)
    return str(content)


def read_chat(req, conv):
    pending = []
    for m in req.get("messages") or []:
        role = m.get("role")
        if pending and role != "tool":
            conv.invalid = conv.invalid or f"assistant tool_calls {pending} not followed by tool messages"
        if role == "user":
            conv.items.append(("user_text", text_of(m.get("content"))))
        elif role == "assistant":
            if m.get("content"):
                conv.items.append(("assistant_text", text_of(m.get("content"))))
            for c in m.get("tool_calls") or []:
                f = c.get("function") or {}
                conv.items.append(("call", c.get("id"), f.get("name"), f.get("arguments")))
                pending.append(c.get("id"))
        elif role == "tool":
            cid = m.get("tool_call_id")
            if cid not in pending:
                conv.invalid = conv.invalid or f"tool message for unknown tool_call_id {cid}"
            else:
                pending.remove(cid)
            conv.items.append(("result", cid, text_of(m.get("content"))))
    if pending:
        conv.invalid = conv.invalid or f"tool_calls without results: {pending}"


def read_anthropic(req, conv):
    pending = []
    last_role = None
    for m in req.get("messages") or []:
        role = m.get("role")
        if role == last_role:
            conv.invalid = conv.invalid or "two messages in a row with the same role"
        last_role = role
        content = m.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else (content or [])
        if role == "user":
            results = [b for b in blocks if b.get("type") == "tool_result"]
            if pending and {b.get("tool_use_id") for b in results} != set(pending):
                conv.invalid = conv.invalid or f"tool_use ids {pending} without tool_result blocks immediately after"
            if results and blocks[: len(results)] != results:
                conv.invalid = conv.invalid or "tool_result blocks must come first"
            for b in blocks:
                if b.get("type") == "tool_result":
                    if b.get("tool_use_id") not in pending:
                        conv.invalid = conv.invalid or f"tool_result for unknown tool_use_id {b.get('tool_use_id')}"
                    conv.items.append(("result", b.get("tool_use_id"), text_of(b.get("content"))))
                elif b.get("type") == "text":
                    conv.items.append(("user_text", b.get("text") or ""))
            pending = []
        elif role == "assistant":
            if pending:
                conv.invalid = conv.invalid or "tool_use without a following user message"
            for b in blocks:
                if b.get("type") == "text":
                    conv.items.append(("assistant_text", b.get("text") or ""))
                elif b.get("type") == "tool_use":
                    conv.items.append(("call", b.get("id"), b.get("name"), json.dumps(b.get("input"))))
                    pending.append(b.get("id"))
    if pending:
        conv.invalid = conv.invalid or f"tool_use ids without results: {pending}"


def read_gemini(req, conv):
    pending = []  # (id or None, name)
    last_role = None
    for c in req.get("contents") or []:
        role = c.get("role")
        if role == last_role:
            conv.invalid = conv.invalid or "roles must alternate"
        last_role = role
        parts = c.get("parts") or []
        if role == "user":
            responses = [p["functionResponse"] for p in parts if "functionResponse" in p]
            if len(responses) != len(pending):
                conv.invalid = conv.invalid or "function response parts must match the function call parts of the previous turn"
            for i, p in enumerate(parts):
                if "functionResponse" in p:
                    r = p["functionResponse"]
                    conv.items.append(("result", r.get("id") or f"pos{len(conv.items)}", json.dumps(r.get("response"))))
                elif "text" in p:
                    conv.items.append(("user_text", p.get("text") or ""))
            pending = []
        elif role == "model":
            if pending:
                conv.invalid = conv.invalid or "function call parts without responses"
            for p in parts:
                if "functionCall" in p:
                    fc = p["functionCall"]
                    conv.items.append(("call", fc.get("id"), fc.get("name"), json.dumps(fc.get("args") or {})))
                    pending.append((fc.get("id"), fc.get("name")))
                elif p.get("text") and not p.get("thought"):
                    conv.items.append(("assistant_text", p["text"]))
    if pending:
        conv.invalid = conv.invalid or "function calls without responses"


def read_responses(req, conv):
    pending = []
    for it in req.get("input") or []:
        kind = it.get("type")
        role = it.get("role")
        if kind == "function_call":
            conv.items.append(("call", it.get("call_id"), it.get("name"), it.get("arguments")))
            pending.append(it.get("call_id"))
            continue
        if kind == "function_call_output":
            cid = it.get("call_id")
            if cid not in pending:
                conv.invalid = conv.invalid or f"function_call_output for unknown call_id {cid}"
            else:
                pending.remove(cid)
            conv.items.append(("result", cid, text_of(it.get("output"))))
            continue
        if kind == "reasoning":
            continue
        if pending:
            conv.invalid = conv.invalid or f"No tool output found for function call {pending[0]}."
        if role == "user":
            conv.items.append(("user_text", text_of(it.get("content"))))
        elif role == "assistant" or kind == "message":
            conv.items.append(("assistant_text", text_of(it.get("content"))))
    if pending:
        conv.invalid = conv.invalid or f"No tool output found for function call {pending[0]}."


# ---------------------------------------------------------------------------------------------
# The scripted model.


def decide(conv):
    """Returns (action, food, detail): action is "call" (log the food), "answer" (after a tool
    result), "already" (the history shows the food logged) or "chat" (no food in the message)."""
    user_texts = [i for i, it in enumerate(conv.items) if it[0] == "user_text" and it[1].strip()]
    last_user = user_texts[-1] if user_texts else -1
    text = conv.items[last_user][1] if last_user >= 0 else ""
    m = FOOD.search(text)
    food = m.group(0) if m else None
    results = [(i, it) for i, it in enumerate(conv.items) if it[0] == "result"]
    logged_before = []
    for i, it in results:
        body = it[2] or ""
        if food and food in body and UUID.search(body) and "logged" in body:
            logged_before.append(i)
    if results and results[-1][0] > last_user:
        return "answer", food, results[-1][1][2] or ""
    if food and logged_before:
        return "already", food, ""
    if food:
        return "call", food, ""
    return "chat", None, ""


def call_arguments(food, params):
    n = int(FOOD.search(food).group(1))
    return json.dumps({"name": food, "quantity": 1, "unit": "serving", "meal": "lunch",
                       "nutrients": {"energy_kcal": 100 + n % 50, "protein_g": 5 + n % 7}}, separators=(", ", ": "))


def answer_text(action, food, detail):
    if action == "answer":
        if UUID.search(detail) and "logged" in detail:
            return f"Done: {food} is in your journal for lunch."
        return f"I could not log {food}; the journal said no."
    if action == "already":
        return f"{food} is already in your journal for lunch, so I did not log it again."
    return "Tell me which chaos food to log."


def split(s, pieces):
    if len(s) < pieces:
        return [s]
    step = max(1, len(s) // pieces)
    out = [s[i:i + step] for i in range(0, len(s), step)]
    return out


# ---------------------------------------------------------------------------------------------
# Streams, as lists of encoded events. Each builder returns (events, terminal_count): the last
# `terminal_count` events are the wire's end-of-answer markers.


def sse(data, event=None, crlf=False):
    nl = "\r\n" if crlf else "\n"
    head = f"event: {event}{nl}" if event else ""
    return (head + f"data: {data}{nl}{nl}").encode("utf-8")


def chat_stream(action, food, text, params, ids):
    created = 1764400000
    def chunk(delta, finish=None, usage=None):
        body = {"id": ids["resp"], "provider": "Chaos", "model": "chaos/model", "object": "chat.completion.chunk", "created": created,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish, "native_finish_reason": finish}]}
        if usage:
            body["usage"] = usage
        return sse(json.dumps(body, separators=(",", ":"), ensure_ascii=False))
    ev = [b": OPENROUTER PROCESSING\n\n", chunk({"role": "assistant", "content": ""})]
    if action == "call":
        args = call_arguments(food, params)
        ev.append(chunk({"role": "assistant", "content": None, "tool_calls": [
            {"index": 0, "id": ids["call"], "type": "function", "function": {"name": "log_food", "arguments": ""}}]}))
        for piece in split(args, 4):
            ev.append(chunk({"role": "assistant", "content": None, "tool_calls": [{"index": 0, "function": {"arguments": piece}}]}))
        finish = "tool_calls"
    else:
        for w in split(text, 5):
            ev.append(chunk({"role": "assistant", "content": w}))
        finish = "stop"
    usage = {"prompt_tokens": 900, "completion_tokens": 30, "total_tokens": 930, "cost": 0.0001}
    ev.append(chunk({"role": "assistant", "content": ""}, finish=finish))
    ev.append(chunk({"role": "assistant", "content": ""}, finish=finish, usage=usage))
    ev.append(b"data: [DONE]\n\n")
    return ev, 1


def anthropic_stream(action, food, text, params, ids):
    pad = lambda s: s[:-1] + " " * (params["n"] % 13) + "}"
    def e(kind, body):
        return sse(pad(json.dumps(body, separators=(",", ":"), ensure_ascii=False)), event=kind)
    ev = [e("message_start", {"type": "message_start", "message": {
        "model": "claude-chaos", "id": ids["resp"], "type": "message", "role": "assistant", "content": [], "stop_reason": None,
        "stop_sequence": None, "usage": {"input_tokens": 900, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 4}}})]
    ev.append(sse('{"type": "ping"}', event="ping"))
    if action == "call":
        ev.append(e("content_block_start", {"type": "content_block_start", "index": 0, "content_block": {
            "type": "tool_use", "id": ids["call"], "name": "log_food", "input": {}, "caller": {"type": "direct"}}}))
        for piece in [""] + split(call_arguments(food, params), 3):
            ev.append(e("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": piece}}))
        stop = "tool_use"
    else:
        ev.append(e("content_block_start", {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}))
        for w in split(text, 5):
            ev.append(e("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": w}}))
        stop = "end_turn"
    ev.append(e("content_block_stop", {"type": "content_block_stop", "index": 0}))
    ev.append(e("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None}, "usage": {"output_tokens": 30}}))
    ev.append(e("message_stop", {"type": "message_stop"}))
    return ev, 1


def gemini_stream(action, food, text, params, ids):
    def chunk(parts, finish=None, tokens=0):
        c = {"content": {"parts": parts, "role": "model"}, "index": 0}
        if finish:
            c["finishReason"] = finish
        body = {"candidates": [c], "usageMetadata": {"promptTokenCount": 900, "candidatesTokenCount": tokens, "totalTokenCount": 900 + tokens},
                "modelVersion": "gemini-chaos", "responseId": ids["resp"]}
        return sse(json.dumps(body, ensure_ascii=False), crlf=True)
    ev = []
    if action == "call":
        args = json.loads(call_arguments(food, params))
        fc = {"name": "log_food", "args": args}
        if params["u"] < 0.7:
            fc["id"] = ids["call"][-8:]  # Gemini 3 sends short ids; 2.5 sends none
        ev.append(chunk([{"functionCall": fc, "thoughtSignature": "Q2hhb3NTaWduYXR1cmU="}], tokens=20))
        ev.append(chunk([{"text": ""}], finish="STOP", tokens=24))
    else:
        for w in split(text, 4):
            ev.append(chunk([{"text": w}], tokens=10))
        ev.append(chunk([{"text": ""}], finish="STOP", tokens=30))
    return ev, 1


def responses_stream(action, food, text, params, ids):
    seq = [0]
    def e(body):
        body["sequence_number"] = seq[0]
        seq[0] += 1
        return sse(json.dumps(body, separators=(",", ":"), ensure_ascii=False), event=body["type"])
    resp = {"id": ids["resp"], "object": "response", "created_at": 1764400000, "status": "in_progress", "model": "gpt-chaos", "output": []}
    ev = [e({"type": "response.created", "response": dict(resp)}), e({"type": "response.in_progress", "response": dict(resp)})]
    if action == "call":
        args = call_arguments(food, params)
        item = {"id": "fc_" + ids["call"][-12:], "type": "function_call", "status": "in_progress", "arguments": "", "call_id": ids["call"], "name": "log_food"}
        ev.append(e({"type": "response.output_item.added", "output_index": 0, "item": dict(item)}))
        for piece in split(args, 3):
            ev.append(e({"type": "response.function_call_arguments.delta", "item_id": item["id"], "output_index": 0, "delta": piece, "obfuscation": "x1y2"}))
        ev.append(e({"type": "response.function_call_arguments.done", "item_id": item["id"], "output_index": 0, "arguments": args}))
        done = dict(item, status="completed", arguments=args)
        ev.append(e({"type": "response.output_item.done", "output_index": 0, "item": done}))
        output = [done]
    else:
        mid = "msg_" + ids["resp"][-12:]
        item = {"id": mid, "type": "message", "status": "in_progress", "content": [], "role": "assistant"}
        ev.append(e({"type": "response.output_item.added", "output_index": 0, "item": item}))
        ev.append(e({"type": "response.content_part.added", "item_id": mid, "output_index": 0, "content_index": 0,
                     "part": {"type": "output_text", "annotations": [], "text": ""}}))
        for w in split(text, 5):
            ev.append(e({"type": "response.output_text.delta", "item_id": mid, "output_index": 0, "content_index": 0, "delta": w, "obfuscation": "ab"}))
        ev.append(e({"type": "response.output_text.done", "item_id": mid, "output_index": 0, "content_index": 0, "text": text}))
        part = {"type": "output_text", "annotations": [], "text": text}
        ev.append(e({"type": "response.content_part.done", "item_id": mid, "output_index": 0, "content_index": 0, "part": part}))
        done = dict(item, status="completed", content=[part])
        ev.append(e({"type": "response.output_item.done", "output_index": 0, "item": done}))
        output = [done]
    final = dict(resp, status="completed", output=output,
                 usage={"input_tokens": 900, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 30,
                        "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 930})
    ev.append(e({"type": "response.completed", "response": final}))
    return ev, 1


TEXT_KEYS = [b'"content":"', b'"text":"', b'"text": "', b'"delta":"']

STREAMS = {"chat": chat_stream, "anthropic": anthropic_stream, "gemini": gemini_stream, "responses": responses_stream}


def error_body(wire, status, message, retry_delay=None):
    """The HTTP error body each provider sends."""
    if wire == "anthropic":
        kind = {429: "rate_limit_error", 500: "api_error", 503: "overloaded_error", 400: "invalid_request_error"}.get(status, "api_error")
        return {"type": "error", "error": {"type": kind, "message": message}}
    if wire == "gemini":
        st = {429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE", 400: "INVALID_ARGUMENT"}.get(status, "UNKNOWN")
        err = {"code": status, "message": message, "status": st}
        if retry_delay is not None:
            err["details"] = [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": retry_delay}]
        return {"error": err}
    if wire == "chat":
        return {"error": {"code": status, "message": message, "metadata": {"provider_name": "Chaos"}}}
    code = {429: "rate_limit_exceeded", 500: "server_error", 503: "server_error", 400: "invalid_request_error"}.get(status)
    return {"error": {"message": message, "type": code, "param": None, "code": code}}


def stream_error_event(wire, message):
    """An error reported inside a 200 stream."""
    if wire == "anthropic":
        return [sse(json.dumps({"type": "error", "error": {"type": "overloaded_error", "message": message}}), event="error")]
    if wire == "responses":
        return [sse(json.dumps({"type": "error", "code": "server_error", "message": message, "param": None, "sequence_number": 90}), event="error"),
                sse(json.dumps({"type": "response.failed", "sequence_number": 91, "response": {"status": "failed", "error": {"code": "server_error", "message": message}}}),
                    event="response.failed")]
    if wire == "gemini":
        return [sse(json.dumps({"error": {"code": 503, "message": message, "status": "UNAVAILABLE"}}), crlf=True)]
    return [sse(json.dumps({"error": {"message": message, "type": "server_error", "code": 502}}))]


# ---------------------------------------------------------------------------------------------
# The HTTP side.


def wire_of(path):
    if path.endswith("/chat/completions"):
        return "chat"
    if path.endswith("/messages"):
        return "anthropic"
    if ":streamGenerateContent" in path:
        return "gemini"
    if path.endswith("/responses"):
        return "responses"
    return None


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def finish(self):
        try:
            super().finish()
        except OSError:
            pass

    def do_GET(self):
        if self.path.endswith("/__stats"):
            with STATE.lock:
                body = json.dumps({"requests": STATE.counter, "kinds": STATE.stats}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        self.send_error(404)

    # -- low-level helpers

    def reset(self):
        """Closes the connection with a TCP RST (SO_LINGER 0), as a dropped connection looks."""
        try:
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        except OSError:
            pass
        try:
            self.connection.close()
        except OSError:
            pass
        self.close_connection = True

    def client_gone(self):
        try:
            r, _, _ = select.select([self.connection], [], [], 0)
            if r:
                return self.connection.recv(1, socket.MSG_PEEK) == b""
        except OSError:
            return True
        return False

    def stall(self):
        """Sends nothing until the client gives up (or --stall seconds pass); returns the seconds waited."""
        start = time.monotonic()
        while time.monotonic() - start < STATE.stall:
            if self.client_gone():
                break
            time.sleep(0.1)
        return round(time.monotonic() - start, 2)

    def start_stream(self, wire):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def chunk(self, data):
        if data:
            self.wfile.write(b"%x\r\n" % len(data) + data + b"\r\n")
            self.wfile.flush()

    def end_chunks(self):
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def send_json(self, status, body, headers=()):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    # -- a model request

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        wire = wire_of(self.path.split("?")[0])
        if wire is None:
            self.send_json(404, {"error": {"message": "not found", "code": "404"}})
            return
        try:
            req = json.loads(raw or b"{}")
        except ValueError:
            self.send_json(400, error_body(wire, 400, "request body is not JSON"))
            return
        conv = Conversation()
        {"chat": read_chat, "anthropic": read_anthropic, "gemini": read_gemini, "responses": read_responses}[wire](req, conv)
        number, kind, params = STATE.draw()
        action, food, detail = decide(conv)
        ids = {"resp": f"chaos-{number:06d}-{params['n']:08x}", "call": f"call_chaos{number:06d}{params['n'] % 100000:05d}"}
        results = []
        for it in conv.items:
            if it[0] == "result":
                body = it[2] or ""
                m = UUID.search(body)
                results.append({"call_id": it[1], "entry_id": m.group(0).upper() if m and "logged" in body else None,
                                "food": (FOOD.search(body).group(0) if FOOD.search(body) else None)})
        entry = {"request": number, "wire": wire, "fault": kind, "action": action, "food": food, "results": results,
                 "key_sent": any(KEY_PATTERN in v for _, v in self.headers.items())}
        if action == "call":
            entry["call_id"] = ids["call"]
        if conv.invalid:
            # What a provider does with such a history: refuse it. Logged as a product bug.
            entry["invalid"] = conv.invalid
            entry["fault"] = "none (invalid history)"
            STATE.record(entry)
            self.send_json(400, error_body(wire, 400, "Invalid request: " + conv.invalid))
            return
        text = answer_text(action, food, detail)
        events, terminal = STREAMS[wire](action, food, text, params, ids)
        try:
            entry.update(self.serve(wire, kind, params, events, terminal))
        except OSError as e:
            entry["client_error"] = type(e).__name__
        STATE.record(entry)

    def serve(self, wire, kind, params, events, terminal):
        """Sends `events` with the fault `kind` applied; returns what was done, for the log."""
        u, v = params["u"], params["v"]
        # Where a mid-stream fault strikes: after 1..n-terminal events (never after the end marker).
        body_events = len(events) - terminal
        cut = 1 + int(v * (body_events - 1)) if body_events > 1 else 1
        if kind == "http_429_retry_after":
            if wire == "gemini":
                self.send_json(429, error_body(wire, 429, "Resource has been exhausted (e.g. check quota).", retry_delay="1.5s"))
                return {"hint": "retryDelay 1.5s"}
            if u < 0.5:
                self.send_json(429, error_body(wire, 429, "Rate limit reached; please try again in 1s."), headers=[("Retry-After", "1")])
                return {"hint": "Retry-After: 1"}
            self.send_json(429, error_body(wire, 429, "Rate limit reached."), headers=[("retry-after-ms", "800")])
            return {"hint": "retry-after-ms: 800"}
        if kind == "http_429_no_hint":
            self.send_json(429, error_body(wire, 429, "Too many requests"))
            return {}
        if kind == "http_500":
            # Sometimes the message quotes a key, as some gateways do; ofj must not show it.
            message = "The server had an error while processing your request. Sorry about that!"
            if u < 0.3:
                message = f"upstream error for key {KEY_PATTERN}LEAKED0123456789abcdef: internal failure"
            self.send_json(500, error_body(wire, 500, message))
            return {}
        if kind == "http_503":
            if u < 0.3:
                # A proxy's HTML error page instead of JSON.
                data = b"<html><body><h1>503 Service Unavailable</h1>No server is available to handle this request.</body></html>"
                self.send_response(503)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                return {"body": "html"}
            self.send_json(503, error_body(wire, 503, "The model is overloaded. Please try again later."))
            return {}
        if kind == "reset_before_answer":
            self.reset()
            return {}
        self.start_stream(wire)
        if kind == "clean":
            for e in events:
                self.chunk(e)
            self.end_chunks()
            return {}
        if kind == "reset_mid_stream":
            for e in events[:cut]:
                self.chunk(e)
            time.sleep(0.02)
            self.reset()
            return {"after_events": cut}
        if kind == "stall_first_event":
            if wire == "chat" and u < 0.5:
                self.chunk(events[0])  # an OpenRouter keep-alive comment is not an event
                waited = self.stall()
                self.reset()
                return {"stalled_s": waited, "after": "comment"}
            waited = self.stall()
            self.reset()
            return {"stalled_s": waited}
        if kind == "stall_mid_stream":
            for e in events[:cut]:
                self.chunk(e)
            waited = self.stall()
            for e in events[cut:]:
                try:
                    self.chunk(e)
                except OSError:
                    break
            self.reset()
            return {"after_events": cut, "stalled_s": waited}
        if kind == "eof_no_terminator":
            for e in events[:cut]:
                self.chunk(e)
            self.end_chunks()
            self.close_connection = True
            return {"after_events": cut}
        if kind == "error_event":
            for e in events[:cut]:
                self.chunk(e)
            for e in stream_error_event(wire, "The server had an error while processing your request."):
                self.chunk(e)
            self.end_chunks()
            self.close_connection = True
            return {"after_events": cut}
        # Faults that damage one event and send the rest.
        target = self.pick_data_event(events, terminal, v)
        damaged = list(events)
        what = {}
        if kind == "truncated_json":
            line = events[target]
            head, _, data = line.partition(b"data: ")
            payload = data.rstrip(b"\r\n")
            keep = max(1, int(len(payload) * (0.2 + 0.6 * u)))
            nl = b"\r\n" if line.endswith(b"\r\n\r\n") else b"\n"
            damaged[target] = head + b"data: " + payload[:keep] + nl + nl
            what = {"event": target, "kept_bytes": keep}
        elif kind == "invalid_utf8":
            bad = [b"\xff\xfe", b"\xc0\xaf", b"\xed\xa0\x80", b"\x80", b"\xf4\x90\x80\x80"][params["n"] % 5]
            # In a text delta when the answer has text (the person sees it), else in an extra field.
            texts = [i for i, e in enumerate(events) for key in TEXT_KEYS if key in e and not e.endswith(b'""}\n\n')]
            if texts:
                target = texts[int(v * len(texts)) % len(texts)]
                line = events[target]
                key = next(k for k in TEXT_KEYS if k in line)
                i = line.index(key) + len(key)
                damaged[target] = line[:i] + bad + line[i:]
            else:
                line = events[target]
                j = line.rindex(b"}")
                damaged[target] = line[:j] + b',"chaos_note":"' + bad + b'"' + line[j:]
            what = {"event": target, "bytes": bad.hex(), "in": "text" if texts else "extra field"}
        elif kind == "oversized_event":
            size = int((2 + 4 * u) * 1024 * 1024)
            line = events[target]
            head, _, data = line.partition(b"data: ")
            payload = data.rstrip(b"\r\n")
            nl = b"\r\n" if line.endswith(b"\r\n\r\n") else b"\n"
            # A padding field, as Responses' "obfuscation": unknown to the decoders, several MB.
            padded = payload[:-1] + b',"chaos_padding":"' + b"p" * size + b'"}'
            damaged[target] = head + b"data: " + padded + nl + nl
            what = {"event": target, "bytes": len(padded)}
        for e in damaged:
            self.chunk(e)
        self.end_chunks()
        return what

    @staticmethod
    def pick_data_event(events, terminal, v):
        """An event that carries JSON data (not a comment, not [DONE])."""
        candidates = [i for i, e in enumerate(events) if b"data: {" in e]
        return candidates[int(v * len(candidates)) % len(candidates)]


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        # ofj closing a kept-alive connection (or giving up on a stall) is expected here.
        if isinstance(sys.exc_info()[1], OSError):
            return
        super().handle_error(request, client_address)


def main():
    global STATE
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--log", required=True)
    ap.add_argument("--stall", type=float, default=25.0, help="longest stall, seconds (ofj's fast deadlines: first event 10 s, idle 8 s)")
    ap.add_argument("--clean-weight", type=float, default=40.0, help="weight of clean answers against the faults' total of 56")
    ap.add_argument("--only", default="", help="comma-separated fault kinds to draw from (for trying one kind)")
    args = ap.parse_args()
    only = set(filter(None, args.only.split(",")))
    unknown = only - {k for k, _ in [("clean", 0)] + FAULTS}
    if unknown:
        ap.error("unknown fault kinds: " + ", ".join(sorted(unknown)))
    STATE = State(args.seed, args.log, args.stall, args.clean_weight, only)
    server = Server(("127.0.0.1", args.port), Handler)
    print(server.server_address[1], flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
