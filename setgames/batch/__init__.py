"""Batched engines: B games of one game held in C, stepped by one call, for trainers.

A game whose rules layer names a ``batch_module`` (a :class:`~setgames.game.Game`
ClassVar next to ``engine_module``) has a compiled batch class ``Batch`` there,
found by :func:`batch_class`; the core never names a game. The views over any
batch are :class:`setgames.batch.gym_vector.BatchVectorEnv` (Gymnasium 1.x
``VectorEnv``) and :class:`setgames.batch.sb3_vec.BatchVecEnv` (SB3 ``VecEnv``).

The protocol a game's ``Batch`` class provides (Tet Hsi's:
:class:`tethsi_env._batch.Batch`; its tests are the checklist):

- ``Batch(game, num_envs, seed=None, num_threads=1, opponents=None,
  learner_seat=0, autoreset="same_step")``; ``opponents`` one of
  :data:`OPPONENTS`, ``learner_seat`` a seat or one of
  :data:`LEARNER_SEAT_MODES`, ``autoreset`` one of :data:`AUTORESET_MODES`.
- Attributes ``num_envs``, ``num_players``, ``obs_size``, ``num_actions``,
  ``num_threads``, ``game``; preallocated read-only arrays written in place by
  every call: ``obs (B, obs_size) int8`` (the view of the seat to act, or of
  the learner with opponents; once over, the last mover's), ``mask (B,
  num_actions) int8`` (all zero once over), ``seat (B,) int32`` (seat to act,
  -1 once over), ``rewards (B, num_players) float32`` (what each seat earned
  on this step), ``learner_reward (B,) float32`` (the learner's column; in
  self-play the mover's), ``terminated``, ``truncated (B,) bool``,
  ``game_seed (B,) uint64`` (seed of each slot's current game),
  ``game_index (B,) int64``, ``learner_seat (B,) int32``; and, valid where a
  game ended on the last step, ``final_seed`` (its seed: ``raw_env().reset(
  seed=final_seed[i])`` replays it), ``final_learner_seat`` and, under
  ``"same_step"``, ``final_obs`` (its last observation).
- ``reset(seed=None, mask=None)``: deal in every slot (or the masked ones);
  ``seed`` makes slot ``i``'s game the game of seed ``seed + i``.
- ``step(actions)``: one action per slot (integer ndarray ``(B,)``), the
  opponents, game ends and autoresets, without the GIL; bad input raises
  ``ValueError`` naming the slot, the action and the legal ids, before any
  slot moves.
- ``sample(rng=None, out=None)``: a uniform legal action per slot, drawn in C
  from a numpy ``Generator`` (``legal[rng.integers(len(legal))]`` slot by
  slot) or, without one, from each slot's own stream (seeded from its slot
  seed, :data:`setgames.batch.seeds.TAG_SAMPLER`), split over the threads.
- ``legal_actions(slot)``: the legal ids of one slot.
- ``greedy_actions(out=None)``: the game's compiled greedy bot's move for the
  seat to act in every slot (an expert's labels for imitation; no slot moves).
- ``greedy_returns(out=None, slots=None, redeals=0)``: for every legal action of
  the seat to act, the return it gets when greedy then plays every seat to the
  end (``(B, num_actions)`` float32; no slot moves): one play-out on a copy of
  the true state, or (``redeals=k``, Tet Hsi and Bharg) the mean over ``k``
  compiled re-deals of the cards the seat has not seen (``game.determinize``'s
  C twins, each deal shared by every action): the root values of a one-step
  search, a one-step improvement on greedy.
- ``greedy_features(out=None)`` (Tet Hsi and Bharg): what the greedy bot weighs
  for each move of the seat to act (the game's ``greedy_features`` table,
  flattened; ``(B, k)`` float32), the ``features`` prior of ``setgames train``.

Seeds: see :mod:`setgames.batch.seeds` (slot ``i``'s ``k``-th game, the
opponents' stream and the random learner seat, all from one game seed).
Random numbers in C: ``setgames/batch/_rng.pxd`` (numpy-identical PCG64,
``shuffle``, ``integers``).
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["AUTORESET_MODES", "LEARNER_SEAT_MODES", "OPPONENTS", "batch_class", "make_batch"]

OPPONENTS = (None, "random", "greedy")
LEARNER_SEAT_MODES = ("rotate", "random")
AUTORESET_MODES = ("same_step", "next_step", "disabled")


def batch_class(game: Any) -> type | None:
    """The compiled batch class of ``game`` (its ``batch_module``'s ``Batch``), or None
    when the game has none or it was not built."""
    module = getattr(game, "batch_module", None)
    if module is None:
        return None
    try:
        mod = importlib.import_module(module)
    except ImportError:
        return None
    cls: Any = getattr(mod, "Batch", None)
    return cls


def make_batch(game: Any, num_envs: int, **kwargs: Any) -> Any:
    """A batch of ``num_envs`` games of ``game`` (keyword arguments: the protocol's).

    Raises:
        ValueError: ``game`` has no batched engine here (none, or not built).
    """
    cls = batch_class(game)
    if cls is None:
        raise ValueError(f"{game.name} has no batched engine here (none, or it was not built)")
    return cls(game, num_envs, **kwargs)
