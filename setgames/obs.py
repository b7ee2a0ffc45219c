"""Observation modes: which vector a game's ``observe`` writes, chosen by one game option, ``obs``.

Every game takes ``obs`` beside its rules options, so the one argument reaches every
place a game is made: ``make_game(name, obs="structure")``, the AEC env
(``raw_env(obs=...)``), ``SingleAgentEnv(name, obs=...)``, ``gymnasium.make`` /
``gymnasium.make_vec`` (keyword arguments go to the game), the SB3 view and the batch
(both read it from the game they are given). ``SingleAgentEnv``'s older ``obs_mode``
(``"flat"`` or ``"dict"``) is the *format* of what it returns and stays as it was.

- ``cards``: the card sets as one-hot vectors (the default; what every shipped bot reads).
- ``structure``: ``cards`` followed by the set core's reading of the position, from the
  observer's knowledge only (outs are counted over the cards the observer has not seen).
- ``history``: ``cards`` followed by the public event sequence with perfect recall.

A game offers the modes it has a spec for (``game.obs_specs``, mode -> :class:`ObsSpec`);
``game.obs_spec`` is the chosen mode's. Every spec's table is on the game's README.

>>> check_obs("structure", ("cards", "structure"))
'structure'
>>> check_obs("pixels", ("cards", "structure"))
Traceback (most recent call last):
...
ValueError: obs 'pixels' is not one of the modes ('cards', 'structure')
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["DEFAULT_OBS", "OBS_MODES", "check_obs"]

OBS_MODES = ("cards", "structure", "history")
DEFAULT_OBS = "cards"


def check_obs(value: Any, offered: Sequence[str] = OBS_MODES) -> str:
    """``value`` when it names one of the ``offered`` modes.

    Raises:
        ValueError: any other value, in one line naming the modes.
    """
    if isinstance(value, str) and value in offered:
        return value
    raise ValueError(f"obs {value!r} is not one of the modes {tuple(offered)}")
