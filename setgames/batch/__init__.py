"""Batched engines: B games of one game held in C, stepped by one call, for trainers.

A game whose rules layer names a ``batch_module`` (a :class:`~setgames.game.Game`
ClassVar next to ``engine_module``) has a compiled batch class ``Batch`` there,
found by :func:`batch_class`; the core never names a game. The views over any
batch are :class:`setgames.batch.gym_vector.BatchVectorEnv` (Gymnasium 1.x
``VectorEnv``) and :class:`setgames.batch.sb3_vec.BatchVecEnv` (SB3 ``VecEnv``).

The protocol a game's ``Batch`` class provides (each built-in game's ``<game>_env._batch.Batch``;
their tests are the checklist). Each game's
``Batch`` is ``cdef class Batch(GuardedCore)``: the game's module holds the C
state and the per-slot work, the base class :mod:`setgames.batch._guard` the
public methods, which check the options and arguments, admit one call at a
time (a second thread's call is refused in one line, never interleaved), and
keep the batch usable in a forked child (the rules: :mod:`setgames.batch.guard`).

- ``Batch(game, num_envs, seed=None, num_threads=1, opponents=None,
  learner_seat=0, autoreset="same_step", illegal_action="raise",
  illegal_reward=-1.0, short_deals="skip")``; ``opponents`` one of
  :data:`OPPONENTS` or ``"search:iters=N[,z=Z]"`` (the compiled search, in C),
  ``learner_seat`` a seat or one of :data:`LEARNER_SEAT_MODES`, ``autoreset`` any spelling of
  :mod:`setgames.batch.modes` (Gymnasium's ``AutoresetMode`` members, their
  values, or :data:`AUTORESET_MODES`; the default, ``"same_step"``, is the
  default of every view too), ``illegal_action`` ``"raise"`` or
  ``"terminate"`` (an illegal action ends that slot's game with
  ``illegal_reward`` for the mover, marked in ``illegal``), ``short_deals``
  ``"skip"`` or ``"play"`` (below).
- The observation mode is the game's (its ``obs`` option, :mod:`setgames.obs`): ``obs_size`` is
  ``game.obs_spec.size`` and every observation array is written in that mode.
- Attributes ``num_envs``, ``num_players``, ``obs_size``, ``num_actions``,
  ``num_threads`` (the threads the step uses), ``game``, ``state_bytes`` (the bytes of one
  slot's game state in C, what a step reads and writes beside the output rows); read-only arrays on
  memory the batch owns (no caller can resize, write or free it), written in
  place by every call: ``obs (B, obs_size) int8`` (the view of the seat to act, or of
  the learner with opponents; once over, the last mover's), ``mask (B,
  num_actions) int8`` (all zero once over), ``seat (B,) int32`` (seat to act,
  -1 once over), ``rewards (B, num_players) float32`` (what each seat earned
  on this step), ``learner_reward (B,) float32`` (the learner's column; in
  self-play the mover's), ``terminated``, ``truncated``, ``illegal (B,) bool``,
  ``skipped_deals (B,) int64`` (deals skipped in the slot so far),
  ``game_seed (B,) uint64`` (seed of each slot's current game),
  ``game_index (B,) int64``, ``learner_seat (B,) int32``; and, valid where a
  game ended on the last step, ``final_seed`` (its seed: ``raw_env().reset(
  seed=final_seed[i])`` replays it), ``final_learner_seat`` and, under
  ``"same_step"``, ``final_obs`` (its last observation).
- Rewards: every reward a seat earns reaches it. What the seats earn before
  the learner's first move of a game (a round the opponents end, in match play) is
  paid with the learner's first step of that game. A deal the other seats
  end before the learner acts (where a game allows it) is skipped and counted in
  ``skipped_deals`` (``short_deals="skip"``), or (``"play"``) shown to the
  learner as a one-step episode: its final observation, only action 0 legal,
  a no-op whose step ends it with the learner's rewards of the deal (so win
  rates measured on the batch count those games, mostly the learner's losses).
- ``reset(seed=None, mask=None)``: deal in every slot (or the masked ones);
  ``seed`` (``0..2**63-1``) makes slot ``i``'s game the game of seed ``seed + i``.
  Every other call before the first reset is refused.
- ``step(actions)``: one action per slot (an integer ndarray or a list of
  ints, ``(B,)``; floats refused), the opponents, game ends and autoresets,
  without the GIL; bad input raises ``ValueError`` naming the slot, the
  action and the legal ids, before any slot moves; under ``"disabled"``
  autoreset a step while a slot's game is over is refused (reset it first).
- ``state(slot)``: a rules-layer copy of the slot's position (pictures, analysis).
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
  the true state, or (``redeals=k``) the mean over ``k`` compiled re-deals of
  the cards the seat has not seen (``game.determinize``'s C twins, each deal
  shared by every action): the root values of a one-step search, a one-step
  improvement on greedy.
- ``action_features(out=None)`` (games with ``game.action_spec``, :meth:`setgames.game.Game.action_features`):
  the per-action feature rows of the seat to act in every slot (the learner with opponents),
  ``(B, num_actions, action_spec.size)`` int8, zero rows for illegal actions and finished slots,
  written into ``out`` when given (a C-contiguous int8 array of that shape); no slot moves. What
  Deep Monte-Carlo learners (``setgames train --algo dmc``) score.
- ``greedy_features(out=None)`` (games whose descriptor has ``greedy_features``): what the greedy bot weighs
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

from setgames.batch.modes import AUTORESET_MODES

__all__ = ["AUTORESET_MODES", "LEARNER_SEAT_MODES", "OPPONENTS", "batch_class", "make_batch"]

OPPONENTS = (None, "random", "greedy")
LEARNER_SEAT_MODES = ("rotate", "random")


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
