#!/usr/bin/env python3
"""A local Turso-compatible SQL-over-HTTP (Hrana 2/3, JSON) server backed by SQLite, for tests and debugging.

Serves GET /health, GET /v2, GET /v3, POST /v2/pipeline, POST /v3/pipeline and POST /v3/cursor with
streams and single-use batons, batch conditions (ok/error/not/and/or/is_autocommit), per-request and
per-step errors and optional bearer auth. Python standard library only.

Usage: turso_server.py [--port 0] [--host 127.0.0.1] [--db PATH] [--token TOKEN] [--no-v3]
                       [--fail-rate 0.0] [--delay 0.0] [--quiet]
The first line on stdout is the port actually bound (useful with --port 0).

Fault injection for tests: POST /__admin/mode with {"mode": "normal"|"down"|"slow"|"500"|"503"|"429"|
"400"|"401"|"garbage"|"commit_then_drop"|"cut", "delay": seconds}; GET /__admin/stats returns request counters.
Hostile modes for ofj's sync (they rewrite what ofj's own statements read): "lie_ack" answers a push's
read of the winners with non-integer stamps; "endless" answers every pull page with a full page of
new rows of a kind ofj does not know, after any position; "repeat" answers every pull page as if
it were the first (a cursor that does not advance). The admin
endpoints need no token and the server only listens on loopback unless told otherwise.
"""

import argparse
import base64
import json
import math
import os
import random
import secrets
import signal
import socket
import sqlite3
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

STREAM_IDLE_SECONDS = 10.0
MAX_BODY = 10 * 1024 * 1024


class ProtocolError(Exception):
    """A malformed request: the whole pipeline fails with HTTP 400."""


class StepError(Exception):
    """An error of one statement; reported inside HTTP 200."""

    def __init__(self, message, code):
        super().__init__(message)
        self.message = message
        self.code = code

    def as_json(self):
        return {"message": self.message, "code": self.code}


# ---------------------------------------------------------------------------------------------
# Values


def decode_value(v):
    if not isinstance(v, dict) or "type" not in v:
        raise ProtocolError("invalid value: expected an object with a type")
    t = v["type"]
    if t == "null":
        return None
    if t == "integer":
        raw = v.get("value")
        if not isinstance(raw, str):
            # sqld rejects JSON numbers for integers (precision): so do we.
            raise ProtocolError("invalid integer value: must be a string")
        try:
            return int(raw)
        except ValueError:
            raise ProtocolError("invalid integer value")
    if t == "float":
        raw = v.get("value")
        if isinstance(raw, bool) or not isinstance(raw, (int, float)):
            raise ProtocolError("invalid float value")
        return float(raw)
    if t == "text":
        raw = v.get("value")
        if not isinstance(raw, str):
            raise ProtocolError("invalid text value")
        return raw
    if t == "blob":
        raw = v.get("base64")
        if not isinstance(raw, str):
            raise ProtocolError("invalid blob value")
        padded = raw + "=" * (-len(raw) % 4)
        try:
            return base64.b64decode(padded, altchars=None, validate=False)
        except Exception:
            raise ProtocolError("invalid blob base64")
    raise ProtocolError("unknown value type %r" % (t,))


def encode_value(v):
    if v is None:
        return {"type": "null"}
    if isinstance(v, bool):
        return {"type": "integer", "value": str(int(v))}
    if isinstance(v, int):
        return {"type": "integer", "value": str(v)}
    if isinstance(v, float):
        if not math.isfinite(v):
            return {"type": "null"}
        return {"type": "float", "value": v}
    if isinstance(v, str):
        return {"type": "text", "value": v}
    if isinstance(v, (bytes, bytearray, memoryview)):
        # sqld sends unpadded base64; clients must pad before decoding.
        return {"type": "blob", "base64": base64.b64encode(bytes(v)).decode("ascii").rstrip("=")}
    return {"type": "text", "value": str(v)}


