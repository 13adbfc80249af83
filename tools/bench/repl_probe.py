#!/usr/bin/env python3
"""Times the ofj REPL in a pseudo-terminal: time to the first prompt, optionally one turn, and peak RSS.

Usage: repl_probe.py [--runs N] [--ask TEXT]... [--prompt '› '] [--quit /quit] -- COMMAND [ARGS...]
Each run starts COMMAND on a pty, waits for the prompt, sends each TEXT in turn and waits for the next
prompt after each, then sends the quit line (/quit) and reaps the child with wait4 (ru_maxrss = peak
RSS in kB on Linux).
Prints per-run figures and medians. Python standard library only.
"""

import argparse
import os
import pty
import select
import statistics
import sys
import time


def wait_for(fd, needle, start, seen, timeout=30.0):
    """Reads from fd until the output ends with `needle` (after position `seen`) and nothing more
    arrives for 20 ms: a recap of earlier messages on a resumed thread also shows the prompt
    marker, followed by text. Returns (ms since start when that prompt arrived, the buffer)."""
    buf = b""
    at = None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        r, _, _ = select.select([fd], [], [], 0.02 if at is not None else 0.05)
        if not r:
            if at is not None:
                return at, buf
            continue
        try:
            data = os.read(fd, 65536)
        except OSError:
            break
        if not data:
            break
        buf += data
        tail = buf[seen:].rstrip(b" ")
        at = (time.monotonic() - start) * 1000 if tail.endswith(needle.rstrip(b" ")) else None
    raise SystemExit(f"timed out waiting for {needle!r}; output so far: {buf[-400:]!r}")


def one_run(cmd, ask, prompt, quit_line):
    start = time.monotonic()
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp(cmd[0], cmd)
    first, buf = wait_for(fd, prompt, start, 0)
    turns = []
    for line in ask or []:
        t0 = time.monotonic()
        os.write(fd, line.encode() + b"\r")
        # The echo of the line and the answer arrive before the next prompt.
        ms, _ = wait_for(fd, prompt, t0, 0)
        turns.append(ms)
    os.write(fd, quit_line.encode() + b"\r")
    # Drained for at most 10 s: a child that does not quit is killed (and its exit shows it).
    deadline = time.monotonic() + 10
    try:
        while time.monotonic() < deadline:
            r, _, _ = select.select([fd], [], [], 0.1)
            if r and not os.read(fd, 65536):
                break
    except OSError:
        pass
    if time.monotonic() >= deadline:
        os.kill(pid, 9)
    _, status, usage = os.wait4(pid, 0)
    os.close(fd)
    return first, turns, usage.ru_maxrss, os.waitstatus_to_exitcode(status)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--ask", action="append", help="a line to send after the prompt; repeat for more turns")
    ap.add_argument("--prompt", default="\u203a ")
    ap.add_argument("--quit", default="/quit")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    cmd = args.cmd[1:] if args.cmd and args.cmd[0] == "--" else args.cmd
    prompt = args.prompt.encode()
    firsts, rss = [], []
    turns = [[] for _ in args.ask or []]
    for i in range(args.runs):
        first, took, maxrss, code = one_run(cmd, args.ask, prompt, args.quit)
        firsts.append(first)
        rss.append(maxrss)
        for n, ms in enumerate(took):
            turns[n].append(ms)
        print(f"  run {i + 1}: first prompt {first:.1f} ms" + "".join(f", turn {n + 1} {ms:.1f} ms" for n, ms in enumerate(took))
              + f", peak RSS {maxrss} kB, exit {code}")
    line = f"  median of {args.runs}: first prompt {statistics.median(firsts):.1f} ms"
    for n, t in enumerate(turns):
        line += f", turn {n + 1} {statistics.median(t):.1f} ms"
    if turns:
        # The last turn's median, under the name tools/bench/run.sh and check.sh read.
        line += f", turn to next prompt {statistics.median(turns[-1]):.1f} ms"
    line += f", peak RSS median {int(statistics.median(rss))} kB (max {max(rss)} kB)"
    print(line)


if __name__ == "__main__":
    sys.exit(main())
