"""Collection rules for the doctest run over the packages (``--doctest-modules``)."""

import importlib.util

# The training recipe is a torch program (the `train` extra); a plain install has no torch,
# so its module is collected only where torch is installed (.ci/train-smoke runs it).
collect_ignore = [] if importlib.util.find_spec("torch") else ["setgames/learn/ppo.py"]