def sqlite_error(e):
    name = getattr(e, "sqlite_errorname", None)
    message = str(e)
    if isinstance(e, sqlite3.ProgrammingError) and "one statement" in message:
        return StepError("SQL string contains more than one statement", "SQL_MANY_STATEMENTS")
    if name is None:
        if "syntax error" in message or "incomplete input" in message:
            name = "SQL_PARSE_ERROR"
        else:
            name = "SQLITE_ERROR"
    elif name == "SQLITE_ERROR" and ("syntax error" in message or "incomplete input" in message):
        name = "SQL_PARSE_ERROR"
    return StepError(message, name)


# ---------------------------------------------------------------------------------------------
# describe: prepares the statement with the SQLite C library (through ctypes) without running it,
# because clients such as the libsql package learn the result columns from `describe`.


class NativeSQLite:
    def __init__(self):
        import ctypes
        import ctypes.util
        import _sqlite3  # the library Python itself uses, so the SQLite version matches

        name = ctypes.util.find_library("sqlite3")
        try:
            lib = ctypes.CDLL(_sqlite3.__file__)
            lib.sqlite3_libversion
        except (OSError, AttributeError):
            if not name:
                raise OSError("no sqlite3 library")
            lib = ctypes.CDLL(name)
        c = ctypes
        lib.sqlite3_open_v2.argtypes = [c.c_char_p, c.POINTER(c.c_void_p), c.c_int, c.c_char_p]
        lib.sqlite3_prepare_v2.argtypes = [c.c_void_p, c.c_char_p, c.c_int, c.POINTER(c.c_void_p), c.POINTER(c.c_char_p)]
        lib.sqlite3_close_v2.argtypes = [c.c_void_p]
        lib.sqlite3_finalize.argtypes = [c.c_void_p]
        lib.sqlite3_errmsg.argtypes = [c.c_void_p]
        lib.sqlite3_errmsg.restype = c.c_char_p
        for f in ("sqlite3_column_count", "sqlite3_bind_parameter_count", "sqlite3_stmt_readonly", "sqlite3_stmt_isexplain"):
            getattr(lib, f).argtypes = [c.c_void_p]
        for f in ("sqlite3_column_name", "sqlite3_column_decltype", "sqlite3_bind_parameter_name"):
            getattr(lib, f).argtypes = [c.c_void_p, c.c_int]
            getattr(lib, f).restype = c.c_char_p
        self.lib = lib
        self.c = c

    def describe(self, db_path, sql):
        lib, c = self.lib, self.c
        db = c.c_void_p()
        SQLITE_OPEN_READONLY = 0x1
        if lib.sqlite3_open_v2(db_path.encode(), c.byref(db), SQLITE_OPEN_READONLY, None) != 0:
            lib.sqlite3_close_v2(db)
            return None
        try:
            stmt = c.c_void_p()
            tail = c.c_char_p()
            rc = lib.sqlite3_prepare_v2(db, sql.encode(), -1, c.byref(stmt), c.byref(tail))
            if rc != 0:
                raise StepError(lib.sqlite3_errmsg(db).decode("utf-8", "replace"), "SQL_PARSE_ERROR")
            if not stmt.value:
                return {"params": [], "cols": [], "is_explain": False, "is_readonly": True}
            try:
                def text(p):
                    return p.decode("utf-8", "replace") if p is not None else None
                cols = [{"name": text(lib.sqlite3_column_name(stmt, i)), "decltype": text(lib.sqlite3_column_decltype(stmt, i))}
                        for i in range(lib.sqlite3_column_count(stmt))]
                params = [{"name": text(lib.sqlite3_bind_parameter_name(stmt, i + 1))}
                          for i in range(lib.sqlite3_bind_parameter_count(stmt))]
                return {"params": params, "cols": cols, "is_explain": bool(lib.sqlite3_stmt_isexplain(stmt)),
                        "is_readonly": bool(lib.sqlite3_stmt_readonly(stmt))}
            finally:
                lib.sqlite3_finalize(stmt)
        finally:
            lib.sqlite3_close_v2(db)


try:
    NATIVE = NativeSQLite()
except Exception:  # noqa: BLE001 - describe falls back to a text heuristic
    NATIVE = None


# ---------------------------------------------------------------------------------------------
# Streams


