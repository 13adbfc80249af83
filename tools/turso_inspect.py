#!/usr/bin/env python3
"""Read-only inspector for an ofj diagnostics database: a local SQLite file or a Turso-compatible server.

Usage:
  turso_inspect.py (--db FILE | --url URL [--token TOKEN]) summary
  turso_inspect.py (--db FILE | --url URL) events [--provider P] [--status S] [--operation O] [--run ID]
                                                  [--since ISO] [--limit N] [--json]
  turso_inspect.py (--db FILE | --url URL) sql "SELECT ..."     (SELECT/WITH only; anything else is refused)

--url defaults to $TURSO_DATABASE_URL and --token to $TURSO_AUTH_TOKEN. libsql:// means https://.
Nothing is ever written: files open read-only with query_only and an authorizer that denies writes;
remote queries run inside BEGIN ... ROLLBACK after the same text check.
"""

import argparse
import base64
import json
import os
import re
import sqlite3
import sys
import urllib.error
import urllib.request

TABLE = "ofj_ai_diagnostic_events"
FORBIDDEN = {"INSERT", "UPDATE", "DELETE", "REPLACE", "DROP", "ALTER", "CREATE", "ATTACH", "DETACH", "PRAGMA",
             "VACUUM", "REINDEX", "BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE", "ANALYZE", "END", "UPSERT"}
EVENT_COLUMNS = ["occurred_at", "id", "run_id", "provider", "model", "operation", "status", "error_class",
                 "error_code", "http_status", "total_ms", "tool_name"]


class InspectError(Exception):
    pass


