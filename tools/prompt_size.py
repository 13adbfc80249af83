#!/usr/bin/env python3
"""The fixed part of ofj's first request on a new thread: its bytes, and its tokens by a real tokenizer.

Runs `OFJ ask "hello"` once against a loopback capture server (a Chat Completions fake that keeps
the request bodies), so it measures exactly what ofj sends a llama.cpp server on a new thread. When
the first request offers `enable_tools`, the fake answers it with one enable_tools call per group,
so the second request carries every tool ("all groups"). Then ofj's own estimates are read from
`/context` in the REPL (piped): on a new thread (the default request) and on that thread again
(`--resume`: every group enabled).

When --llama names a running llama.cpp `llama-server` (started by you, e.g.
`llama-server -m gemma-3-270m-q4_k_m.gguf --port 8091 --jinja -c 16384`), it counts tokens with
that server's `/tokenize` (the model's own tokenizer) and `/apply-template` (the chat template
as the server renders it, tools included):

- system: the system prompt's text;
- tools_json: the `tools` array as sent (compact JSON);
- per tool: the tool's spec as sent ({"type":"function","function":{…}}), raw;
- templated: tokens of the rendered prompt with system prompt and tools, minus the same render
  with neither (so the person's message and the template's framing of it are left out).

--json prints everything as JSON (keep it to compare builds: --before FILE prints a before/after
table against such a file). --table FILE writes the per-tool table (name,
bytes, real tokens); --specs FILE writes every spec as sent with its real token count (the test
data of Tests/AgentTests/ToolTokenEstimateTests.swift).

Starts and stops only its own capture server; never part of `make test`.
Usage: tools/prompt_size.py --ofj .build/debug/ofj [--llama http://127.0.0.1:8091] [--table FILE]
       [--specs FILE [--note TEXT]] [--json] [--before FILE]
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

BODIES = []


def chunk(delta, finish=None):
    return "data: " + json.dumps({"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m",
                                  "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}) + "\n\n"


def sse(groups=None):
    """"ok", or (groups given) one enable_tools call per group."""
    # No usage: a reported prompt_tokens would correct the thread's estimates (/context shows them
    # corrected), and this script reads ofj's own estimate.
    if groups:
        calls = [{"index": i, "id": f"call_{i}", "type": "function",
                  "function": {"name": "enable_tools", "arguments": json.dumps({"group": g})}} for i, g in enumerate(groups)]
        body = chunk({"role": "assistant", "tool_calls": calls}) + chunk({}, "tool_calls")
    else:
        body = chunk({"role": "assistant", "content": "ok"}) + chunk({}, "stop")
    return (body + "data: [DONE]\n\n").encode()


def groups_offered(raw):
    """The groups enable_tools offers in a request body (none when it has no such tool)."""
    for t in json.loads(raw).get("tools") or []:
        if t["function"]["name"] == "enable_tools":
            return t["function"]["parameters"]["properties"]["group"]["enum"]
    return []


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
            self.reply(200, sse(groups_offered(raw) if len(BODIES) == 1 else None), "text/event-stream")
        else:
            self.reply(404, b"{}", "application/json")


class CaptureServer(ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        pass  # ofj closing a kept-alive connection at exit is not an error here


def estimates(ofj, env, resume):
    """ofj's own estimates of the system prompt and tool specs, from /context in the REPL."""
    out = subprocess.run([ofj] + (["--resume"] if resume else []), input="/context\n/quit\n", env=env, capture_output=True,
                         text=True, timeout=120).stdout
    m = re.search(r"system prompt ~([\d,]+) .*?(\d+) tool spec\(s\) ~([\d,]+)", out)
    if not m:
        return None
    return {"system": int(m.group(1).replace(",", "")), "tools": int(m.group(3).replace(",", "")), "tool_count": int(m.group(2))}


