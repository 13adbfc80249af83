"""Runs commands in alternating order, one run each per round, and prints their medians.

hyperfine runs all of one command's runs before the next command's, so a drift in the machine's
speed over the minute shows as a difference between commands. Alternating (A B, B A, A B, ...)
spreads the drift over both. Used by tools/bench/run.sh for the dead-sink comparison.

Usage: interleave.py ROUNDS NAME=COMMAND NAME=COMMAND...   (COMMAND is run by /bin/sh)
"""
import statistics
import subprocess
import sys
import time


def main():
    rounds = int(sys.argv[1])
    commands = [arg.split("=", 1) for arg in sys.argv[2:]]
    times = {name: [] for name, _ in commands}
    for i in range(rounds):
        for name, command in (commands if i % 2 == 0 else list(reversed(commands))):
            start = time.perf_counter()
            subprocess.run(command, shell=True, stdout=subprocess.DEVNULL, check=True)
            times[name].append((time.perf_counter() - start) * 1000)
    first = statistics.median(times[commands[0][0]])
    for name, _ in commands:
        median = statistics.median(times[name])
        print(f"  {name:<10} median {median:7.1f} ms  (min {min(times[name]):.1f}, n={rounds})  = {median / first:.2f}x the first")


if __name__ == "__main__":
    main()
