"""ISMCTS with the experimental Tu Sac re-deals: ``determinize="consistent"`` or ``"model"``.

The product's :class:`~setgames.bots.ismcts.IsmctsBot` re-deals uniformly
over what its seat cannot see; this subclass swaps in the re-dealers of
:mod:`research.tusac_information.inference` and
:mod:`research.tusac_information.handmodel` (``FINDINGS.md``: neither
measured a gain).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from research.tusac_information import handmodel, inference
from setgames.bots.ismcts import IsmctsBot

__all__ = ["DETERMINIZE_MODES", "InformedIsmctsBot"]

DETERMINIZE_MODES = ("plain", "consistent", "model")


class InformedIsmctsBot(IsmctsBot):
    """:class:`IsmctsBot` whose rollout-mode re-deals are chosen by ``determinize``.

    Args:
        determinize: ``"plain"`` (the game's own, as the product bot),
            ``"consistent"`` (re-deals contradicting none of the claims and
            melds the others did not make) or ``"model"`` (the others' hands
            drawn from the hand model).
        **options: as :class:`IsmctsBot`.
    """

    def __init__(self, seed: int | None = None, determinize: str = "plain", **options: Any):
        if determinize not in DETERMINIZE_MODES:
            raise ValueError(f"determinize {determinize!r} must be one of {DETERMINIZE_MODES}")
        super().__init__(seed, **options)
        self.determinize = determinize

    def determinizer(self, game: Any, state: Any, seat: int
                     ) -> Callable[[Any, Any, int, np.random.Generator], Any]:
        """The re-dealer of this bot's ``determinize`` mode for this position."""
        if self.determinize == "consistent":
            return inference.consistent_determinize
        if self.determinize == "model":
            return handmodel.model_determinizer(game, state, seat)
        return super().determinizer(game, state, seat)
