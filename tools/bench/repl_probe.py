#!/usr/bin/env python3
"""Times the ofj REPL in a pseudo-terminal: time to the first prompt, optionally one turn, and peak RSS.

Usage: repl_probe.py [--runs N] [--ask TEXT] [--prompt '› '] [--quit /quit] -- COMMAND [ARGS...]
Each run starts COMMAND on a pty, waits for the prompt, optionally sends TEXT and waits for the next
prompt, then sends the quit line (/quit) and reaps the child with wait4 (ru_maxrss = peak RSS in kB on Linux).
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
    """Reads from fd until `needle` occurs after position `seen`; returns (ms since start, new buffer)."""
    buf = b""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        r, _, _ = select.select([fd], [], [], 0.05)
        if not r:
            continue
        try:
            data = os.read(fd, 65536)
        except OSError:
            break
        if not data:
            break
        buf += data
        if needle in buf[seen:]:
            return (time.monotonic() - start) * 1000, buf
    raise SystemExit(f"timed out waiting for {needle!r}; output so far: {buf[-400:]!r}")


def one_run(cmd, ask, prompt, quit_line):
    start = time.monotonic()
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp(cmd[0], cmd)
    first, buf = wait_for(fd, prompt, start, 0)
    turn = None
    if ask:
        t0 = time.monotonic()
        os.write(fd, ask.encode() + b"\r")
        # The echo of the line and the answer arrive before the next prompt.
        _, more = wait_for(fd, prompt, t0, 0)
        turn = (time.monotonic() - t0) * 1000
    os.write(fd, quit_line.encode() + b"\r")
    try:
        while os.read(fd, 65536):
            pass
    except OSError:
        pass
    _, status, usage = os.wait4(pid, 0)
    os.close(fd)
    return first, turn, usage.ru_maxrss, os.waitstatus_to_exitcode(status)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--ask")
    ap.add_argument("--prompt", default="\u203a ")
    ap.add_argument("--quit", default="/quit")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    cmd = args.cmd[1:] if args.cmd and args.cmd[0] == "--" else args.cmd
    prompt = args.prompt.encode()
    firsts, turns, rss = [], [], []
    for i in range(args.runs):
        first, turn, maxrss, code = one_run(cmd, args.ask, prompt, args.quit)
        firsts.append(first)
        rss.append(maxrss)
        if turn is not None:
            turns.append(turn)
        print(f"  run {i + 1}: first prompt {first:.1f} ms" + (f", turn {turn:.1f} ms" if turn is not None else "")
              + f", peak RSS {maxrss} kB, exit {code}")
    line = f"  median of {args.runs}: first prompt {statistics.median(firsts):.1f} ms"
    if turns:
        line += f", turn to next prompt {statistics.median(turns):.1f} ms"
    line += f", peak RSS median {int(statistics.median(rss))} kB (max {max(rss)} kB)"
    print(line)


if __name__ == "__main__":
    sys.exit(main())