HOSTILE = {"mode": "normal", "next": 1_000_000_000}
PULL_PREFIX = "SELECT pos, kind, id, hlc, device, deleted"
WINNERS_PREFIX = "SELECT r.kind, r.id, r.hlc, r.device"


def hostile_execute(conn, sql, params):
    """Runs ofj's pull and push-winner statements the way a hostile server would; None otherwise."""
    mode = HOSTILE["mode"]
    head = sql.lstrip()
    if mode == "repeat" and head.startswith(PULL_PREFIX):
        return conn.execute(sql.replace("WHERE pos > ?", "WHERE pos > ? * 0"), params)
    if mode == "endless" and head.startswith(PULL_PREFIX):
        limit = int(params[-1])
        cur = conn.execute(sql, params)
        width = len(cur.description)
        rows = []
        for _ in range(limit):
            HOSTILE["next"] += 1
            n = HOSTILE["next"]
            row = [n, "x-endless", "e%d" % n, 1, "evil", 0, "{}", 2][:width]
            rows.append(tuple(row))
        return FixedCursor(cur.description, rows)
    if mode == "lie_ack" and head.startswith(WINNERS_PREFIX):
        cur = conn.execute(sql, params)
        return FixedCursor(cur.description, [(k, i, float(h) + 0.5, d) for (k, i, h, d) in cur.fetchall()])
    return None


class FixedCursor:
    def __init__(self, description, rows):
        self.description = description
        self.rows = rows
        self.lastrowid = None

    def fetchall(self):
        return self.rows


