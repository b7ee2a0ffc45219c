"""Plays the first legal action and appends every message it receives to the file argv[1]."""
import sys

from _proto import serve

log = open(sys.argv[1], "a")  # noqa: SIM115 - open for the whole life of the bot


def act(msg):
    return msg["legal"][0][0]


class Logged:
    """stdin, copied to the log line by line."""

    def __iter__(self):
        for line in sys.__stdin__:
            log.write(line)
            log.flush()
            yield line


sys.stdin = Logged()
serve(act)
