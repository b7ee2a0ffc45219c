"""Answers a line that is not JSON."""
import sys

from _proto import serve


def act(msg):
    sys.stdout.write("e2e4 is my move\n")
    sys.stdout.flush()


serve(act)