class Stream:
    """One stream = one SQLite connection, used by one request at a time."""

    def __init__(self, db_path):
        self.db_path = db_path
        self.conn = sqlite3.connect(db_path, isolation_level=None, check_same_thread=False, timeout=5.0)
        self.lock = threading.Lock()
        self.sqls = {}
        self.last_used = time.monotonic()
        self.closed = False

    def close(self):
        if not self.closed:
            self.closed = True
            try:
                if self.conn.in_transaction:
                    self.conn.execute("ROLLBACK")
            except sqlite3.Error:
                pass
            self.conn.close()

    # -- statements

    def resolve_sql(self, stmt):
        if "sql" in stmt and stmt["sql"] is not None:
            if "sql_id" in stmt and stmt["sql_id"] is not None:
                raise ProtocolError("both sql and sql_id given")
            sql = stmt["sql"]
        elif "sql_id" in stmt and stmt["sql_id"] is not None:
            if stmt["sql_id"] not in self.sqls:
                raise ProtocolError("unknown sql_id")
            sql = self.sqls[stmt["sql_id"]]
        else:
            raise ProtocolError("statement without sql")
        if not isinstance(sql, str):
            raise ProtocolError("sql must be a string")
        return sql

    def bind(self, stmt):
        args = stmt.get("args") or []
        named = stmt.get("named_args") or []
        if not isinstance(args, list) or not isinstance(named, list):
            raise ProtocolError("args and named_args must be arrays")
        if args and named:
            raise StepError("positional and named arguments cannot be mixed", "ARGS_INVALID")
        if named:
            out = {}
            for item in named:
                name = item.get("name", "")
                if name[:1] in (":", "@", "$"):
                    name = name[1:]
                out[name] = decode_value(item.get("value"))
            return out
        return [decode_value(a) for a in args]

    def execute(self, stmt):
        if not isinstance(stmt, dict):
            raise ProtocolError("stmt must be an object")
        sql = self.resolve_sql(stmt)
        params = self.bind(stmt)
        want_rows = stmt.get("want_rows", True)
        if want_rows is None:
            want_rows = True
        before = self.conn.total_changes
        started = time.monotonic()
        try:
            cur = hostile_execute(self.conn, sql, params) or self.conn.execute(sql, params)
            rows = cur.fetchall()
        except sqlite3.Warning as e:
            raise StepError(str(e), "SQL_MANY_STATEMENTS")
        except (sqlite3.Error, ValueError, OverflowError) as e:
            raise sqlite_error(e) if isinstance(e, sqlite3.Error) else StepError(str(e), "ARGS_INVALID")
        cols = [{"name": d[0], "decltype": None} for d in (cur.description or [])]
        head = sql.lstrip().split(None, 1)[0].upper() if sql.strip() else ""
        changed = self.conn.total_changes - before if head in ("INSERT", "UPDATE", "DELETE", "REPLACE", "WITH") else 0
        last_rowid = cur.lastrowid if head in ("INSERT", "REPLACE") else None
        return {
            "cols": cols,
            "rows": [[encode_value(v) for v in r] for r in rows] if want_rows else [],
            "affected_row_count": max(0, changed),
            "last_insert_rowid": str(last_rowid) if last_rowid is not None else None,
            "replication_index": None,
            "rows_read": len(rows),
            "rows_written": max(0, changed),
            "query_duration_ms": (time.monotonic() - started) * 1000.0,
        }

    # -- batches

    def eval_cond(self, cond, outcomes, v3):
        if cond is None:
            return True
        t = cond.get("type")
        if t in ("ok", "error"):
            step = cond.get("step")
            if not isinstance(step, int) or step < 0 or step >= len(outcomes):
                raise ProtocolError("condition refers to a step that has not run yet")
            outcome = outcomes[step]
            if outcome is None:  # skipped: neither ok nor error
                return False
            return outcome == t
        if t == "not":
            return not self.eval_cond(cond.get("cond"), outcomes, v3)
        if t == "and":
            return all(self.eval_cond(c, outcomes, v3) for c in cond.get("conds", []))
        if t == "or":
            return any(self.eval_cond(c, outcomes, v3) for c in cond.get("conds", []))
        if t == "is_autocommit":
            if not v3:
                raise ProtocolError("is_autocommit needs Hrana 3")
            return not self.conn.in_transaction
        raise ProtocolError("unknown condition type %r" % (t,))

    def batch(self, batch, v3, on_step=None):
        steps = batch.get("steps") if isinstance(batch, dict) else None
        if not isinstance(steps, list):
            raise ProtocolError("batch without steps")
        results, errors, outcomes = [], [], []
        for i, step in enumerate(steps):
            if not self.eval_cond(step.get("condition"), outcomes, v3):
                results.append(None)
                errors.append(None)
                outcomes.append(None)
                if on_step:
                    on_step(i, None, None)
                continue
            try:
                r = self.execute(step.get("stmt"))
                results.append(r)
                errors.append(None)
                outcomes.append("ok")
                if on_step:
                    on_step(i, r, None)
            except StepError as e:
                results.append(None)
                errors.append(e.as_json())
                outcomes.append("error")
                if on_step:
                    on_step(i, None, e.as_json())
        return {"step_results": results, "step_errors": errors}

    def sequence(self, sql):
        buf = ""
        for ch in sql:
            buf += ch
            if ch == ";" and sqlite3.complete_statement(buf):
                if buf.strip(" \t\r\n;"):
                    self.execute({"sql": buf, "want_rows": False})
                buf = ""
        if buf.strip(" \t\r\n;"):
            self.execute({"sql": buf, "want_rows": False})

    def describe(self, sql):
        native_error = None
        if NATIVE:
            try:
                described = NATIVE.describe(self.db_path, sql)
                if described is not None:
                    return described
            except StepError as e:
                # Perhaps the statement uses schema that only this stream's open transaction sees.
                native_error = e
        words = sql.lstrip().split(None, 1)
        head = words[0].upper() if words else ""
        cols = []
        if head in ("SELECT", "WITH", "VALUES"):
            # Learn the columns by running the query inside a savepoint that is rolled back.
            try:
                self.conn.execute("SAVEPOINT hrana_describe")
                try:
                    cur = self.conn.execute(sql, [None] * sql.count("?"))
                    cols = [{"name": d[0], "decltype": None} for d in (cur.description or [])]
                finally:
                    self.conn.execute("ROLLBACK TO hrana_describe")
                    self.conn.execute("RELEASE hrana_describe")
            except sqlite3.Error as e:
                raise native_error or sqlite_error(e)
        elif native_error is not None and head not in ("INSERT", "UPDATE", "DELETE", "REPLACE", "CREATE", "DROP", "ALTER"):
            raise native_error
        return {
            "params": [{"name": None} for _ in range(sql.count("?"))],
            "cols": cols,
            "is_explain": head == "EXPLAIN",
            "is_readonly": head in ("SELECT", "EXPLAIN", "VALUES", "WITH"),
        }

    # -- pipeline requests

    def handle(self, req, v3):
        """Returns (result_json, close_stream)."""
        if not isinstance(req, dict):
            raise ProtocolError("request must be an object")
        t = req.get("type")
        try:
            if t == "execute":
                return {"type": "ok", "response": {"type": "execute", "result": self.execute(req.get("stmt"))}}, False
            if t == "batch":
                return {"type": "ok", "response": {"type": "batch", "result": self.batch(req.get("batch"), v3)}}, False
            if t == "sequence":
                self.sequence(self.resolve_sql(req))
                return {"type": "ok", "response": {"type": "sequence"}}, False
            if t == "describe":
                return {"type": "ok", "response": {"type": "describe", "result": self.describe(self.resolve_sql(req))}}, False
            if t == "store_sql":
                self.sqls[req.get("sql_id")] = req.get("sql")
                return {"type": "ok", "response": {"type": "store_sql"}}, False
            if t == "close_sql":
                self.sqls.pop(req.get("sql_id"), None)
                return {"type": "ok", "response": {"type": "close_sql"}}, False
            if t == "close":
                return {"type": "ok", "response": {"type": "close"}}, True
            if t == "get_autocommit" and v3:
                return {"type": "ok", "response": {"type": "get_autocommit", "is_autocommit": not self.conn.in_transaction}}, False
        except StepError as e:
            return {"type": "error", "error": e.as_json()}, False
        raise ProtocolError("unknown request type %r" % (t,))


