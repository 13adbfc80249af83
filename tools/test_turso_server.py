#!/usr/bin/env python3
"""Protocol tests of tools/turso_server.py over raw HTTP (standard library only): values, batches,
conditions, batons, cursor, errors, auth, fault modes, and tools/turso_inspect.py against it."""

import base64
import json
import os
import subprocess
import sys
import tempfile
import unittest
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
SERVER = os.path.join(HERE, "turso_server.py")
INSPECT = os.path.join(HERE, "turso_inspect.py")


class LocalServer:
    def __init__(self, *extra):
        self.proc = subprocess.Popen([sys.executable, SERVER, "--port", "0", "--quiet", *extra],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.port = int(self.proc.stdout.readline().strip())
        self.url = "http://127.0.0.1:%d" % self.port

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=5)
        self.proc.stdout.close()
        self.proc.stderr.close()


def post(url, body, token=None, raw=False):
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method="POST", headers={"Content-Type": "application/json"})
    if token is not None:
        req.add_header("Authorization", "Bearer " + token)
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            text = resp.read().decode()
            return resp.status, (text if raw else json.loads(text))
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def stmt(sql, *args, want_rows=True):
    return {"sql": sql, "args": list(args), "want_rows": want_rows}


def integer(v):
    return {"type": "integer", "value": str(v)}


def text(v):
    return {"type": "text", "value": v}


