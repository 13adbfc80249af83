#!/usr/bin/env python3
"""Sync chaos and the long crash sweep: three ofj homes sync through tools/sink_chaos_proxy.py in
front of tools/turso_server.py while the proxy refuses, fails, loses acknowledgements after commit,
answers garbage or lags, and `ofj sync` is killed (SIGKILL) at random phases (OFJ_SYNC_FAULT).
Afterwards the proxy is normal, every home syncs until quiet, and the journals (`ofj backup export`
without its time) must be identical, with every logged entry present exactly once.

Usage: tools/sync_chaos.py [--rounds 30] [--modes normal,refused,500,commit500,reset,garbage,lagged]
                           [--kill-rate 0.3] [--seed S] [--ofj .build/debug/ofj]
Prints a JSON summary; exit 1 when a check fails. Standard library only.
"""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
PHASES = ["push-sent", "push-acknowledged", "pull-read", "pull-applied"]


def start(args):
    proc = subprocess.Popen([sys.executable] + args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    return proc, proc.stdout.readline().split()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rounds", type=int, default=30)
    p.add_argument("--modes", default="normal,refused,500,commit500,reset,garbage,lagged")
    p.add_argument("--kill-rate", type=float, default=0.3)
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--ofj", default=os.path.join(os.path.dirname(HERE), ".build", "debug", "ofj"))
    a = p.parse_args()
    rng = random.Random(a.seed)
    work = tempfile.mkdtemp(prefix="sync-chaos-")
    server, (port,) = start([os.path.join(HERE, "turso_server.py"), "--port", "0", "--quiet", "--db", work + "/remote.sqlite"])
    proxy, (proxy_port, control_port) = start([os.path.join(HERE, "sink_chaos_proxy.py"), "--upstream", port, "--slow-delay", "11"]
                                              + (["--seed", str(a.seed)] if a.seed is not None else []))
    direct = "http://127.0.0.1:%s" % port
    chaotic = "http://127.0.0.1:%s" % proxy_port
    homes = [os.path.join(work, name) for name in ("a", "b", "c")]
    logged = []
    stats = {"syncs": 0, "failed": 0, "killed": 0, "modes": {}}

    def ofj(home, args, url, extra=None):
        env = {"OFJ_HOME": home, "HOME": home, "XDG_CONFIG_HOME": home + "/config", "OFJ_SYNC_URL": url,
               "PATH": "/usr/bin:/bin", "TZ": "UTC"}
        env.update(extra or {})
        return subprocess.run([a.ofj] + args, env=env, capture_output=True, text=True, timeout=120)

    def mode(m):
        req = urllib.request.Request("http://127.0.0.1:%s/mode" % control_port, data=json.dumps({"mode": m}).encode(),
                                     headers={"Content-Type": "application/json"})
        urllib.request.urlopen(req, timeout=10).read()

    def export(home):
        r = ofj(home, ["backup", "export"], direct)
        doc = json.loads(r.stdout)
        doc.pop("exported_at", None)
        return json.dumps(doc, sort_keys=True)

    failures = []
    try:
        for rnd in range(a.rounds):
            m = rng.choice(a.modes.split(","))
            mode(m)
            stats["modes"][m] = stats["modes"].get(m, 0) + 1
            for home in homes:
                name = "r%d %s" % (rnd, os.path.basename(home))
                if ofj(home, ["log", name, "--kcal", str(rng.randint(10, 900))], chaotic).returncode == 0:
                    logged.append(name)
                extra = {"OFJ_SYNC_FAULT": rng.choice(PHASES)} if rng.random() < a.kill_rate else None
                r = ofj(home, ["sync"], chaotic, extra)
                stats["syncs"] += 1
                if r.returncode == -9:
                    stats["killed"] += 1
                elif r.returncode != 0:
                    stats["failed"] += 1
                    if "sk-" in r.stderr or "<html" in r.stderr.lower():
                        failures.append("raw error text reached stderr: %r" % r.stderr[:200])
        mode("normal")
        for _ in range(2):
            for home in homes:
                r = ofj(home, ["sync"], direct)
                if r.returncode != 0:
                    failures.append("final sync failed: %s" % r.stderr.strip())
        exports = [export(h) for h in homes]
        if len(set(exports)) != 1:
            failures.append("the homes differ after the final sync")
        names = [e["name"] for e in json.loads(exports[0])["entries"]]
        if sorted(names) != sorted(logged):
            failures.append("entries lost or duplicated: %d logged, %d present" % (len(logged), len(names)))
    finally:
        for proc in (proxy, server):
            proc.terminate()
            proc.wait()
    summary = dict(stats, rounds=a.rounds, entries=len(logged), failures=failures, ok=not failures)
    print(json.dumps(summary, indent=1))
    if not failures:
        shutil.rmtree(work, ignore_errors=True)
    else:
        print("sync_chaos: files kept in %s" % work, file=sys.stderr)
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