class Server:
    def __init__(self, db_path, token, fail_rate, delay, quiet):
        self.db_path = db_path
        self.token = token
        self.fail_rate = fail_rate
        self.quiet = quiet
        self.trace = False
        self.no_v3 = False
        self.streams = {}  # baton -> Stream
        self.lock = threading.Lock()
        self.mode = "normal"
        self.delay = delay
        self.stats = {"requests": 0, "pipelines": 0, "cursors": 0, "unauthorized": 0, "faults": 0}
        # Keep one connection open so that a temporary database outlives every stream.
        self.keeper = sqlite3.connect(db_path, check_same_thread=False)
        self.keeper.execute("PRAGMA journal_mode=WAL")

    def count(self, key):
        with self.lock:
            self.stats[key] = self.stats.get(key, 0) + 1

    def expire(self):
        now = time.monotonic()
        with self.lock:
            for baton, s in list(self.streams.items()):
                if now - s.last_used > STREAM_IDLE_SECONDS:
                    del self.streams[baton]
                    s.close()

    def take_stream(self, baton):
        self.expire()
        if baton is None:
            return Stream(self.db_path)
        with self.lock:
            s = self.streams.pop(baton, None)
        if s is None:
            raise ProtocolError("Invalid baton: unknown, expired or already used")
        return s

    def give_back(self, stream):
        if stream.closed:
            return None
        stream.last_used = time.monotonic()
        baton = secrets.token_urlsafe(24)
        with self.lock:
            self.streams[baton] = stream
        return baton