def capture(ofj):
    """(default request body, all-groups request body or None, ofj's estimates for each)."""
    server = CaptureServer(("127.0.0.1", 0), Capture)
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
            new_thread = estimates(ofj, env, resume=False)
            subprocess.run([ofj, "ask", "hello"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
            every_group = estimates(ofj, env, resume=True) if len(BODIES) > 1 else None
    finally:
        server.shutdown()
    if not BODIES:
        sys.exit("prompt_size: ofj sent no request")
    return BODIES[0], (BODIES[1] if len(BODIES) > 1 else None), new_thread, every_group


def post(base, path, body):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data=data, headers={"Content-Type": "application/json"})
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


def system_text(messages):
    return "".join(m["content"] if isinstance(m["content"], str) else "".join(p.get("text", "") for p in m["content"])
                   for m in messages if m.get("role") == "system")


def measure(raw, base, user_turn=True):
    """Bytes (and, with a llama server at `base`, tokens) of one request's fixed part."""
    req = json.loads(raw)
    system = system_text(req.get("messages") or [])
    tools = req.get("tools") or []
    out = {"request_bytes": len(raw), "system_bytes": len(system.encode()), "tools": len(tools),
           "tools_bytes": len(compact(tools).encode()), "per_tool": []}
    for t in tools:
        out["per_tool"].append({"name": t["function"]["name"], "bytes": len(compact(t).encode()), "spec": t})
    if base:
        out["system_tokens"] = count(base, system)
        out["tools_tokens"] = count(base, compact(tools))
        for row in out["per_tool"]:
            row["tokens"] = count(base, compact(row["spec"]))
        if user_turn:
            user = [{"role": "user", "content": "hello"}]
            out["templated_fixed_tokens"] = (templated(base, [{"role": "system", "content": system}] + user, tools)
                                             - templated(base, user, None))
    return out


def line(name, before, after):
    fmt = lambda v: "—" if v is None else f"{v:,}"
    return f"  {name:36} {fmt(before):>10} {fmt(after):>10}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ofj", required=True)
    ap.add_argument("--llama")
    ap.add_argument("--table")
    ap.add_argument("--specs")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--before")
    ap.add_argument("--note", help="where the server came from, kept in the --specs file")
    args = ap.parse_args()
    base = args.llama.rstrip("/") if args.llama else None
    first, every, est_new, est_all = capture(args.ofj)
    out = measure(first, base)
    out["ofj_estimate"] = est_new
    if every:
        out["all_groups"] = measure(every, base, user_turn=False)
        out["all_groups"]["ofj_estimate"] = est_all
    if args.table:
        with open(args.table, "w") as f:
            f.write("# name\tbytes\ttokens  (tools/prompt_size.py: each spec as sent, compact JSON, by /tokenize)\n")
            for row in out["per_tool"]:
                f.write(f"{row['name']}\t{row['bytes']}\t{row.get('tokens', '')}\n")
    if args.specs:
        sets = {"default": out}
        if every:
            sets["all_groups"] = out["all_groups"]
        props = post(base, "/props", None) if base else {}
        about = {"measured_by": "tools/prompt_size.py --specs (each spec as ofj sends it to a llama.cpp server, compact JSON, "
                                "counted by the server's /tokenize)",
                 "model": os.path.basename(props.get("model_path", "")) or None,
                 "build": props.get("build_info"), "note": args.note}
        with open(args.specs, "w") as f:
            json.dump({"about": about} | {name: {"system_tokens": m.get("system_tokens"), "tools_tokens": m.get("tools_tokens"),
                              "specs": [{"tokens": r.get("tokens"), "spec": r["spec"]} for r in m["per_tool"]]}
                       for name, m in sets.items()}, f, indent=1, ensure_ascii=False)
            f.write("\n")
    if args.json:
        print(json.dumps(out, indent=1))
        return
    before = json.load(open(args.before)) if args.before else {}
    b = lambda key, d=before: d.get(key)
    print(f"{'':38} {'before':>10} {'after':>10}")
    print(line("default request bytes", b("request_bytes"), out["request_bytes"]))
    print(line("tools offered", b("tools"), out["tools"]))
    print(line("tool JSON bytes", b("tools_bytes"), out["tools_bytes"]))
    print(line("system prompt bytes", b("system_bytes"), out["system_bytes"]))
    if base:
        print(line("system prompt tokens", b("system_tokens"), out["system_tokens"]))
        print(line("tool JSON tokens", b("tools_tokens"), out["tools_tokens"]))
        fixed = lambda d: None if d.get("tools_tokens") is None else d["system_tokens"] + d["tools_tokens"]
        print(line("fixed part tokens (system + tools)", fixed(before) if before else None, fixed(out)))
        print(line("fixed part as the template prints it", b("templated_fixed_tokens"), out["templated_fixed_tokens"]))
    e, eb = out.get("ofj_estimate") or {}, before.get("ofj_estimate") or {}
    print(line("ofj estimate: system prompt", eb.get("system"), e.get("system")))
    print(line("ofj estimate: tool specs", eb.get("tools"), e.get("tools")))
    if base and e.get("tools"):
        print(f"  ofj's tool estimate vs real: {100 * (e['tools'] - out['tools_tokens']) / out['tools_tokens']:+.1f}%")
    if every:
        a = out["all_groups"]
        print(f"every group enabled: {a['tools']} tools, {a['tools_bytes']:,} bytes of JSON"
              + (f", {a['tools_tokens']:,} tokens" if base else "")
              + (f"; ofj estimates {a['ofj_estimate']['tools']:,}" if a.get("ofj_estimate") else ""))
    for row in out["per_tool"]:
        print(f"  {row['name']:28} {row['bytes']:6} bytes" + (f" {row['tokens']:6} tokens" if "tokens" in row else ""))


if __name__ == "__main__":
    main()
