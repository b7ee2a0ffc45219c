"""One fast legal-action sampler, shared by every environment measured.

The policy's cost must be equal and small for every env, so the figures
compare environments and not policies. :class:`LegalSampler` draws a uniform
legal action from a mask (numpy int8 / bool vector, as every AEC env here
gives) or from a list of legal ids (as the rules layer and OpenSpiel give),
with its own seeded :class:`random.Random` (the global RNG is never touched).

>>> import numpy as np
>>> s = LegalSampler(seed=0)
>>> mask = np.array([0, 1, 0, 0, 1], dtype=np.int8)
>>> all(s.from_mask(mask) in (1, 4) for _ in range(50))
True
>>> s.from_list([7]), s.from_mask(np.array([0, 0, 1], dtype=np.int8))
(7, 2)
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import numpy as np

__all__ = ["LegalSampler"]


class LegalSampler:
    """Uniformly random legal actions, from a mask or from a list.

    ``mask.nonzero()`` is the cheapest robust way to list the legal ids of a
    small numpy mask (about 1-2 us here, whatever the number of legal
    actions); ``random.random()`` costs 30 ns against 1-3 us for a numpy
    ``Generator`` call on one number.

    Args:
        seed: seeds the sampler's own generator.
    """

    def __init__(self, seed: int | None = 0):
        self._random = random.Random(seed).random

    def from_mask(self, mask: np.ndarray) -> int:
        """A uniform legal action of a 0/1 mask; ``ValueError`` when none is legal."""
        legal = mask.nonzero()[0]
        n = legal.size
        if not n:
            raise ValueError("the action mask allows no action")
        return int(legal[int(self._random() * n)])

    def from_list(self, legal: Sequence[int]) -> int:
        """A uniform element of a non-empty list of legal actions."""
        return legal[int(self._random() * len(legal))]
