#!/usr/bin/env python3
"""Checks tools/turso_server.py against the official `libsql` Python client (installed by turso_compat.sh).

Runs create/insert/select/batch/transactions/errors/auth through libsql.connect("http://127.0.0.1:PORT").
Installs nothing itself; exits non-zero when a check fails or libsql is missing.
"""

import os
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SERVER = os.path.join(HERE, "turso_server.py")

try:
    import libsql  # noqa: E402
except ImportError:  # pragma: no cover - reported as a failure, not a skip
    sys.stderr.write("test_turso_compat: the libsql package is not installed; run tools/turso_compat.sh\n")
    sys.exit(2)


class LocalServer:
    """Starts turso_server.py on a free loopback port and stops it afterwards."""

    def __init__(self, *extra):
        self.proc = subprocess.Popen([sys.executable, SERVER, "--port", "0", "--quiet", *extra],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline().strip()
        if not line.isdigit():
            self.stop()
            raise RuntimeError("server did not report a port: %r" % line)
        self.url = "http://127.0.0.1:%s" % line

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream:
                stream.close()


class LibsqlCompatibility(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = LocalServer()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def connect(self):
        return libsql.connect(self.server.url)

    def test_create_insert_select_all_value_types(self):
        conn = self.connect()
        conn.execute("CREATE TABLE IF NOT EXISTS kinds (id INTEGER PRIMARY KEY, i INTEGER, f REAL, t TEXT, b BLOB, n TEXT)")
        conn.execute("INSERT INTO kinds (i, f, t, b, n) VALUES (?, ?, ?, ?, ?)",
                     (-42, 0.1, "héllo \"quoted\" ✓", b"\x00\x01\xfe\xff", None))
        conn.commit()
        rows = conn.execute("SELECT i, f, t, b, n FROM kinds").fetchall()
        self.assertEqual(rows, [(-42, 0.1, "héllo \"quoted\" ✓", b"\x00\x01\xfe\xff", None)])
        # Above 2^53 an integer survives only because the server sends integers as strings.
        # (The client itself sends large Python ints as floats, so the value is a SQL literal here.)
        big = conn.execute("SELECT 9007199254740993, typeof(9007199254740993)").fetchall()
        self.assertEqual(big, [(9_007_199_254_740_993, "integer")])
        self.assertIsInstance(big[0][0], int)
        # Blob lengths that need 1 and 2 padding characters (the server sends unpadded base64).
        for blob in (b"\x01", b"\x01\x02", b"\x01\x02\x03\x04"):
            got = conn.execute("SELECT ?", (blob,)).fetchall()
            self.assertEqual(got, [(blob,)])

    def test_description_names_columns(self):
        conn = self.connect()
        cur = conn.execute("SELECT 1 AS one, 'x' AS letter")
        self.assertEqual([d[0] for d in cur.description], ["one", "letter"])
        self.assertEqual(cur.fetchall(), [(1, "x")])

    def test_batch_script_and_executemany(self):
        conn = self.connect()
        conn.executescript("CREATE TABLE IF NOT EXISTS batchy (id INTEGER PRIMARY KEY, name TEXT);"
                           "INSERT INTO batchy (name) VALUES ('a'); INSERT INTO batchy (name) VALUES ('b');")
        conn.executemany("INSERT INTO batchy (name) VALUES (?)", [("c",), ("d",)])
        conn.commit()
        names = [r[0] for r in conn.execute("SELECT name FROM batchy ORDER BY id").fetchall()]
        self.assertEqual(names, ["a", "b", "c", "d"])

    def test_transaction_commit_and_rollback(self):
        conn = self.connect()
        conn.execute("CREATE TABLE IF NOT EXISTS tx (v INTEGER)")
        conn.commit()
        conn.execute("INSERT INTO tx VALUES (1)")
        conn.rollback()
        self.assertEqual(conn.execute("SELECT count(*) FROM tx").fetchall(), [(0,)])
        conn.execute("INSERT INTO tx VALUES (2)")
        conn.commit()
        other = self.connect()
        self.assertEqual(other.execute("SELECT v FROM tx").fetchall(), [(2,)])

    def test_sql_errors_surface(self):
        conn = self.connect()
        with self.assertRaises(Exception) as ctx:
            conn.execute("SELEC nonsense")
        self.assertIn("syntax error", str(ctx.exception))
        conn.execute("CREATE TABLE IF NOT EXISTS uniq (id TEXT PRIMARY KEY)")
        conn.execute("INSERT INTO uniq VALUES ('a')")
        conn.commit()
        with self.assertRaises(Exception) as ctx:
            conn.execute("INSERT INTO uniq VALUES ('a')")
            conn.commit()
        self.assertIn("UNIQUE", str(ctx.exception))

    def test_idempotent_insert_like_the_sink(self):
        conn = self.connect()
        conn.execute("CREATE TABLE IF NOT EXISTS events (id TEXT PRIMARY KEY, v INTEGER)")
        for _ in range(2):
            conn.execute("INSERT INTO events (id, v) VALUES (?, ?) ON CONFLICT(id) DO NOTHING", ("e1", 1))
            conn.commit()
        self.assertEqual(conn.execute("SELECT count(*) FROM events").fetchall(), [(1,)])


class LibsqlReadsSyncedJournal(unittest.TestCase):
    """`ofj sync` writes ordinary libSQL tables: the official client reads them."""

    def test_reads_rows_pushed_by_ofj_sync(self):
        import json
        import shutil
        import tempfile
        ofj = os.path.join(os.path.dirname(HERE), ".build", "debug", "ofj")
        self.assertTrue(os.access(ofj, os.X_OK), "build ofj first (swift build): %s is missing" % ofj)
        server = LocalServer()
        home = tempfile.mkdtemp(prefix="ofj-compat-")
        try:
            env = {"OFJ_HOME": home, "HOME": home, "XDG_CONFIG_HOME": home + "/config", "OFJ_SYNC_URL": server.url,
                   "PATH": "/usr/bin:/bin", "TZ": "UTC"}
            for args in (["log", "compat porridge", "--kcal", "321", "--date", "2026-11-30"],
                         ["goals", "set", "energy_kcal=2100"], ["sync"]):
                done = subprocess.run([ofj] + args, env=env, capture_output=True, text=True, timeout=60)
                self.assertEqual(done.returncode, 0, done.stderr)
            conn = libsql.connect(server.url)
            version = conn.execute("SELECT value FROM ofj_sync_meta WHERE key = 'schema_version'").fetchall()
            self.assertEqual(version, [("1",)])
            rows = conn.execute("SELECT kind, id, pos, hlc, device, deleted, payload FROM ofj_sync_rows ORDER BY pos").fetchall()
            self.assertEqual(sorted(r[0] for r in rows), ["entry", "setting"])
            entry = next(r for r in rows if r[0] == "entry")
            self.assertIsInstance(entry[3], int)
            self.assertEqual(entry[5], 0)
            payload = json.loads(entry[6])
            self.assertEqual(payload["name"], "compat porridge")
            self.assertEqual(payload["id"], entry[1])
            self.assertIn(["energy_kcal", 321, 321], payload["nutrients"])
            devices = conn.execute("SELECT device FROM ofj_sync_devices").fetchall()
            self.assertEqual(devices, [(entry[4],)])
        finally:
            server.stop()
            shutil.rmtree(home, ignore_errors=True)


class LibsqlAuth(unittest.TestCase):
    def test_bearer_token_required_and_accepted(self):
        server = LocalServer("--token", "s3cret-test-token")
        try:
            good = libsql.connect(server.url, auth_token="s3cret-test-token")
            self.assertEqual(good.execute("SELECT 42").fetchall(), [(42,)])
            bad = libsql.connect(server.url, auth_token="wrong")
            with self.assertRaises(Exception):
                bad.execute("SELECT 1").fetchall()
        finally:
            server.stop()


if __name__ == "__main__":
    result = unittest.main(exit=False, verbosity=2).result
    failed = len(result.failures) + len(result.errors)
    print("%d passed, %d failed" % (result.testsRun - failed, failed))
    sys.exit(1 if failed or result.testsRun == 0 else 0)
