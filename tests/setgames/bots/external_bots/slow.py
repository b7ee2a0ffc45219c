"""Plays the first legal action, sleeping DELAY_MS (argv[1]) on its first N decisions
of each game (argv[2], default every decision)."""
import sys
import time

from _proto import serve

delay = float(sys.argv[1]) / 1000
slow_moves = int(sys.argv[2]) if len(sys.argv) > 2 else 10**9


def act(msg):
    if msg["ply"] < slow_moves:
        time.sleep(delay)
    return msg["legal"][0][0]


serve(act)