def make_handler(server):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "ofj-turso-test/1"

        def log_message(self, fmt, *args):
            if not server.quiet:
                sys.stderr.write("turso_server: " + (fmt % args) + "\n")

        def send(self, status, body, content_type="application/json", extra=None):
            data = body if isinstance(body, bytes) else body.encode("utf-8")
            if status == 200 and self.command == "POST" and not self.path.startswith("/__admin"):
                if server.mode == "commit_then_drop":
                    # Committed, then the connection drops before the answer (a lost acknowledgement).
                    self.close_connection = True
                    try:
                        self.connection.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass
                    return
                if server.mode == "cut":
                    # A complete HTTP answer whose body stops halfway (a proxy cutting a page).
                    data = data[: max(1, len(data) // 2)]
            if server.trace:
                sys.stderr.write("turso_server: <- %d %s\n" % (status, data[:2000].decode("utf-8", "replace")))
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            for k, v in (extra or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)

        def send_json(self, status, obj):
            self.send(status, json.dumps(obj, separators=(",", ":"), allow_nan=False))

        def read_body(self):
            length = int(self.headers.get("Content-Length") or 0)
            if length > MAX_BODY:
                raise ProtocolError("request body too large")
            return self.rfile.read(length) if length else b""

        def authorized(self):
            if not server.token:
                return True  # "Bearer None" or "Bearer " from clients is ignored without auth
            return self.headers.get("Authorization", "") == "Bearer " + server.token

        def fault(self):
            """Applies the admin mode or the random failure rate; True when the request was answered."""
            mode = server.mode
            if mode in ("commit_then_drop", "cut"):
                # The request runs; send() loses or cuts the answer.
                server.count("faults")
                return False
            if mode == "normal" and server.fail_rate > 0 and random.random() < server.fail_rate:
                mode = "500"
            if mode == "normal":
                if server.delay > 0:
                    time.sleep(server.delay)
                return False
            server.count("faults")
            if mode == "slow":
                time.sleep(server.delay if server.delay > 0 else 5.0)
                return False
            if mode == "down":
                # Drop the connection without an answer: the client sees a network error.
                self.close_connection = True
                try:
                    self.connection.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                return True
            if mode == "garbage":
                self.send(200, b"<html><body>502 Bad Gateway</body></html>", "text/html")
                return True
            if mode in ("500", "502", "503"):
                self.send(int(mode), "internal error", "text/plain")
                return True
            if mode == "429":
                self.send(429, "Too Many Requests", "text/plain", {"Retry-After": "1"})
                return True
            if mode == "400":
                self.send(400, "Invalid request", "text/plain")
                return True
            if mode == "401":
                self.send(401, "Unauthorized", "text/plain")
                return True
            return False

        def do_GET(self):
            server.count("requests")
            path = self.path.split("?", 1)[0]
            if path == "/__admin/stats":
                with server.lock:
                    stats = dict(server.stats, mode=server.mode, streams=len(server.streams))
                return self.send_json(200, stats)
            if path == "/health":
                if server.mode == "down":
                    return self.fault()
                return self.send(200, b"", "text/plain")
            if path in ("/v2", "/v3", "/version"):
                return self.send(200, b"ofj-turso-test", "text/plain")
            self.send(404, "Not found", "text/plain")

        def do_POST(self):
            server.count("requests")
            path = self.path.split("?", 1)[0]
            try:
                body = self.read_body()
            except ProtocolError as e:
                return self.send(400, str(e), "text/plain")
            if server.trace:
                sys.stderr.write("turso_server: -> %s %s\n" % (path, body[:2000].decode("utf-8", "replace")))
            if path == "/__admin/mode":
                try:
                    cfg = json.loads(body or b"{}")
                    server.mode = str(cfg.get("mode", "normal"))
                    HOSTILE["mode"] = server.mode
                    server.delay = float(cfg.get("delay", server.delay))
                    if "fail_rate" in cfg:
                        server.fail_rate = float(cfg["fail_rate"])
                except (ValueError, TypeError, AttributeError):
                    return self.send(400, "bad admin request", "text/plain")
                return self.send_json(200, {"mode": server.mode, "delay": server.delay})
            if path not in ("/v2/pipeline", "/v3/pipeline", "/v3/cursor") or (server.no_v3 and path.startswith("/v3")):
                return self.send(404, "Not found", "text/plain")
            if self.fault():
                return
            if not self.authorized():
                server.count("unauthorized")
                return self.send(401, "Unauthorized", "text/plain")
            try:
                req = json.loads(body)
                if not isinstance(req, dict):
                    raise ProtocolError("request must be a JSON object")
            except (ValueError, UnicodeDecodeError):
                return self.send(400, "Invalid JSON in request body", "text/plain")
            except ProtocolError as e:
                return self.send(400, str(e), "text/plain")
            if path == "/v3/cursor":
                return self.cursor(req)
            self.pipeline(req, v3=path.startswith("/v3"))

        def pipeline(self, req, v3):
            server.count("pipelines")
            requests = req.get("requests")
            try:
                if not isinstance(requests, list):
                    raise ProtocolError("requests must be an array")
                stream = server.take_stream(req.get("baton"))
            except ProtocolError as e:
                return self.send(400, str(e), "text/plain")
            results = []
            try:
                with stream.lock:
                    for r in requests:
                        if stream.closed:
                            raise ProtocolError("request after close")
                        result, close = stream.handle(r, v3)
                        results.append(result)
                        if close:
                            stream.close()
            except ProtocolError as e:
                stream.close()
                return self.send(400, str(e), "text/plain")
            baton = server.give_back(stream)
            self.send_json(200, {"baton": baton, "base_url": None, "results": results})

        def cursor(self, req):
            server.count("cursors")
            try:
                stream = server.take_stream(req.get("baton"))
            except ProtocolError as e:
                return self.send(400, str(e), "text/plain")
            lines = []

            def on_step(i, result, error):
                if error is not None:
                    lines.append({"type": "step_error", "step": i, "error": error})
                elif result is not None:
                    lines.append({"type": "step_begin", "step": i, "cols": result["cols"]})
                    for row in result["rows"]:
                        lines.append({"type": "row", "row": row})
                    lines.append({"type": "step_end", "affected_row_count": result["affected_row_count"],
                                  "last_insert_rowid": result["last_insert_rowid"]})

            try:
                with stream.lock:
                    stream.batch(req.get("batch"), True, on_step)
            except ProtocolError as e:
                lines.append({"type": "error", "error": {"message": str(e), "code": "PROTOCOL_ERROR"}})
            baton = server.give_back(stream)
            out = [json.dumps({"baton": baton, "base_url": None}, separators=(",", ":"))]
            out += [json.dumps(line, separators=(",", ":")) for line in lines]
            self.send(200, ("\n".join(out) + "\n").encode("utf-8"), "text/plain")

    return Handler


def main(argv=None):
    p = argparse.ArgumentParser(description="Local Turso-compatible Hrana-over-HTTP server for tests")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8080, help="0 picks a free port (printed first on stdout)")
    p.add_argument("--db", default=None, help="SQLite file (default: a temporary file removed on exit)")
    p.add_argument("--token", default=None, help="require Authorization: Bearer TOKEN")
    p.add_argument("--fail-rate", type=float, default=0.0, help="fraction of pipeline requests answered with HTTP 500")
    p.add_argument("--delay", type=float, default=0.0, help="seconds to wait before answering each request")
    p.add_argument("--quiet", action="store_true", help="do not log requests to stderr")
    p.add_argument("--trace", action="store_true", help="log request and response bodies to stderr (debugging)")
    p.add_argument("--no-v3", action="store_true", help="answer 404 to /v3/… like a server with Hrana 2 only")
    args = p.parse_args(argv)

    temp_dir = None
    db_path = args.db
    if db_path is None:
        temp_dir = tempfile.mkdtemp(prefix="turso-server-")
        db_path = os.path.join(temp_dir, "db.sqlite")
    server = Server(db_path, args.token, args.fail_rate, args.delay, args.quiet)
    server.trace = args.trace
    server.no_v3 = args.no_v3
    httpd = ThreadingHTTPServer((args.host, args.port), make_handler(server))
    httpd.daemon_threads = True
    # Stop cleanly on SIGTERM (tests stop the server that way) so the temporary database goes too.
    # A parent may have spawned us with signals blocked (Swift's Foundation.Process inherits the
    # calling thread's mask), so unblock them first.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    print(httpd.server_address[1], flush=True)
    try:
        httpd.serve_forever(poll_interval=0.2)
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        httpd.server_close()
        if temp_dir:
            for name in os.listdir(temp_dir):
                try:
                    os.unlink(os.path.join(temp_dir, name))
                except OSError:
                    pass
            try:
                os.rmdir(temp_dir)
            except OSError:
                pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
