#!/usr/bin/env python3
"""The fixed part of ofj's first request on a new thread: its bytes, and its tokens by a real tokenizer.

Runs `OFJ ask "hello"` once against a loopback capture server (a Chat Completions fake that keeps
the request body and answers "ok"), so it measures exactly what ofj sends a llama.cpp server on a
new thread. Then, when --llama names a running llama.cpp `llama-server` (started by you, e.g.
`llama-server -m gemma-3-270m-q4_k_m.gguf --port 8091 --jinja -c 16384`), it counts tokens with
that server's `/tokenize` (the model's own tokenizer) and `/apply-template` (the chat template
as the server renders it, tools included):

- system: the system prompt's text;
- tools_json: the `tools` array as sent (compact JSON);
- per tool: the tool's spec as sent ({"type":"function","function":{…}}), raw;
- templated: tokens of the rendered prompt with system prompt and tools, minus the same render
  with neither (so the person's message and the template's framing of it are left out).

--table FILE writes the per-tool table (name, bytes, real tokens).

Starts and stops only its own capture server; never part of `make test`.
Usage: tools/prompt_size.py --ofj .build/debug/ofj [--llama http://127.0.0.1:8091] [--table FILE] [--json]
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

BODIES = []


def sse():
    def chunk(delta, finish=None):
        return "data: " + json.dumps({"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m",
                                      "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}) + "\n\n"
    usage = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m", "choices": [],
             "usage": {"prompt_tokens": 3000, "completion_tokens": 1, "total_tokens": 3001}}
    return (chunk({"role": "assistant", "content": "ok"}) + chunk({}, "stop") + "data: " + json.dumps(usage) + "\n\n"
            + "data: [DONE]\n\n").encode()


class Capture(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, code, body, ctype):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path.endswith("/props"):
            self.reply(200, json.dumps({"default_generation_settings": {"n_ctx": 16384},
                                        "chat_template_caps": {"supports_tools": True}}).encode(), "application/json")
        else:
            self.reply(404, b"{}", "application/json")

    def do_POST(self):
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.path.endswith("/chat/completions"):
            BODIES.append(raw)
            self.reply(200, sse(), "text/event-stream")
        else:
            self.reply(404, b"{}", "application/json")


def capture(ofj):
    server = ThreadingHTTPServer(("127.0.0.1", 0), Capture)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    try:
        with tempfile.TemporaryDirectory() as home:
            os.makedirs(os.path.join(home, "config", "ofj"))
            with open(os.path.join(home, "config", "ofj", "config.json"), "w") as f:
                json.dump({"provider": "llamacpp", "providers": {"llamacpp": {"base_url": f"http://127.0.0.1:{port}/v1"}}}, f)
            env = {k: v for k, v in os.environ.items() if not k.startswith("OFJ_")}
            env.update({"OFJ_HOME": home, "HOME": home, "XDG_CONFIG_HOME": os.path.join(home, "config"),
                        "XDG_STATE_HOME": os.path.join(home, "state"), "NO_COLOR": "1"})
            subprocess.run([ofj, "ask", "hello"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
    finally:
        server.shutdown()
    if not BODIES:
        sys.exit("prompt_size: ofj sent no request")
    return BODIES[0]


def post(base, path, body):
    req = urllib.request.Request(base + path, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=300) as r:
        return json.loads(r.read())


def count(base, text):
    return len(post(base, "/tokenize", {"content": text, "with_pieces": False})["tokens"])


def templated(base, messages, tools):
    body = {"messages": messages}
    if tools:
        body["tools"] = tools
    return count(base, post(base, "/apply-template", body)["prompt"])


def compact(value):
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ofj", required=True)
    ap.add_argument("--llama")
    ap.add_argument("--table")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    raw = capture(args.ofj)
    req = json.loads(raw)
    messages = req.get("messages") or []
    system = "".join(m["content"] if isinstance(m["content"], str) else "".join(p.get("text", "") for p in m["content"])
                     for m in messages if m.get("role") == "system")
    tools = req.get("tools") or []
    out = {"request_bytes": len(raw), "system_bytes": len(system.encode()), "tools": len(tools),
           "tools_bytes": len(compact(tools).encode()), "per_tool": []}
    for t in tools:
        out["per_tool"].append({"name": t["function"]["name"], "bytes": len(compact(t).encode())})
    if args.llama:
        base = args.llama.rstrip("/")
        out["system_tokens"] = count(base, system)
        out["tools_tokens"] = count(base, compact(tools))
        for row in out["per_tool"]:
            spec = next(t for t in tools if t["function"]["name"] == row["name"])
            row["tokens"] = count(base, compact(spec))
        user = [{"role": "user", "content": "hello"}]
        out["templated_fixed_tokens"] = (templated(base, [{"role": "system", "content": system}] + user, tools)
                                         - templated(base, user, None))
    if args.table:
        with open(args.table, "w") as f:
            f.write("# name\tbytes\ttokens  (tools/prompt_size.py: each spec as sent, compact JSON, by /tokenize)\n")
            for row in out["per_tool"]:
                f.write(f"{row['name']}\t{row['bytes']}\t{row.get('tokens', '')}\n")
    if args.json:
        print(json.dumps(out, indent=1))
        return
    print(f"request: {out['request_bytes']} bytes; system prompt {out['system_bytes']} bytes; "
          f"{out['tools']} tools, {out['tools_bytes']} bytes of JSON")
    if args.llama:
        print(f"tokens: system {out['system_tokens']}, tools {out['tools_tokens']}, "
              f"fixed part {out['system_tokens'] + out['tools_tokens']} raw, {out['templated_fixed_tokens']} as the template prints it")
    for row in out["per_tool"]:
        print(f"  {row['name']:28} {row['bytes']:6} bytes" + (f" {row['tokens']:6} tokens" if "tokens" in row else ""))


if __name__ == "__main__":
    main()
