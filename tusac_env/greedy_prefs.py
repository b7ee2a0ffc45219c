"""The greedy Tu Sac bot's meld preference: one table for its Python and compiled copies.

:mod:`tusac_env.greedy` (the Python bot) and :mod:`tusac_env._greedy` (its
compiled copy: the batch's ``opponents="greedy"`` and ``greedy_actions()``,
ISMCTS's rollouts) each read :data:`MELD_VALUE` when they load. It lives in
neither: the compiled module cannot import the Python bot, which imports it,
and a table one module hands the other as a side effect of its own import
leaves the other playing a different game in a process that never made that
import (issue #34). This module imports nothing, so either copy may load first.
"""

__all__ = ["MELD_VALUE"]

# Among melds that leave the same trash, the more valuable set: the winner's set values of
# tusac_env/README.md, rules choice 22 (a pair is worth nothing, four pawns two). Every meld kind of
# tusac_env.melds.MELDS needs an entry: the compiled copy refuses to load without one.
MELD_VALUE = {"king": 1, "pair": 0, "triple": 1, "kgm": 1, "rcn": 1, "pawns3": 1, "pawns4": 2}
