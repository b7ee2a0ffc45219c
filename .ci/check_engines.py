"""CI: every compiled part of the installed ``setgames`` loads, from the installed copy.

    python .ci/check_engines.py

Each ``_*.pyx`` shipped in the installed packages (``setgames``, ``setgames.batch``
and the three games) names an extension module; each must import as a compiled
module (a module not found, or found only as Python source, fails).
Run it from outside the checkout so that the install is what Python imports.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path

PACKAGES = ("setgames", "setgames.batch", "tethsi_env", "bharg_env", "tusac_env")


def main() -> int:
    """Import every compiled module; print what loaded from where; 1 when one did not."""
    missing = []
    for package in PACKAGES:
        folder = Path(importlib.util.find_spec(package).origin).parent
        for pyx in sorted(folder.glob("_*.pyx")):
            name = f"{package}.{pyx.stem}"
            try:
                origin = importlib.import_module(name).__file__ or ""
            except ImportError as exc:
                missing.append(f"{name}: {exc}")
                continue
            if origin.endswith((".py", ".pyx")):
                missing.append(f"{name}: not compiled ({origin})")
            else:
                print(f"compiled: {name} ({origin})")
    from setgames.cli import _version_line

    print(_version_line())
    for line in missing:
        print(f"MISSING {line}", file=sys.stderr)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
