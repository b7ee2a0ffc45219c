"""Crashes (exit status 3, a message on stderr) at its first decision."""
import sys

from _proto import serve


def act(msg):
    print("Traceback: something broke", file=sys.stderr, flush=True)
    sys.exit(3)


serve(act)
