"""The protocol loop the misbehaving test bots share; each script changes one thing.

Standard library only, as an external bot would be. When SETGAMES_TEST_PIDDIR is
set, each bot leaves a file named after its pid there, so a test can check that
no bot outlives the arena.
"""

import json
import os
import sys


def send(obj):
    """One JSON line on stdout."""
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def serve(on_act, on_hello=None):
    """Answer hello (or call ``on_hello``), ignore new_game, answer act with ``on_act(message)``."""
    piddir = os.environ.get("SETGAMES_TEST_PIDDIR")
    if piddir:
        open(os.path.join(piddir, str(os.getpid())), "w").close()
    for line in sys.stdin:
        msg = json.loads(line)
        if msg["type"] == "hello":
            if on_hello is not None:
                on_hello(msg)
            else:
                send({"type": "hello", "protocol": msg["protocol"], "name": "test"})
        elif msg["type"] == "act":
            action = on_act(msg)
            if action is not None:
                send({"action": action})
        elif msg["type"] == "quit":
            return
