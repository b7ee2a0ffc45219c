"""CI: every requirement of the given extras of pyproject.toml is installed at
a version the extra admits (pip can keep an older copy that no longer fits).

    python .ci/check_extras.py train ray pictures
"""

from __future__ import annotations

import sys
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import tomllib
from packaging.requirements import Requirement


def main(extras: list[str]) -> int:
    """Print each requirement with the installed version; 1 when one does not fit."""
    data = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())
    optional = data["project"]["optional-dependencies"]
    bad = 0
    for extra in extras:
        for text in optional[extra]:
            req = Requirement(text)
            try:
                have = version(req.name)
            except PackageNotFoundError:
                have = None
            ok = have is not None and req.specifier.contains(have, prereleases=True)
            bad += not ok
            print(f"{'ok ' if ok else 'BAD'} [{extra}] {text}: installed {have}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or ["train", "sb3", "tianshou", "torchrl", "notebook", "ray"]))
