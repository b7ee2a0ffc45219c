"""Writes megabytes of logs on stderr before each answer."""
import sys

from _proto import serve


def act(msg):
    for _ in range(80):  # 5 MB
        sys.stderr.write("log " * 16384)
    sys.stderr.flush()
    return msg["legal"][0][0]


serve(act)
