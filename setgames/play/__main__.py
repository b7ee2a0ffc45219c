"""``python -m setgames.play GAME [options]``: the same as ``setgames play``."""

from __future__ import annotations

import argparse
import sys

from setgames.play import add_arguments, run


def main(argv: list[str] | None = None) -> int:
    """Parse ``argv`` and play."""
    parser = argparse.ArgumentParser(prog="setgames play", description="Play against the bots.")
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
