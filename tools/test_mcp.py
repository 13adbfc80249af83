#!/usr/bin/env python3
"""Drives `ofj mcp` with the official MCP Python SDK as a real client in both protocol eras (the
2025 initialize handshake, and 2026-07-28: server/discover, per-request _meta, input_required
approvals), plus raw JSON-RPC lines for what an SDK never sends (malformed JSON, a 10 MB line, EOF
in the middle of a call, a forged requestState).

Usage: test_mcp.py PATH_TO_OFJ   (tools/mcp_client.sh installs the SDK and runs this)
"""
import asyncio
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

from mcp import Client, ClientSession, StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError
import mcp_types as types

OFJ = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".build/debug/ofj")
HOME = tempfile.mkdtemp(prefix="ofj-mcp-test-")
# ofj mcp reads no configuration: a broken config.json (which stops `ofj` and `ofj ask`) and a
# credentials file readable by others (which they refuse) must not matter, and no key may leak.
CONFIG = os.path.join(HOME, "config")
os.makedirs(os.path.join(CONFIG, "ofj"))
with open(os.path.join(CONFIG, "ofj", "config.json"), "w") as f:
    f.write("{ this is not json")
with open(os.path.join(CONFIG, "ofj", "credentials"), "w") as f:
    f.write("OPENAI_API_KEY=sk-planted-credential-9876543210\n")
os.chmod(os.path.join(CONFIG, "ofj", "credentials"), 0o644)
ENV = {"OFJ_HOME": HOME, "XDG_CONFIG_HOME": CONFIG, "PATH": os.environ.get("PATH", ""), "TZ": "UTC", "NO_COLOR": "1",
       # A provider key in the environment must never be needed nor reach anything.
       "GEMINI_API_KEY": "sk-planted-secret-0123456789",
       # Tests never reach the internet: the packaged-food tools get a closed loopback port, so
       # their lookups end with the offline line (what a person without a network sees).
       "OPENFOODFACTS_BASE_URL": "http://127.0.0.1:9", "FDC_BASE_URL": "http://127.0.0.1:9"}
FAILURES = []


def check(condition, what):
    if condition:
        print(f"ok   {what}")
    else:
        print(f"FAIL {what}")
        FAILURES.append(what)


def params(*extra):
    return StdioServerParameters(command=OFJ, args=["mcp", *extra], env=ENV)


def text_of(result):
    return "".join(c.text for c in result.content if getattr(c, "type", "") == "text")


# MARK: - raw JSON-RPC

