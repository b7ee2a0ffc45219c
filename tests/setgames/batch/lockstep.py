"""Checks the three games' batch lockstep tests share (each test replays its batch in ``raw_env``)."""

from __future__ import annotations

import numpy as np


def check_greedy_actions(b, twins, experts):
    """``b.greedy_actions()`` is the Python greedy bot's move in every live slot (``experts[i]``
    playing slot ``i``'s position in its twin ``raw_env``) and moves nothing; returns the moves."""
    before = b.obs.copy(), b.mask.copy(), b.seat.copy()
    got = b.greedy_actions()
    for old, now in zip(before, (b.obs, b.mask, b.seat), strict=True):
        np.testing.assert_array_equal(old, now)
    for i, t in enumerate(twins):
        e = t.env
        if t.over():
            assert got[i] == 0
            continue
        assert got[i] == experts[i].act(e.game, e.game_state, e._seat_of[e.agent_selection]), i
    return got


def rules_twins(game, b):
    """Each slot's game as a rules-layer state, dealt from the slot's game seed."""
    from setgames.game import rng_from_seed

    return [game.new_state(rng_from_seed(int(b.game_seed[i]))) for i in range(b.num_envs)]


def step_with_twins(game, b, states, rng, actions):
    """One step of ``b`` with uniform random legal moves drawn from ``rng`` (into ``actions``),
    played on the twin states too; a slot whose game ended gets the twin of its next deal."""
    from setgames.game import rng_from_seed

    b.sample(rng, actions)
    b.step(actions)
    for i in range(b.num_envs):
        game.apply(states[i], int(actions[i]))
        if b.terminated[i] or b.truncated[i]:
            states[i] = game.new_state(rng_from_seed(int(b.game_seed[i])))


def check_disabled_autoreset(b, env, steps, rng):
    """With autoreset disabled, a slot's game stays over until ``reset(mask=...)`` names it, and
    a step while any slot is over is refused (Gymnasium's vector envs' rule) with no slot moved;
    a reset slot deals its next game, ``env`` (the game's ``raw_env``) dealing the same one.
    Returns the number of resets made over ``steps`` steps."""
    import pytest

    resets = 0
    for _ in range(steps):
        over = b.seat == -1
        if over.any():
            games, obs = b.game_index.copy(), b.obs.copy()
            assert (b.terminated | b.truncated)[over].all() and not b.mask[over].any()
            with pytest.raises(ValueError, match="is over and autoreset is disabled"):
                b.step(b.sample(rng))
            np.testing.assert_array_equal(b.game_index, games)
            np.testing.assert_array_equal(b.obs, obs)
            b.reset(mask=over)
            assert (b.game_index[over] > games[over]).all() and (b.game_index[~over] == games[~over]).all()
            assert not (b.terminated | b.truncated)[over].any()
            slot = int(np.flatnonzero(over)[0])
            env.reset(seed=int(b.game_seed[slot]))
            np.testing.assert_array_equal(b.obs[slot], env.observe(env.agent_selection)["observation"])
            resets += 1
        b.step(b.sample(rng))
    return resets