class Protocol(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = LocalServer()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def pipeline(self, requests, baton=None, version="v2"):
        return post("%s/%s/pipeline" % (self.server.url, version), {"baton": baton, "requests": requests})

    def test_health(self):
        with urllib.request.urlopen(self.server.url + "/health", timeout=5) as resp:
            self.assertEqual(resp.status, 200)

    def test_values_round_trip(self):
        blob = base64.b64encode(b"\xab\xab\xab\x01").decode().rstrip("=")
        status, body = self.pipeline([
            {"type": "execute", "stmt": stmt("SELECT ?, ?, ?, ?, ?", integer(-9007199254740993),
                                             {"type": "float", "value": 0.5}, text("é"),
                                             {"type": "blob", "base64": blob}, {"type": "null"})},
            {"type": "close"}])
        self.assertEqual(status, 200)
        row = body["results"][0]["response"]["result"]["rows"][0]
        self.assertEqual(row[0], integer(-9007199254740993))
        self.assertEqual(row[1], {"type": "float", "value": 0.5})
        self.assertEqual(row[2], text("é"))
        got = row[3]["base64"]
        self.assertFalse(got.endswith("="), "server sends unpadded base64")
        self.assertEqual(base64.b64decode(got + "=" * (-len(got) % 4)), b"\xab\xab\xab\x01")
        self.assertEqual(row[4], {"type": "null"})
        self.assertIsNone(body["baton"])

    def test_integer_as_json_number_is_rejected(self):
        status, _ = self.pipeline([{"type": "execute", "stmt": stmt("SELECT ?", {"type": "integer", "value": 1})}])
        self.assertEqual(status, 400)

    def test_bad_json_is_400(self):
        status, _ = post(self.server.url + "/v2/pipeline", b"{nope")
        self.assertEqual(status, 400)

    def test_errors_do_not_stop_later_requests(self):
        status, body = self.pipeline([
            {"type": "execute", "stmt": stmt("SELECT * FROM no_such_table")},
            {"type": "execute", "stmt": stmt("SELECT 1; SELECT 2")},
            {"type": "execute", "stmt": stmt("SELECT 7")},
            {"type": "close"}])
        self.assertEqual(status, 200)
        results = body["results"]
        self.assertEqual(results[0]["type"], "error")
        self.assertIn("no such table", results[0]["error"]["message"])
        self.assertEqual(results[1]["error"]["code"], "SQL_MANY_STATEMENTS")
        self.assertEqual(results[2]["response"]["result"]["rows"], [[integer(7)]])

    def test_guarded_transaction_rolls_back_on_step_error(self):
        self.pipeline([{"type": "execute", "stmt": stmt("CREATE TABLE IF NOT EXISTS g (id TEXT PRIMARY KEY)")}, {"type": "close"}])
        steps = [
            {"stmt": stmt("BEGIN IMMEDIATE")},
            {"condition": {"type": "ok", "step": 0}, "stmt": stmt("INSERT INTO g VALUES ('x')")},
            {"condition": {"type": "ok", "step": 1}, "stmt": stmt("INSERT INTO g VALUES ('x')")},  # duplicate
            {"condition": {"type": "ok", "step": 2}, "stmt": stmt("COMMIT")},
            {"condition": {"type": "not", "cond": {"type": "ok", "step": 3}}, "stmt": stmt("ROLLBACK")},
        ]
        status, body = self.pipeline([{"type": "batch", "batch": {"steps": steps}}, {"type": "close"}])
        self.assertEqual(status, 200)
        result = body["results"][0]["response"]["result"]
        self.assertIsNotNone(result["step_results"][1])
        self.assertIn("UNIQUE", result["step_errors"][2]["message"])
        self.assertIsNone(result["step_results"][3])  # skipped commit
        self.assertIsNone(result["step_errors"][3])
        self.assertIsNotNone(result["step_results"][4])  # rollback ran
        _, body = self.pipeline([{"type": "execute", "stmt": stmt("SELECT count(*) FROM g")}, {"type": "close"}])
        self.assertEqual(body["results"][0]["response"]["result"]["rows"], [[integer(0)]])

    def test_conditions_and_or_error_autocommit(self):
        steps = [
            {"stmt": stmt("SELECT 1")},
            {"stmt": stmt("SELECT nope")},
            {"condition": {"type": "and", "conds": [{"type": "ok", "step": 0}, {"type": "error", "step": 1}]}, "stmt": stmt("SELECT 2")},
            {"condition": {"type": "or", "conds": [{"type": "ok", "step": 1}, {"type": "error", "step": 0}]}, "stmt": stmt("SELECT 3")},
            {"condition": {"type": "is_autocommit"}, "stmt": stmt("SELECT 4")},
        ]
        status, body = self.pipeline([{"type": "batch", "batch": {"steps": steps}}, {"type": "close"}], version="v3")
        self.assertEqual(status, 200)
        result = body["results"][0]["response"]["result"]
        self.assertEqual([r is not None for r in result["step_results"]], [True, False, True, False, True])
        self.assertIsNotNone(result["step_errors"][1])
        # is_autocommit is a v3 condition: v2 rejects it.
        status, _ = self.pipeline([{"type": "batch", "batch": {"steps": steps}}], version="v2")
        self.assertEqual(status, 400)

    def test_batons_are_single_use_and_keep_the_stream(self):
        status, body = self.pipeline([{"type": "execute", "stmt": stmt("CREATE TEMP TABLE s (v)")}])
        baton = body["baton"]
        self.assertIsNotNone(baton)
        status, body2 = self.pipeline([{"type": "execute", "stmt": stmt("INSERT INTO s VALUES (1)")},
                                       {"type": "get_autocommit"}], baton=baton, version="v3")
        self.assertEqual(status, 200)
        self.assertTrue(body2["results"][1]["response"]["is_autocommit"])
        status, _ = self.pipeline([{"type": "close"}], baton=baton)
        self.assertEqual(status, 400, "a used baton is refused")
        status, body3 = self.pipeline([{"type": "execute", "stmt": stmt("SELECT count(*) FROM s")}, {"type": "close"}],
                                      baton=body2["baton"])
        self.assertEqual(body3["results"][0]["response"]["result"]["rows"], [[integer(1)]])
        self.assertIsNone(body3["baton"])

    def test_store_sql_and_named_args(self):
        status, body = self.pipeline([
            {"type": "store_sql", "sql_id": 1, "sql": "SELECT :a + 1"},
            {"type": "execute", "stmt": {"sql_id": 1, "named_args": [{"name": ":a", "value": integer(41)}]}},
            {"type": "execute", "stmt": {"sql": "SELECT ?", "args": [integer(1)], "named_args": [{"name": "a", "value": integer(1)}]}},
            {"type": "close"}])
        self.assertEqual(body["results"][1]["response"]["result"]["rows"], [[integer(42)]])
        self.assertEqual(body["results"][2]["error"]["code"], "ARGS_INVALID")

    def test_cursor_streams_steps(self):
        steps = [{"stmt": stmt("SELECT 1 UNION ALL SELECT 2")}, {"stmt": stmt("SELECT nope")}]
        status, body = post(self.server.url + "/v3/cursor", {"baton": None, "batch": {"steps": steps}}, raw=True)
        self.assertEqual(status, 200)
        lines = [json.loads(l) for l in body.strip().split("\n")]
        self.assertIn("baton", lines[0])
        kinds = [l["type"] for l in lines[1:]]
        self.assertEqual(kinds, ["step_begin", "row", "row", "step_end", "step_error"])

    def test_admin_fault_modes(self):
        for mode, expected in (("500", 500), ("429", 429), ("garbage", 200)):
            post(self.server.url + "/__admin/mode", {"mode": mode})
            try:
                status, body = post(self.server.url + "/v2/pipeline", {"baton": None, "requests": []}, raw=True)
            finally:
                post(self.server.url + "/__admin/mode", {"mode": "normal"})
            self.assertEqual(status, expected, mode)
        post(self.server.url + "/__admin/mode", {"mode": "down"})
        try:
            with self.assertRaises((urllib.error.URLError, ConnectionError, OSError)):
                post(self.server.url + "/v2/pipeline", {"baton": None, "requests": []})
        finally:
            post(self.server.url + "/__admin/mode", {"mode": "normal"})


class Auth(unittest.TestCase):
    def test_token(self):
        server = LocalServer("--token", "tok123")
        try:
            body = {"baton": None, "requests": [{"type": "execute", "stmt": stmt("SELECT 1")}, {"type": "close"}]}
            self.assertEqual(post(server.url + "/v2/pipeline", body)[0], 401)
            self.assertEqual(post(server.url + "/v2/pipeline", body, token="nope")[0], 401)
            self.assertEqual(post(server.url + "/v2/pipeline", body, token="tok123")[0], 200)
        finally:
            server.stop()

    def test_fail_rate_one_always_fails(self):
        server = LocalServer("--fail-rate", "1.0")
        try:
            body = {"baton": None, "requests": [{"type": "close"}]}
            self.assertEqual(post(server.url + "/v2/pipeline", body)[0], 500)
            with urllib.request.urlopen(server.url + "/__admin/stats", timeout=5) as resp:
                self.assertGreaterEqual(json.loads(resp.read())["faults"], 1)
        finally:
            server.stop()

    def test_no_auth_ignores_placeholder_headers(self):
        server = LocalServer()
        try:
            body = {"baton": None, "requests": [{"type": "close"}]}
            self.assertEqual(post(server.url + "/v2/pipeline", body, token="None")[0], 200)
            self.assertEqual(post(server.url + "/v2/pipeline", body, token="")[0], 200)
        finally:
            server.stop()


class Inspector(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.db = os.path.join(self.dir.name, "diag.sqlite")
        import sqlite3
        conn = sqlite3.connect(self.db)
        conn.execute("CREATE TABLE ofj_ai_diagnostic_events (id TEXT PRIMARY KEY, occurred_at TEXT, expires_at TEXT, "
                     "run_id TEXT, provider TEXT, model TEXT, operation TEXT, status TEXT, error_class TEXT, total_ms REAL)")
        rows = [("e1", "2026-11-29T10:00:00.000Z", "2026-12-13T10:00:00.000Z", "r1", "gemini", "g", "model_round", "ok", None, 120.0),
                ("e2", "2026-11-29T10:01:00.000Z", "2026-12-13T10:01:00.000Z", "r1", "gemini", "g", "tool_execution", "ok", None, 3.0),
                ("e3", "2026-11-29T10:02:00.000Z", "2026-12-13T10:02:00.000Z", "r2", "openai", "o", "model_round", "error", "rate_limited", 50.0)]
        conn.executemany("INSERT INTO ofj_ai_diagnostic_events VALUES (?,?,?,?,?,?,?,?,?,?)", rows)
        conn.commit()
        conn.close()

    def tearDown(self):
        self.dir.cleanup()

    def run_inspect(self, *args):
        return subprocess.run([sys.executable, INSPECT, *args], capture_output=True, text=True, timeout=30)

    def test_summary_and_filters_on_a_file(self):
        out = self.run_inspect("--db", self.db, "summary")
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("events: 3", out.stdout)
        self.assertIn("openai", out.stdout)
        out = self.run_inspect("--db", self.db, "events", "--provider", "gemini", "--operation", "tool_execution")
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("e2", out.stdout)
        self.assertNotIn("e1", out.stdout)
        out = self.run_inspect("--db", self.db, "events", "--status", "error", "--run", "r2", "--json")
        self.assertEqual([e["id"] for e in json.loads(out.stdout)], ["e3"])

    def test_sql_is_select_only(self):
        out = self.run_inspect("--db", self.db, "sql", "SELECT count(*) AS n FROM ofj_ai_diagnostic_events")
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("3", out.stdout)
        for bad in ("DELETE FROM ofj_ai_diagnostic_events", "SELECT 1; DELETE FROM ofj_ai_diagnostic_events",
                    "WITH x AS (SELECT 1) DELETE FROM ofj_ai_diagnostic_events", "PRAGMA writable_schema=1",
                    "ATTACH 'x' AS y", "select * from ofj_ai_diagnostic_events; drop table ofj_ai_diagnostic_events"):
            out = self.run_inspect("--db", self.db, "sql", bad)
            self.assertNotEqual(out.returncode, 0, bad)
        out = self.run_inspect("--db", self.db, "summary")
        self.assertIn("events: 3", out.stdout)

    def test_against_the_http_server(self):
        server = LocalServer("--db", self.db)
        try:
            out = self.run_inspect("--url", server.url, "events", "--provider", "openai")
            self.assertEqual(out.returncode, 0, out.stderr)
            self.assertIn("e3", out.stdout)
            out = self.run_inspect("--url", server.url, "sql", "DROP TABLE ofj_ai_diagnostic_events")
            self.assertNotEqual(out.returncode, 0)
            out = self.run_inspect("--url", server.url, "summary")
            self.assertIn("events: 3", out.stdout)
        finally:
            server.stop()


if __name__ == "__main__":
    result = unittest.main(exit=False, verbosity=2).result
    failed = len(result.failures) + len(result.errors)
    print("%d passed, %d failed" % (result.testsRun - failed, failed))
    sys.exit(1 if failed or result.testsRun == 0 else 0)
