"""Answers a line of bytes that are not UTF-8."""
import sys

from _proto import serve


def act(msg):
    sys.stdout.buffer.write(b'{"action": "\xff\xfe"}\n')
    sys.stdout.flush()


serve(act)
