"""Where every game of a batch gets its seed: the Python twin of the C derivation.

A batch built with a master seed ``m`` plays in slot ``i`` the games
``game_seed(m, i, 0)``, ``game_seed(m, i, 1)``, ...; the first is ``m + i``
(so ``reset(seed=s)`` seeds slot ``i`` with ``s + i``, as Gymnasium's vector
envs do), the later ones are hashed from it. ``raw_env().reset(seed=g)`` deals
the game of seed ``g`` exactly as the batch dealt it. The streams a game uses
besides its deal (the opponents' draws, the learner's seat when it is random)
are seeded with :func:`tag_seed` of the game seed, so a game with opponents
inside the batch is fully determined by its seed and the learner's actions.
The compiled batch derives the same numbers (``setgames/batch/_rng.pxd``);
``tests/setgames/batch/test_rng.py`` compares the two.

>>> game_seed(7, 3, 0)
10
>>> game_seed(7, 3, 1) == game_seed(10, 0, 1)
True
"""

from __future__ import annotations

__all__ = ["MASK63", "TAG_LEARNER_SEAT", "TAG_OPPONENTS", "TAG_SAMPLER", "game_seed", "mix64", "slot_seed",
           "tag_seed"]

MASK63 = (1 << 63) - 1  # seeds stay below 2**63, what raw_env draws and accepts everywhere
_M64 = (1 << 64) - 1
TAG_OPPONENTS = 1  # the stream of the opponents' draws (random moves, greedy ties)
TAG_LEARNER_SEAT = 2  # the draw of the learner's seat when it is random per game
TAG_SAMPLER = 3  # a slot's stream of Batch.sample() without a generator (tagged on the slot seed)


def mix64(x: int) -> int:
    """SplitMix64's finalizer on a 64-bit int (a bijection that scatters nearby inputs)."""
    x = int(x) & _M64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _M64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _M64
    return x ^ (x >> 31)


def slot_seed(master: int, slot: int) -> int:
    """The seed of slot ``slot``'s first game: ``(master + slot) mod 2**63``."""
    return (int(master) + int(slot)) & MASK63


def game_seed(master: int, slot: int, index: int) -> int:
    """The seed of the ``index``-th game (0-based) played in slot ``slot`` of a batch seeded ``master``."""
    s, index = slot_seed(master, slot), int(index)
    return s if index == 0 else mix64(s ^ mix64(index)) & MASK63


def tag_seed(game_seed: int, tag: int) -> int:
    """The seed of a game's stream ``tag`` (:data:`TAG_OPPONENTS`, :data:`TAG_LEARNER_SEAT`)."""
    return mix64(int(game_seed) ^ mix64(int(tag) | (1 << 63))) & MASK63
