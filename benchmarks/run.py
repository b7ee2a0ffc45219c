"""Run the setgames benchmarks: ``python benchmarks/run.py [--quick] [--only games|kernels|peers] ...``.

The same as ``setgames bench`` and ``python -m setgames.bench``; see
``benchmarks/README.md``.
"""

import sys

from setgames.bench import main

if __name__ == "__main__":
    sys.exit(main())
