#!/usr/bin/env python3
"""Whole-process timing for tools/bench/check.sh: two commands side by side, pair by pair, or one alone.

  pairs.py pair  --runs N [--warmup W] LABEL -- COMMAND_A ::: COMMAND_B
  pairs.py alone --runs N [--warmup W] LABEL -- COMMAND

`pair` runs A and B in turn (A B, B A, A B, ...) so a drift in the machine's speed falls on both, and
takes the ratio B/A of each pair; its median is the figure quoted ("A is R times faster than B").
`alone` runs one command and reports its median and 95th percentile.
Wall time is a monotonic clock around spawn and reap; CPU (user + sys) comes from wait4. Peak RSS is
measured apart, by /usr/bin/time -f %M on 5 runs of each command (a Python parent's own pages would
count towards its forked child's peak; /usr/bin/time is a small C program), so the timed runs carry
no wrapper. Every run's standard input is /dev/null and its output is read and thrown away; a run
that exits non-zero stops the measurement (its stderr is shown). Python standard library only.

The last line is one machine-readable record for check.sh:
  RESULT label=... a_ms=... b_ms=... ratio=... a_p95_ms=... a_peak_mib=... b_peak_mib=...
Peaks are MiB (2^20 bytes; /usr/bin/time reports KiB).
"""

import argparse
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time


def run_once(cmd):
    """(wall ms, cpu ms) of one run; exits with the command's stderr when it fails."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = (time.perf_counter() - start) * 1000
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        sys.exit(f"pairs.py: {shlex.join(cmd)} exited {proc.returncode}: {err.decode(errors='replace')[-400:]}")
    return wall, (usage.ru_utime + usage.ru_stime) * 1000


def peak_mb(cmd, runs=5):
    """Median peak RSS (MiB) of `runs` runs under /usr/bin/time."""
    peaks = []
    with tempfile.NamedTemporaryFile("r") as out:
        for _ in range(runs):
            subprocess.run(["/usr/bin/time", "-f", "%M", "-o", out.name] + cmd, stdin=subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
            out.seek(0)
            peaks.append(int(out.read().strip().splitlines()[-1]) / 1024)
    return statistics.median(peaks)


def p95(values):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["pair", "alone"])
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("label")
    ap.add_argument("rest", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    rest = args.rest[1:] if args.rest and args.rest[0] == "--" else args.rest
    if args.mode == "pair":
        if ":::" not in rest:
            sys.exit("pairs.py pair: COMMAND_A ::: COMMAND_B")
        i = rest.index(":::")
        a, b = rest[:i], rest[i + 1:]
    else:
        a, b = rest, None
    for _ in range(args.warmup):
        run_once(a)
        if b:
            run_once(b)
    a_wall, b_wall, a_cpu, b_cpu, ratios = [], [], [], [], []
    for n in range(args.runs):
        order = [("a", a), ("b", b)] if n % 2 == 0 else [("b", b), ("a", a)]
        got = {}
        for name, cmd in order:
            if cmd:
                got[name] = run_once(cmd)
        a_wall.append(got["a"][0])
        a_cpu.append(got["a"][1])
        if b:
            b_wall.append(got["b"][0])
            b_cpu.append(got["b"][1])
            ratios.append(got["b"][0] / got["a"][0])
    med = statistics.median
    a_peak = peak_mb(a)
    line = (f"  A {shlex.join(a)}\n    wall median {med(a_wall):.1f} ms (min {min(a_wall):.1f}, max {max(a_wall):.1f}, p95 {p95(a_wall):.1f}),"
            f" cpu median {med(a_cpu):.1f} ms, peak {a_peak:.1f} MiB, n={args.runs}")
    record = {"label": args.label, "a_ms": f"{med(a_wall):.2f}", "a_p95_ms": f"{p95(a_wall):.2f}", "a_peak_mib": f"{a_peak:.2f}"}
    print(line)
    if b:
        b_peak = peak_mb(b)
        print(f"  B {shlex.join(b)}\n    wall median {med(b_wall):.1f} ms (min {min(b_wall):.1f}, max {max(b_wall):.1f}),"
              f" cpu median {med(b_cpu):.1f} ms, peak {b_peak:.1f} MiB")
        print(f"  B/A pair by pair: median {med(ratios):.2f} (min {min(ratios):.2f}, max {max(ratios):.2f})")
        record.update(b_ms=f"{med(b_wall):.2f}", ratio=f"{med(ratios):.3f}", b_peak_mib=f"{b_peak:.2f}")
    print("RESULT " + " ".join(f"{k}={shlex.quote(v)}" for k, v in record.items()))


if __name__ == "__main__":
    main()