def check_select_only(sql):
    """Refuses anything but one SELECT/WITH query (string literals and comments are ignored)."""
    stripped = re.sub(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|`[^`]*`|\[[^\]]*\]", " ", sql)
    stripped = re.sub(r"--[^\n]*|/\*.*?\*/", " ", stripped, flags=re.S)
    body = stripped.strip().rstrip(";").strip()
    if ";" in body:
        raise InspectError("only one statement is allowed")
    words = re.findall(r"[A-Za-z_]+", body)
    if not words or words[0].upper() not in ("SELECT", "WITH"):
        raise InspectError("only SELECT (or WITH ... SELECT) queries are allowed")
    bad = sorted({w.upper() for w in words} & FORBIDDEN)
    if bad:
        raise InspectError("refused: the query contains %s" % ", ".join(bad))
    return sql.strip().rstrip(";").strip()


# ---------------------------------------------------------------------------------------------
# Backends


class FileBackend:
    def __init__(self, path):
        if not os.path.exists(path):
            raise InspectError("no such database file: %s" % path)
        self.conn = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
        self.conn.execute("PRAGMA query_only = ON")
        allowed = {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION, sqlite3.SQLITE_RECURSIVE}

        def authorizer(action, arg1, *_):
            if action == sqlite3.SQLITE_PRAGMA and arg1 in ("table_info", "table_xinfo"):
                return sqlite3.SQLITE_OK  # pragma_table_info(): reads the schema only
            if action == sqlite3.SQLITE_UPDATE and arg1 in ("sqlite_master", "sqlite_schema"):
                return sqlite3.SQLITE_OK  # SQLite reports this while loading the schema
            return sqlite3.SQLITE_OK if action in allowed else sqlite3.SQLITE_DENY

        self.conn.set_authorizer(authorizer)

    def query(self, sql, args=()):
        try:
            cur = self.conn.execute(sql, args)
        except sqlite3.Error as e:
            raise InspectError("query failed: %s" % e)
        return [d[0] for d in cur.description or []], cur.fetchall()


class HttpBackend:
    def __init__(self, url, token):
        if url.startswith("libsql://"):
            url = "https://" + url[len("libsql://"):]
        if not (url.startswith("http://") or url.startswith("https://")):
            raise InspectError("the URL must start with libsql://, https:// or http://")
        self.url = url.rstrip("/") + "/v2/pipeline"
        self.token = token

    @staticmethod
    def encode(v):
        if v is None:
            return {"type": "null"}
        if isinstance(v, int):
            return {"type": "integer", "value": str(v)}
        if isinstance(v, float):
            return {"type": "float", "value": v}
        return {"type": "text", "value": str(v)}

    @staticmethod
    def decode(v):
        t = v.get("type")
        if t == "integer":
            return int(v["value"])
        if t == "float":
            return float(v["value"])
        if t == "text":
            return v["value"]
        if t == "blob":
            raw = v["base64"]
            return base64.b64decode(raw + "=" * (-len(raw) % 4))
        return None

    def query(self, sql, args=()):
        # BEGIN ... ROLLBACK: even a query that slipped past the text check cannot keep a write.
        steps = [{"stmt": {"sql": "BEGIN", "want_rows": False}},
                 {"condition": {"type": "ok", "step": 0},
                  "stmt": {"sql": sql, "args": [self.encode(a) for a in args], "want_rows": True}},
                 {"condition": {"type": "ok", "step": 0}, "stmt": {"sql": "ROLLBACK", "want_rows": False}}]
        body = json.dumps({"baton": None, "requests": [{"type": "batch", "batch": {"steps": steps}}, {"type": "close"}]})
        req = urllib.request.Request(self.url, data=body.encode(), method="POST", headers={"Content-Type": "application/json"})
        if self.token:
            req.add_header("Authorization", "Bearer " + self.token)
        try:
            with urllib.request.urlopen(req, timeout=30) as resp:
                payload = json.loads(resp.read().decode())
        except urllib.error.HTTPError as e:
            if e.code in (401, 403):
                raise InspectError("the server refused the token (HTTP %d); check --token / TURSO_AUTH_TOKEN" % e.code)
            raise InspectError("the server answered HTTP %d" % e.code)
        except (urllib.error.URLError, OSError) as e:
            raise InspectError("could not reach the server (%s)" % getattr(e, "reason", e))
        except ValueError:
            raise InspectError("the server sent something that is not JSON")
        result = payload["results"][0]
        if result.get("type") != "ok":
            raise InspectError("query failed: %s" % result.get("error", {}).get("message"))
        batch = result["response"]["result"]
        if batch["step_errors"][1]:
            raise InspectError("query failed: %s" % batch["step_errors"][1].get("message"))
        step = batch["step_results"][1]
        if step is None:
            raise InspectError("query failed: %s" % (batch["step_errors"][0] or {}).get("message"))
        return [c["name"] for c in step["cols"]], [tuple(self.decode(v) for v in row) for row in step["rows"]]


# ---------------------------------------------------------------------------------------------
# Commands


def print_table(cols, rows, out):
    cells = [[("" if v is None else str(v)) for v in row] for row in rows]
    widths = [max([len(c)] + [len(r[i]) for r in cells]) for i, c in enumerate(cols)]
    out.write("  ".join(c.ljust(w) for c, w in zip(cols, widths)).rstrip() + "\n")
    for r in cells:
        out.write("  ".join(v.ljust(w) for v, w in zip(r, widths)).rstrip() + "\n")


def existing_columns(backend):
    cols, rows = backend.query("SELECT name FROM pragma_table_info('%s')" % TABLE)
    return [r[0] for r in rows]


def summary(backend, out):
    cols = existing_columns(backend)
    if not cols:
        raise InspectError("no %s table in this database" % TABLE)
    _, rows = backend.query("SELECT count(*), min(occurred_at), max(occurred_at) FROM %s" % TABLE)
    count, first, last = rows[0]
    out.write("events: %d\n" % count)
    out.write("from: %s\nto: %s\n" % (first or "-", last or "-"))
    for column in ("provider", "operation", "status", "error_class"):
        if column not in cols:
            continue
        _, groups = backend.query("SELECT coalesce(%s, '-') AS k, count(*) AS n FROM %s GROUP BY k ORDER BY n DESC, k LIMIT 20"
                                  % (column, TABLE))
        out.write("by %s: %s\n" % (column, ", ".join("%s=%d" % (k, n) for k, n in groups) or "-"))
    if "total_ms" in cols and "operation" in cols:
        _, timing = backend.query("SELECT operation, count(*), round(avg(total_ms), 1), max(total_ms) FROM %s "
                                  "WHERE total_ms IS NOT NULL GROUP BY operation ORDER BY operation" % TABLE)
        for op, n, avg, mx in timing:
            out.write("timing %s: n=%d avg=%sms max=%sms\n" % (op, n, avg, mx))


def events(backend, args, out):
    available = existing_columns(backend)
    if not available:
        raise InspectError("no %s table in this database" % TABLE)
    cols = [c for c in EVENT_COLUMNS if c in available]
    where, params = [], []
    for column, value in (("provider", args.provider), ("status", args.status), ("operation", args.operation), ("run_id", args.run)):
        if value is not None:
            where.append("%s = ?" % column)
            params.append(value)
    if args.since:
        where.append("occurred_at >= ?")
        params.append(args.since)
    sql = "SELECT %s FROM %s%s ORDER BY occurred_at, id LIMIT ?" % (
        ", ".join(cols), TABLE, (" WHERE " + " AND ".join(where)) if where else "")
    params.append(int(args.limit))
    names, rows = backend.query(sql, params)
    if args.json:
        out.write(json.dumps([dict(zip(names, r)) for r in rows], indent=2) + "\n")
    else:
        print_table(names, rows, out)


def main(argv=None):
    p = argparse.ArgumentParser(description="Read-only inspector for ofj diagnostics")
    p.add_argument("--db", help="local SQLite file")
    p.add_argument("--url", default=None, help="Turso-compatible server (default $TURSO_DATABASE_URL)")
    p.add_argument("--token", default=None, help="bearer token (default $TURSO_AUTH_TOKEN)")
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("summary")
    ev = sub.add_parser("events")
    ev.add_argument("--provider")
    ev.add_argument("--status")
    ev.add_argument("--operation")
    ev.add_argument("--run")
    ev.add_argument("--since", help="ISO time, e.g. 2026-11-29T00:00:00Z")
    ev.add_argument("--limit", type=int, default=100)
    ev.add_argument("--json", action="store_true")
    sq = sub.add_parser("sql")
    sq.add_argument("query")
    sq.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    try:
        if args.db:
            backend = FileBackend(args.db)
        else:
            url = args.url or os.environ.get("TURSO_DATABASE_URL")
            if not url:
                raise InspectError("give --db FILE or --url URL (or set TURSO_DATABASE_URL)")
            backend = HttpBackend(url, args.token if args.token is not None else os.environ.get("TURSO_AUTH_TOKEN"))
        if args.command == "summary":
            summary(backend, sys.stdout)
        elif args.command == "events":
            events(backend, args, sys.stdout)
        else:
            names, rows = backend.query(check_select_only(args.query))
            if args.json:
                sys.stdout.write(json.dumps([dict(zip(names, r)) for r in rows], indent=2, default=str) + "\n")
            else:
                print_table(names, rows, sys.stdout)
    except InspectError as e:
        sys.stderr.write("turso_inspect: %s\n" % e)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
