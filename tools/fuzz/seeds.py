#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets (tools/fuzz.sh) into OUT/<target>/.

Sources: the recorded provider streams in ../shared/fixtures/providers (cassette bodies, and
.chunks.txt payloads re-framed as SSE), the tool calls and files in transcripts/*.ofjt, and
hand-made Hrana responses in the shapes tools/turso_server.py answers with.
Usage: seeds.py REPO_ROOT FIXTURES_DIR OUT_DIR
"""
import hashlib
import json
import os
import re
import sys

MAX_SEED = 12 * 1024  # longer streams are shortened to their first and last events
KEY = "sk-fuzz-key-0123456789"  # the key tools/fuzz/providers.swift checks never leaks


def write(out, target, data):
    if isinstance(data, str):
        data = data.encode()
    d = os.path.join(out, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, hashlib.sha1(data).hexdigest()[:16]), "wb") as f:
        f.write(data)


def events(body):
    """Splits an SSE body into its events (blank-line separated), keeping the separators."""
    return [e + "\n\n" for e in re.split(r"\r?\n\r?\n", body.replace("\r\n", "\n")) if e.strip()]


def shortened(body):
    if len(body.encode()) <= MAX_SEED:
        return [body]
    ev = events(body)
    out, head = [], ""
    for e in ev[:-3]:  # as many leading events as fit, then the closing ones
        if len((head + e).encode()) > MAX_SEED // 2:
            break
        head += e
    out.append(head + "".join(ev[-3:]))
    return out


def reframe(path, named):
    out = ""
    for line in open(path, encoding="utf-8"):
        line = line.strip()
        if not line:
            continue
        if named:
            try:
                t = json.loads(line).get("type")
            except (ValueError, AttributeError):
                t = None
            if isinstance(t, str):
                out += f"event: {t}\n"
        out += f"data: {line}\n\n"
    return out


def provider_seeds(fixtures, out):
    folders = {"gemini": ("gemini", False), "chat": ("openai-chat", False),
               "responses": ("openai-responses", True), "anthropic": ("anthropic", True)}
    for target, (folder, named) in folders.items():
        d = os.path.join(fixtures, folder)
        for name in sorted(os.listdir(d)):
            path = os.path.join(d, name)
            bodies = []
            if name.endswith(".cassette.json"):
                for it in json.load(open(path, encoding="utf-8"))["interactions"]:
                    bodies.append(it["response"]["body"])
            elif name.endswith(".chunks.txt"):
                bodies.append(reframe(path, named))
            elif name.endswith(".sse"):
                bodies.append(open(path, encoding="utf-8").read())
            for body in bodies:
                for seed in shortened(body):
                    write(out, target, seed)
                    write(out, "sse", seed)
                # Each event's JSON payload, for the JSONDocument target.
                for event in events(body):
                    for line in event.split("\n"):
                        if line.startswith("data:") and line[5:].strip() not in ("", "[DONE]"):
                            write(out, "json", line[5:].strip())
    # Errors reported inside a 200 stream, quoting the key the harness checks for.
    msg = f"Incorrect API key provided: {KEY}. Retry in 3s"
    write(out, "gemini", 'data: {"error": {"code": 429, "message": "%s", "status": "RESOURCE_EXHAUSTED", '
          '"details": [{"retryDelay": "3s"}]}}\r\n\r\n' % msg)
    write(out, "gemini", '{"error": {"code": 500, "message": "%s", "status": "INTERNAL"}}\n' % msg)
    write(out, "chat", 'data: {"error": {"message": "%s", "code": "invalid_api_key"}}\n\ndata: [DONE]\n\n' % msg)
    write(out, "responses", 'event: response.failed\ndata: {"type": "response.failed", "response": '
          '{"error": {"code": "server_error", "message": "%s"}}}\n\n' % msg)
    write(out, "anthropic", 'event: error\ndata: {"type": "error", "error": {"type": "overloaded_error", "message": "%s"}}\n\n' % msg)
    # SSE edge cases: BOM, CR and CRLF line ends, comments, ids, retry, multi-line data, no final blank line.
    for s in ["\ufeffdata: a\n\n", "data: a\rdata: b\r\r", "data: a\r\n\r\n", ": comment\nid: 7\nretry: 10\nevent: x\ndata: 1\ndata: 2\n\n",
              "id: a\x00b\ndata: z\n\n", "data:no-space\n\nevent: only\n\n", "garbage line\ndata: {}\n", "data: tail without end"]:
        write(out, "sse", s)


def transcript_seeds(root, out):
    d = os.path.join(root, "transcripts")
    src = open(os.path.join(root, "Sources/NutritionTools/NutritionToolbox.swift"), encoding="utf-8").read()
    names = []
    for var in ("readToolNames", "writeToolNames"):
        block = re.search(var + r" = \[(.*?)\]", src, re.S).group(1)
        names += re.findall(r'"([a-z_]+)"', block)
    for i, name in enumerate(names):
        write(out, "schema", bytes([i]) + b"{}")
    for name in sorted(os.listdir(d)):
        if not name.endswith(".ofjt"):
            continue
        text = open(os.path.join(d, name), encoding="utf-8").read()
        if len(text.encode()) <= 4 * MAX_SEED:
            write(out, "transcript", text)
        for m in re.finditer(r"^model: call \S+ (\S+) (\{.*)$", text, re.M):
            if m.group(1) in names:
                write(out, "schema", bytes([names.index(m.group(1))]) + m.group(2).encode())


def hrana_seeds(out):
    def value(t, v=None, key="value"):
        return {"type": t} if v is None else {"type": t, key: v}
    row = [value("integer", "42"), value("float", 1.5), value("text", "x"), value("blob", "AAEC", "base64"), value("null")]
    stmt = {"cols": [{"name": n, "decltype": None} for n in "abcde"], "rows": [row], "affected_row_count": 1,
            "last_insert_rowid": "7", "replication_index": "3"}
    empty = {"cols": [], "rows": [], "affected_row_count": 0, "last_insert_rowid": None}
    close = {"type": "ok", "response": {"type": "close"}}
    err = {"message": "SQLITE_CONSTRAINT: UNIQUE constraint failed", "code": "SQLITE_CONSTRAINT"}

    def body(results):
        return json.dumps({"baton": None, "base_url": None, "results": results}).encode()
    execute = body([{"type": "ok", "response": {"type": "execute", "result": stmt}}, close])
    failed = body([{"type": "error", "error": err}, close])
    batch2 = body([{"type": "ok", "response": {"type": "batch", "result": {"step_results": [empty, stmt], "step_errors": [None, None]}}}, close])
    # transaction of 2 statements: BEGIN, 2 statements, COMMIT, ROLLBACK (skipped)
    tx_ok = body([{"type": "ok", "response": {"type": "batch", "result": {
        "step_results": [empty, empty, stmt, empty, None], "step_errors": [None, None, None, None, None]}}}, close])
    tx_failed = body([{"type": "ok", "response": {"type": "batch", "result": {
        "step_results": [empty, None, None, None, empty], "step_errors": [None, err, None, None, None]}}}, close])
    for selector, b in [(0, execute), (0, failed), (1, batch2), (1, failed), (2, tx_ok), (2, tx_failed), (0x80, execute),
                        (0xF0, b'{"message": "bad request"}'), (0xF3, b"")]:
        write(out, "hrana", bytes([selector]) + b)


def mcp_seeds(out):
    """JSON-RPC lines a client sends to ofj mcp, behind the selector byte (chunk size, small limit)."""
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
                                                                       "clientInfo": {"name": "c", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": "a", "method": "tools/call", "params": {"name": "log_food", "arguments": {"name": "x", "idempotency_key": "k"}}},
        {"jsonrpc": "2.0", "id": "ofj-1", "result": {"action": "accept"}},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "a"}},
        [{"jsonrpc": "2.0", "id": 2, "method": "ping"}],
    ]
    text = "\n".join(json.dumps(l) for l in lines).encode() + b"\n"
    for selector in (0x00, 0x03, 0x0F, 0x80, 0x85):
        write(out, "mcp", bytes([selector]) + text)
    big = b'{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"q":"' + b"a" * 200 + b'"}}\r\n{"jsonrpc":"2.0","id":10,"method":"ping"}'
    write(out, "mcp", bytes([0x81]) + big)
    write(out, "mcp", bytes([0x02]) + b'{"jsonrpc": "2.0", "id": 1, "method"\n\n  \nnot json\n')


def packaged_seeds(root, out):
    """OFF products (each search hit alone, trimmed to its nutriments and serving) and FDC foods."""
    d = os.path.join(root, "Tests", "PackagedFoodsTests", "Fixtures")
    for name in sorted(os.listdir(d)):
        if not name.endswith(".json"):
            continue
        doc = json.load(open(os.path.join(d, name), encoding="utf-8"))
        keep = ("product_name", "brands", "serving_size", "quantity", "product_quantity", "nutriments")
        for p in doc.get("products", []) + ([doc["product"]] if "product" in doc else []):
            write(out, "packaged", json.dumps({"product": {k: p[k] for k in keep if k in p}}))
            if "serving_size" in p and isinstance(p["serving_size"], str):
                write(out, "packaged", p["serving_size"])
        for f in doc.get("foods", [])[:5] + ([doc] if "fdcId" in doc else []):
            write(out, "packaged", json.dumps(f)[:MAX_SEED])
    for text in ["1 bar (40 g)", "60.8 g (1 tranche)", "33 cl", "<0.5", "1,5", "1 ONZ", "2 biscuits (25 g)", "½ cup (120 ml)"]:
        write(out, "packaged", text)
    write(out, "packaged", json.dumps({"product": {"nutriments": {"fat_100g": "1,5", "sugars_100g": "<0.5", "salt_100g": "~1",
                                                                 "energy_100g": "1e400", "fiber_100g": -3}}}))
def research_seeds(root, out):
    """URLs from the hostile-URL suite and small HTML pages for urlpolicy and htmlreduce."""
    path = os.path.join(root, "Tests", "ResearchTests", "HostileURLTests.swift")
    with open(path, encoding="utf-8") as f:
        for m in re.finditer(r'^        "([^"]*)",$', f.read(), re.M):
            write(out, "urlpolicy", m.group(1).replace(":W/", ":8080/").replace("\\\\", "\\"))
    for url in ["https://www.chipotle.com/nutrition-calculator", "http://[2606:2800:220:1::1]:8443/a?b#c", "http://8.8.8.8./x"]:
        write(out, "urlpolicy", url)
    pages = [
        "<html><head><title>T &amp; x</title><style>a{}</style></head><body><nav>n</nav><h1>H</h1><p>p</p>"
        "<ul><li>a</li></ul><table><tr><td>1</td><td>2</td></tr></table><script>s</script></body></html>",
        "<!-- c --><p>a &lt; b &#x41; &#65; &bogus;</p><textarea><p>t</p></textarea><svg><title>s</title></svg>",
        "<div>" * 200 + "deep" + "</div>" * 200,
    ]
    for page in pages:
        write(out, "htmlreduce", page)


def main():
    root, fixtures, out = sys.argv[1:4]
    packaged_seeds(root, out)
    provider_seeds(fixtures, out)
    transcript_seeds(root, out)
    hrana_seeds(out)
    mcp_seeds(out)
    research_seeds(root, out)
    for t in sorted(os.listdir(out)):
        print(f"  seeds {t}: {len(os.listdir(os.path.join(out, t)))}")


if __name__ == "__main__":
    main()
