"""Collection rules for the doctest run over the packages (``--doctest-modules``)."""

import importlib.util

# The training recipe and the learning probes are torch programs (the `train` extra); a plain
# install has no torch, so their modules are collected only where torch is installed
# (.ci/train-smoke runs the recipe).
collect_ignore = [] if importlib.util.find_spec("torch") else ["setgames/learn/ppo.py",
                                                                "research/learning/probes.py"]
