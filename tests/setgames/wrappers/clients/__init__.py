"""The client matrix: each trainer's own adapter (and the library's views) in a
short real loop on every game, rewards checked against the game's returns.

Each module skips when its trainer is not installed; ``.ci/train-smoke``
installs the ``train`` and ``ray`` extras and runs them all.
"""
