"""Writes megabytes on stdout without a line end."""
import sys

from _proto import serve


def act(msg):
    chunk = "9" * 65536
    for _ in range(160):  # 10 MB; the arena stops reading after its line bound
        sys.stdout.write(chunk)
    sys.stdout.flush()


serve(act)
