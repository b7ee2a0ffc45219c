"""``python -m setgames.bench``: see :func:`setgames.bench.main`."""

import sys

from setgames.bench import main

sys.exit(main())