class Raw:
    """ofj mcp as a subprocess spoken to line by line."""

    def __init__(self, *extra):
        self.p = subprocess.Popen([OFJ, "mcp", *extra], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, env=ENV)

    def send(self, obj_or_bytes):
        data = obj_or_bytes if isinstance(obj_or_bytes, bytes) else json.dumps(obj_or_bytes).encode()
        self.p.stdin.write(data + b"\n")
        self.p.stdin.flush()

    def recv(self):
        line = self.p.stdout.readline()
        return json.loads(line) if line else None

    def call(self, obj):
        self.send(obj)
        return self.recv()

    def initialize(self, capabilities=None):
        r = self.call({"jsonrpc": "2.0", "id": "init", "method": "initialize",
                       "params": {"protocolVersion": "2025-11-25", "capabilities": capabilities or {},
                                  "clientInfo": {"name": "raw", "version": "1"}}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return r

    def close(self, timeout=10):
        self.p.stdin.close()
        rest = self.p.stdout.read()
        code = self.p.wait(timeout=timeout)
        return code, rest


def entries_named(name):
    raw = Raw()
    raw.initialize()
    r = raw.call({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                  "params": {"name": "search_journal", "arguments": {"text": name, "limit": 50}}})
    raw.close()
    found = r["result"]["structuredContent"]
    return sum(1 for e in json.dumps(found).split('"name": ')[1:] if e.startswith(json.dumps(name)))


def log_args(name, kcal=100):
    return {"name": name, "nutrients": {"energy_kcal": kcal}, "meal": "lunch"}


# MARK: - through the SDK

async def read_only_session():
    async with stdio_client(params()) as (read, write):
        async with ClientSession(read, write) as s:
            init = await s.initialize()
            check(init.protocol_version in ("2025-11-25", "2025-06-18"), f"initialize negotiates a revision ({init.protocol_version})")
            check(init.server_info.name == "ofj", "server calls itself ofj")
            await s.send_ping()
            check(True, "ping answers")

            tools = (await s.list_tools()).tools
            names = [t.name for t in tools]
            check(len(tools) == 34, f"tools/list offers the assistant's 34 tools ({len(tools)})")
            by = {t.name: t for t in tools}
            check(by["get_goals"].annotations.read_only_hint is True, "a read tool is readOnlyHint")
            check(by["log_food"].annotations.read_only_hint is False and by["log_food"].annotations.destructive_hint is False,
                  "log_food only adds (destructiveHint false)")
            check(by["delete_journal_entry"].annotations.destructive_hint is True, "delete_journal_entry is destructiveHint")
            check(by["set_goals"].annotations.idempotent_hint is True, "set_goals is idempotentHint")
            check("idempotency_key" in by["log_food"].input_schema["properties"], "write tools accept idempotency_key")

            resources = (await s.list_resources()).resources
            uris = sorted(str(r.uri) for r in resources)
            check(uris == ["ofj://foodbank", "ofj://goals", "ofj://journal/today", "ofj://notes"], f"resources/list ({uris})")
            for uri in uris:
                r = await s.read_resource(uri)
                json.loads(r.contents[0].text)
                check(True, f"resources/read {uri} is JSON")
            try:
                await s.read_resource("ofj://nothing")
                check(False, "an unknown resource is an error")
            except MCPError as e:
                check(e.error.code == -32002, f"an unknown resource is -32002 ({e.error.code})")

            ref = await s.call_tool("search_reference_foods", {"query": "egg whole raw"})
            ref_id = ref.structured_content["foods"][0]["reference_id"] if ref.structured_content.get("foods") else None
            arguments = {
                "get_nutrition_context": {}, "get_journal_day": {"date": "today"}, "get_journal_range": {"nutrients": ["protein_g"]},
                "search_journal": {"text": "egg"}, "get_nutrient_breakdown": {"nutrient": "protein_g"},
                "search_food_bank": {}, "get_saved_food": {"food_id": "00000000-0000-0000-0000-000000000000"},
                "list_brands": {}, "get_goals": {}, "search_reference_foods": {"query": "banana"}, "recommend_shelf_foods": {},
                "get_nutrient_gaps": {}, "get_eating_times": {}, "get_weight_trend": {}, "get_standing_notes": {},
                "lookup_barcode": {"barcode": "3017620422003"}, "search_packaged_foods": {"query": "hazelnut spread"},
            }
            for t in tools:
                # The packaged-food tools reach Open Food Facts / FoodData Central: never from a test.
                if t.annotations.read_only_hint and t.name in ("lookup_barcode", "search_packaged_foods"):
                    # They reach Open Food Facts / FoodData Central; here their base URLs are a
                    # closed loopback port (ENV), so the call answers with the offline error.
                    check(t.annotations.open_world_hint is True, f"read tool {t.name} is openWorldHint (it uses the network)")
                if t.annotations.read_only_hint:
                    r = await s.call_tool(t.name, arguments[t.name])
                    # No such food, and no network for packaged foods: precise error results.
                    expect_error = t.name in ("get_saved_food", "lookup_barcode", "search_packaged_foods")
                    check(bool(r.is_error) == expect_error and r.content and (r.structured_content is not None),
                          f"read tool {t.name} answers{' (unknown id: error result)' if expect_error else ''}")
            check(ref_id is not None, "reference search finds an egg")

            r = await s.call_tool("log_food", log_args("Refused soup"))
            check(r.is_error and "--allow-writes" in text_of(r), "a write without --allow-writes is refused, saying how to enable it")
            r = await s.call_tool("get_journal_day", {"date": 5})
            check(r.is_error and "expected string" in text_of(r), "arguments failing the schema are an error result")
            r = await s.call_tool("get_journal_day", {"bogus": 1})
            check(r.is_error, "an unknown argument is an error result")
            try:
                await s.call_tool("no_such_tool", {})
                check(False, "an unknown tool is an error")
            except MCPError as e:
                check(e.error.code == -32602, f"an unknown tool is -32602 ({e.error.code})")
            # A 10 MB request through the SDK: refused with an error for that request, and the session goes on.
            try:
                await asyncio.wait_for(s.call_tool("search_reference_foods", {"query": "x" * (10 * 1024 * 1024)}), 30)
                check(False, "a 10 MB request is refused")
            except MCPError as e:
                check(e.error.code == -32600 and "too large" in e.error.message, f"a 10 MB request is refused ({e.error.code})")
            await s.send_ping()
            check(True, "the session goes on after a 10 MB request")
    check(entries_named("Refused soup") == 0, "the refused write wrote nothing")


async def write_session():
    answers = []
    asked = []

    async def elicit(context, p):
        asked.append(p.message)
        return types.ElicitResult(action=answers.pop(0))

    async with stdio_client(params("--allow-writes")) as (read, write):
        async with ClientSession(read, write, elicitation_callback=elicit) as s:
            await s.initialize()
            answers.append("accept")
            r = await s.call_tool("log_food", log_args("Accepted stew", 321))
            check(not r.is_error and len(asked) == 1, "a write asks through elicitation and is written when accepted")
            check("Accepted stew" in asked[0] and "321" in asked[0], "the elicitation shows the approval card")
            answers.append("decline")
            r = await s.call_tool("log_food", log_args("Declined pie"))
            check(not r.is_error and r.structured_content.get("denied") is True, "a declined write answers 'declined'")

            answers.append("accept")
            key = "retry-key-1"
            first = await s.call_tool("log_food", {**log_args("Keyed salad"), "idempotency_key": key})
            again = await s.call_tool("log_food", {**log_args("Keyed salad"), "idempotency_key": key})
            check(text_of(first) == text_of(again) and len(asked) == 3, "a retry with the same idempotency_key gets the stored result without asking")
    # Another session, same key: still the stored result.
    async with stdio_client(params("--allow-writes")) as (read, write):
        async with ClientSession(read, write, elicitation_callback=elicit) as s:
            await s.initialize()
            r = await s.call_tool("log_food", {**log_args("Keyed salad"), "idempotency_key": key})
            check(text_of(r) == text_of(first) and len(asked) == 3, "the same key in a new session is not written again")
    check(entries_named("Accepted stew") == 1, "the accepted write landed once")
    check(entries_named("Declined pie") == 0, "the declined write wrote nothing")
    check(entries_named("Keyed salad") == 1, "the retried write landed once")


# MARK: - 2026-07-28 through the SDK

async def modern_session():
    answers = []
    asked = []

    async def elicit(context, p):
        asked.append(p.message)
        return types.ElicitResult(action=answers.pop(0))

    # mode "auto" (the SDK's default) probes server/discover and adopts 2026-07-28.
    async with Client(params("--allow-writes"), elicitation_callback=elicit) as c:
        check(c.protocol_version == "2026-07-28", f"the SDK's auto mode settles on 2026-07-28 ({c.protocol_version})")
        check(c.server_info is not None and c.server_info.name == "ofj", "server/discover stamps serverInfo")
        listed = await c.list_tools()
        check(len(listed.tools) == 34 and listed.ttl_ms > 0 and listed.cache_scope == "public",
              f"2026 tools/list carries cache hints (ttlMs {listed.ttl_ms}, {listed.cache_scope})")
        resources = await c.list_resources()
        check(sorted(str(r.uri) for r in resources.resources) == ["ofj://foodbank", "ofj://goals", "ofj://journal/today", "ofj://notes"],
              "2026 resources/list")
        r = await c.read_resource("ofj://goals")
        json.loads(r.contents[0].text)
        check(True, "2026 resources/read is JSON")
        r = await c.call_tool("get_goals", {})
        check(not r.is_error and r.structured_content is not None, "2026 tools/call of a read tool")

        answers.append("accept")
        r = await c.call_tool("log_food", log_args("Modern stew", 432))
        check(not r.is_error and len(asked) == 1, "a 2026 write asks through input_required and is written when accepted")
        check("Modern stew" in asked[0] and "432" in asked[0], "the input request shows the approval card")
        answers.append("decline")
        r = await c.call_tool("log_food", log_args("Modern pie"))
        check(not r.is_error and r.structured_content.get("denied") is True, "a declined 2026 write answers 'declined'")

        # Driving the round trips by hand: the client repeats its answered retry (a lost response).
        first = await c.session.call_tool("log_food", log_args("Modern soup"), allow_input_required=True)
        check(isinstance(first, types.InputRequiredResult) and first.request_state, "the first leg is input_required with a requestState")
        accept = {"approval": types.ElicitResult(action="accept")}
        done = await c.session.call_tool("log_food", log_args("Modern soup"), input_responses=accept,
                                         request_state=first.request_state, allow_input_required=True)
        again = await c.session.call_tool("log_food", log_args("Modern soup"), input_responses=accept,
                                          request_state=first.request_state, allow_input_required=True)
        check(isinstance(done, types.CallToolResult) and not done.is_error and text_of(done) == text_of(again),
              "a retried 2026 approval gets the stored result")
        try:
            await c.session.call_tool("log_food", log_args("Forged fries"), input_responses=accept,
                                      request_state="0" * 32, allow_input_required=True)
            check(False, "a forged requestState is refused")
        except MCPError as e:
            check(e.code == -32602, f"a forged requestState is refused ({e.code})")
    check(entries_named("Modern stew") == 1, "the accepted 2026 write landed once")
    check(entries_named("Modern pie") == 0, "the declined 2026 write wrote nothing")
    check(entries_named("Modern soup") == 1, "the retried 2026 approval landed once")
    check(entries_named("Forged fries") == 0, "the forged requestState wrote nothing")


# MARK: - raw protocol

def raw_tests():
    raw = Raw("--allow-writes")
    raw.initialize()  # no elicitation capability: the client's own approval decides
    call = {"jsonrpc": "2.0", "id": 77, "method": "tools/call", "params": {"name": "log_food", "arguments": log_args("Retried toast")}}
    first = raw.call(call)
    second = raw.call(call)
    check(first["result"] == second["result"] and not first["result"]["isError"], "a retried request id gets the stored result")

    r = raw.call(b'{"jsonrpc": "2.0", "id": 1, "method": "ping"')
    check(r["error"]["code"] == -32700 and r["id"] is None, "malformed JSON is -32700")
    r = raw.call({"jsonrpc": "2.0", "id": 2, "method": "no/such/method"})
    check(r["error"]["code"] == -32601 and r["id"] == 2, "an unknown method is -32601")
    r = raw.call({"id": 3, "method": "ping"})
    check(r["error"]["code"] == -32600 and r["id"] == 3, "a message without jsonrpc 2.0 is -32600")
    r = raw.call([{"jsonrpc": "2.0", "id": 4, "method": "ping"}])
    check(r["error"]["code"] == -32600, "a batch is -32600")
    r = raw.call(b'{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"search_journal","arguments":{"text":"' + b"a" * (10 * 1024 * 1024) + b'"}}}')
    check(r["error"]["code"] == -32600 and r["id"] == 5, "a 10 MB line is refused with an error for its id")
    r = raw.call({"jsonrpc": "2.0", "id": 6, "method": "ping"})
    check(r == {"jsonrpc": "2.0", "id": 6, "result": {}}, "the server still answers after a 10 MB line")
    code, _ = raw.close()
    check(code == 0, "EOF ends the server with status 0")
    check(entries_named("Retried toast") == 1, "the retried request landed once")

    # EOF right after a call: the call is answered, then the server exits cleanly.
    raw = Raw()
    raw.initialize()
    raw.send({"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {"name": "get_journal_day", "arguments": {}}})
    code, rest = raw.close()
    answered = [json.loads(l) for l in rest.splitlines() if l.strip()]
    check(code == 0 and any(m.get("id") == 8 and "result" in m for m in answered), "EOF in the middle of a call: answered, then a clean exit")

    # EOF while the person is being asked: nothing is written, clean exit.
    raw = Raw("--allow-writes")
    raw.initialize({"elicitation": {}})
    raw.send({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "log_food", "arguments": log_args("Unanswered cake")}})
    asking = raw.recv()
    check(asking.get("method") == "elicitation/create" and "requestedSchema" in asking["params"], "a write sends elicitation/create")
    started = time.time()
    code, _ = raw.close()
    check(code == 0 and time.time() - started < 5, "EOF during an elicitation exits cleanly")
    check(entries_named("Unanswered cake") == 0, "an unanswered write wrote nothing")

    # Cancelling a write while it is being asked: no answer is sent, nothing is written.
    raw = Raw("--allow-writes")
    raw.initialize({"elicitation": {}})
    raw.send({"jsonrpc": "2.0", "id": 10, "method": "tools/call", "params": {"name": "log_food", "arguments": log_args("Cancelled tea")}})
    asking = raw.recv()
    raw.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 10, "reason": "test"}})
    raw.send({"jsonrpc": "2.0", "id": 11, "method": "ping"})
    seen = []
    while not seen or seen[-1].get("id") != 11:
        seen.append(raw.recv())
    check(not any(m.get("id") == 10 for m in seen), "a cancelled call sends no answer")
    check(any(m.get("method") == "notifications/cancelled" and m["params"]["requestId"] == asking["id"] for m in seen),
          "the server withdraws its question about a cancelled write")
    raw.close()
    check(entries_named("Cancelled tea") == 0, "a cancelled write wrote nothing")

    # 2026-07-28 envelopes by hand: an unknown version, a missing envelope, removed methods.
    raw = Raw()
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
    r = raw.call({"jsonrpc": "2.0", "id": 20, "method": "server/discover", "params": {"_meta": meta}})
    check(r["result"]["supportedVersions"] == ["2026-07-28", "2025-11-25", "2025-06-18"] and r["result"]["resultType"] == "complete",
          "server/discover lists every revision")
    r = raw.call({"jsonrpc": "2.0", "id": 21, "method": "tools/list",
                  "params": {"_meta": {**meta, "io.modelcontextprotocol/protocolVersion": "2099-01-01"}}})
    check(r["error"]["code"] == -32022 and r["error"]["data"]["requested"] == "2099-01-01" and "2026-07-28" in r["error"]["data"]["supported"],
          "an unsupported version is -32022 naming the supported ones")
    r = raw.call({"jsonrpc": "2.0", "id": 22, "method": "server/discover"})
    check(r["error"]["code"] == -32602, "server/discover without _meta is -32602")
    r = raw.call({"jsonrpc": "2.0", "id": 23, "method": "ping", "params": {"_meta": meta}})
    check(r["error"]["code"] == -32601, "ping is gone in 2026-07-28")
    code, _ = raw.close()
    check(code == 0, "a 2026 session ends cleanly at EOF")

    # Diagnostics: one event per call, with the tool and status, and nothing of the journal.
    db = sqlite3.connect(os.path.join(HOME, "ofj.sqlite"))
    payloads = [json.loads(p) for (p,) in db.execute("SELECT payload FROM diagnostics_outbox")]
    db.close()
    mcp_events = [p for p in payloads if p.get("provider") == "mcp"]
    check(any(p.get("tool_name") == "log_food" and p.get("status") == "succeeded" for p in mcp_events),
          f"MCP calls are recorded as diagnostics ({len(mcp_events)} events)")
    check(any(p.get("tool_name") == "log_food" and p.get("status") == "denied" for p in mcp_events), "a declined write is recorded as denied")
    leaked = [w for w in ("Accepted stew", "Declined pie", "Keyed salad", "Retried toast", "retry-key-1", "Modern stew", "Modern soup")
              if w in json.dumps(payloads)]
    check(not leaked, f"diagnostics carry no food names, keys or amounts ({leaked})")
    # Nothing secret reached the database.
    with open(os.path.join(HOME, "ofj.sqlite"), "rb") as f:
        data = f.read()
        check(b"sk-planted-secret" not in data and b"sk-planted-credential" not in data, "the planted provider keys are nowhere in the database")


def main():
    asyncio.run(read_only_session())
    asyncio.run(write_session())
    asyncio.run(modern_session())
    raw_tests()
    print(f"mcp client: {'FAILED ' + str(len(FAILURES)) + ' (journal kept in ' + HOME + ')' if FAILURES else 'all passed'}")
    if not FAILURES:
        shutil.rmtree(HOME, ignore_errors=True)
    sys.exit(1 if FAILURES else 0)


if __name__ == "__main__":
    main()
