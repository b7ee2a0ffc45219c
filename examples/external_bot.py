#!/usr/bin/env python3
"""An external bot for setgames, speaking the JSON-lines bot protocol (version 1).

It imports nothing from setgames, only the standard library, so the same
program could be written in any language: read one JSON object a line on
stdin, write one a line on stdout, log on stderr. The protocol is specified
in docs/bot-protocol.md. Try it:

    setgames arena --game tethsi --bots greedy "exec:python3 examples/external_bot.py" --games 4

Its play: prefer the move whose label says it takes or melds something, else
a random legal move (seeded by the new-game message, so its games replay).
"""

import json
import random
import sys

PROTOCOL = 1
NAME = "example-external"
# Words in action labels that usually gain something, across the three games.
EAGER = ("meld", "take", "claim", "win", "play", "capture")


def send(message):
    """One message: one line of JSON, flushed at once (the arena waits for it)."""
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def choose(message, rng):
    """An action id from the legal ones of an "act" message."""
    legal = message["legal"]  # [[id, label], ...]
    eager = [a for a, label in legal if any(w in label.lower() for w in EAGER)]
    return rng.choice(eager or [a for a, _ in legal])


def main():
    """Serve the arena until it says quit or closes stdin."""
    rng = random.Random(0)
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            if message.get("protocol") != PROTOCOL:
                print(f"unsupported protocol {message.get('protocol')}", file=sys.stderr)
                return 1
            send({"type": "hello", "protocol": PROTOCOL, "name": NAME})
        elif kind == "new_game":
            rng = random.Random(message.get("seed"))
        elif kind == "act":
            send({"action": choose(message, rng)})
        elif kind == "quit":
            return 0
        # Unknown message types are skipped: later protocol versions may add some.
    return 0


if __name__ == "__main__":
    sys.exit(main())
