"""Bharg's batched engine (``bharg_env._batch``): every game it plays is a game of ``raw_env``.

Each test steps a batch and, in lockstep, one ``raw_env`` per slot dealt from
the seed the batch reports, comparing observations, masks, seats, rewards,
terminations and truncations at every step, across auto-resets, for every
config kind (2 and 3 players, the deck options, match play, both reward
modes, short turn limits); with opponents inside the step the ``raw_env``
side plays the Python bots (the reference) from the seeds of
:mod:`setgames.batch.seeds`.
"""

from __future__ import annotations

import re
import tracemalloc

import numpy as np
import pytest

from bharg_env.env import raw_env
from bharg_env.greedy import GreedyBhargBot
from bharg_env.rules import BhargGame
from setgames.batch import batch_class, make_batch, seeds
from setgames.bots.base import RandomBot
from tests.setgames.batch.lockstep import check_disabled_autoreset, check_greedy_actions

_batch = pytest.importorskip("bharg_env._batch", reason="bharg_env._batch is not built")

CONFIGS = [
    {},
    {"num_players": 3},
    {"excuse": True, "pawns": True, "courts": True},
    {"num_players": 3, "excuse": True, "pawns": True, "courts": True, "max_turns": 30},
    {"target_score": 60},
    {"num_players": 3, "target_score": 40, "reward": "win", "pawns": True},
    {"target_score": 50, "reward": "win", "max_turns": 40},
    {"reward": "win", "max_turns": 18},
]


def _agent(seat):
    return f"player_{seat}"


class _Twin:
    """One slot's games replayed in ``raw_env`` (and, with opponents, the Python bots)."""

    def __init__(self, config, opponents, learner_of):
        self.env = raw_env(**config)
        self.n = self.env.game.num_players
        self.opponents = opponents
        self.learner_of = learner_of  # game index, game seed -> the learner's seat (opponents only)
        self.skipped = 0

    def deal(self, master, slot, index):
        """Deal the slot's game ``index``, or (with opponents) the first one from there that the
        seats before the learner do not end (counted in ``skipped``); returns its index. The
        opening's rewards wait in ``pending`` for the learner's first step."""
        self.pending = np.zeros(self.n, np.float32)
        while True:
            seed = seeds.game_seed(master, slot, index)
            self.env.reset(seed=seed)
            self.index, self.seed = index, seed
            self.learner = self.learner_of(index, seed) if self.opponents else None
            if not self.opponents:
                return index
            bot_seed = seeds.tag_seed(seed, seeds.TAG_OPPONENTS)
            self.bot = (GreedyBhargBot if self.opponents == "greedy" else RandomBot)(bot_seed)
            self.pending = np.zeros(self.n, np.float32)
            self._opponents(self.pending)
            if not self.over():
                return index
            self.skipped += 1
            index += 1

    def _opponents(self, total):
        env = self.env
        while not self.over() and env._seat_of[env.agent_selection] != self.learner:
            seat = env._seat_of[env.agent_selection]
            env.step(self.bot.act(env.game, env.game_state, seat))
            total += [env.rewards[_agent(p)] for p in range(self.n)]

    def over(self):
        e = self.env
        return e.terminations[e.agent_selection] or e.truncations[e.agent_selection]

    def check_row(self, b, i, rows=None):
        """The batch's row ``i`` is this game's current position (and, given ``rows``, the
        batch's ``action_features()``, its per-action rows are the rules layer's)."""
        e = self.env
        if self.over():
            assert b.seat[i] == -1 and not b.mask[i].any()
            assert rows is None or not rows[i].any()
            return
        seat = e._seat_of[e.agent_selection]
        assert b.seat[i] == seat
        shown = seat if self.learner is None else self.learner
        assert self.learner is None or seat == self.learner
        np.testing.assert_array_equal(b.obs[i], e.observe(_agent(shown))["observation"])
        np.testing.assert_array_equal(b.mask[i], e.observe(_agent(seat))["action_mask"])
        if rows is not None:
            np.testing.assert_array_equal(rows[i], e.game.action_features(e.game_state, seat))

    def play(self, action):
        """The learner's (or the seat to act's) move, then the opponents; per-seat rewards of it all."""
        e = self.env
        total, self.pending = self.pending, np.zeros(self.n, np.float32)
        e.step(int(action))
        total += [e.rewards[_agent(p)] for p in range(self.n)]
        if self.opponents:
            self._opponents(total)
        return total


def _lockstep(config, opponents=None, learner_seat=0, num_envs=24, steps=400, master=2026,
              autoreset="same_step", num_threads=1, experts=None):
    game = BhargGame(**config)
    n = game.num_players
    features = game.config.obs == "structure"  # those runs check the per-action rows too
    b = make_batch(game, num_envs, seed=master, opponents=opponents, learner_seat=learner_seat,
                   autoreset=autoreset, num_threads=num_threads)

    def learner_of(index, seed):
        if learner_seat == "rotate":
            return index % n
        if learner_seat == "random":
            return seeds.tag_seed(seed, seeds.TAG_LEARNER_SEAT) % n
        return learner_seat

    twins = [_Twin(config, opponents, learner_of) for _ in range(num_envs)]
    b.reset()
    for i, t in enumerate(twins):
        k = t.deal(master, i, 0)
        assert b.game_index[i] == k and b.game_seed[i] == t.seed
        t.check_row(b, i)
    rng = np.random.default_rng(master)
    actions = np.zeros(num_envs, np.int64)
    ended = 0
    for _ in range(steps):
        b.sample(rng, actions)
        if experts is not None:
            greedy = check_greedy_actions(b, twins, experts)
            actions = np.where(rng.random(num_envs) < 0.5, greedy, actions)
        pending = [t.over() for t in twins]
        b.step(actions)
        for i, t in enumerate(twins):
            if pending[i]:  # next_step: this step dealt the slot's next game
                assert autoreset == "next_step" and not b.terminated[i] and not b.truncated[i]
                k = t.deal(master, i, t.index + 1)
                assert b.game_index[i] == k and b.game_seed[i] == t.seed
                t.check_row(b, i)
                continue
            want = t.play(actions[i])
            np.testing.assert_array_equal(b.rewards[i], want)
            mover = t.learner if opponents else None
            if mover is not None:
                assert b.learner_reward[i] == want[mover]
            e = t.env
            assert b.terminated[i] == e.terminations[e.agent_selection]
            assert b.truncated[i] == e.truncations[e.agent_selection]
            if not t.over():
                t.check_row(b, i, b.action_features() if features else None)
                continue
            ended += 1
            assert b.final_seed[i] == e.seed_used == t.seed
            assert b.final_learner_seat[i] == (-1 if t.learner is None else t.learner)
            if autoreset == "same_step":
                last = t.learner if t.learner is not None else e.game_state.seat
                np.testing.assert_array_equal(b.final_obs[i], e.observe(_agent(last))["observation"])
                k = t.deal(master, i, t.index + 1)
                assert b.game_index[i] == k and b.game_seed[i] == t.seed
                t.check_row(b, i)
            else:
                t.check_row(b, i)
        assert [t.skipped for t in twins] == b.skipped_deals.tolist()
    return ended


@pytest.mark.parametrize("obs", ["cards", "structure"])
@pytest.mark.parametrize("config", CONFIGS)
def test_self_play_batches_replay_in_raw_env_step_by_step(config, obs):
    if obs == "structure":  # fewer steps (the lockstep compares every row; few matches end in them)
        _lockstep({**config, "obs": obs}, num_envs=8, steps=150)
        return
    assert _lockstep(config) > 8  # match play: few matches end in 400 steps, many rounds do


def test_self_play_mover_rewards():
    # Self-play: learner_reward is the mover's column (a random 3-player match in score mode).
    game = BhargGame(num_players=3, target_score=30)
    b = make_batch(game, 64, seed=1)
    b.reset()
    rng = np.random.default_rng(0)
    seen = 0
    for _ in range(400):
        seat = b.seat.copy()
        b.step(b.sample(rng))
        nz = b.rewards.any(axis=1)
        seen += int(nz.sum())
        assert (b.learner_reward == b.rewards[np.arange(64), seat]).all()
    assert seen > 50


@pytest.mark.parametrize("opponents,learner_seat,config", [
    ("greedy", 0, {}), ("greedy", "rotate", {"num_players": 3, "target_score": 40}),
    ("random", "random", {"num_players": 3}), ("random", 1, {"target_score": 50, "reward": "win"}),
    ("greedy", "random", {"excuse": True, "pawns": True, "courts": True, "max_turns": 40})])
def test_learner_vs_opponents_replays_with_the_python_bots(opponents, learner_seat, config):
    assert _lockstep(config, opponents, learner_seat, num_envs=16, steps=300) > 10
    _lockstep({**config, "obs": "structure"}, opponents, learner_seat, num_envs=6, steps=150)


def test_next_step_autoreset_deals_on_the_step_after_the_end():
    assert _lockstep({"max_turns": 30}, num_envs=16, steps=300, autoreset="next_step") > 20


def test_two_threads_play_the_games_of_raw_env():
    assert _batch.MIN_SLOTS_PER_THREAD * 2 <= 520
    assert _lockstep({"num_players": 3, "max_turns": 20}, "random", "rotate", num_envs=520, steps=40,
                     num_threads=2) > 300


def test_threads_change_nothing_in_the_arrays():
    game = BhargGame(num_players=3, target_score=40)
    one, two = (make_batch(game, 1024, seed=9, num_threads=t, opponents="greedy", learner_seat="random")
                for t in (1, 2))
    one.reset()
    two.reset()
    r1, r2 = np.random.default_rng(4), np.random.default_rng(4)
    for _ in range(150):
        one.step(one.sample(r1))
        two.step(two.sample(r2))
        for name in ("obs", "mask", "seat", "rewards", "terminated", "truncated", "game_seed", "final_seed",
                     "final_obs", "learner_seat"):
            np.testing.assert_array_equal(getattr(one, name), getattr(two, name))


def test_disabled_autoreset_keeps_ended_slots_over_until_reset():
    b = make_batch(BhargGame(max_turns=20), 8, seed=1, autoreset="disabled")
    b.reset()
    assert check_disabled_autoreset(b, raw_env(max_turns=20), 200, np.random.default_rng(0)) > 3


def _snapshot(b):
    return [a.copy() for a in (b.obs, b.mask, b.seat, b.rewards, b.terminated, b.game_seed)] + [
        [b.legal_actions(i) for i in range(b.num_envs)]]


def test_bad_actions_raise_naming_the_slot_before_any_slot_moves():
    b = make_batch(BhargGame(), 6, seed=3)
    b.reset()
    twin = make_batch(BhargGame(), 6, seed=3)
    twin.reset()
    rng = np.random.default_rng(1)
    good = b.sample(rng)
    before = _snapshot(b)
    illegal = good.copy()
    illegal[4] = next(a for a in range(b.num_actions) if a not in b.legal_actions(4))
    cases = [
        (illegal, rf"slot 4: action {illegal[4]} \(.*\) is not legal; "
                  rf"legal: {re.escape(str(b.legal_actions(4)))}"),
        (np.where(np.arange(6) == 2, 47, good), "slot 2: action 47 is out of range 0..46"),
        (np.where(np.arange(6) == 0, -1, good), "slot 0: action -1 is out of range"),
        (good[:5], r"shape \(6,\)"),
        (good.astype(np.float64), "must be integers"),
        ([float(a) for a in good], "must be integers"),
    ]
    for actions, match in cases:
        with pytest.raises(ValueError, match=match):
            b.step(actions)
        after = _snapshot(b)
        for x, y in zip(before, after, strict=True):
            assert np.array_equal(x, y) if isinstance(x, np.ndarray) else x == y
    b.step(good.astype(np.int32))
    twin.step(good)
    for x, y in zip(_snapshot(b), _snapshot(twin), strict=True):
        assert np.array_equal(x, y) if isinstance(x, np.ndarray) else x == y


def test_sample_draws_legal_actions_as_numpy_would():
    b = make_batch(BhargGame(num_players=3), 64, seed=8)
    b.reset()
    for _ in range(30):
        rng, twin = np.random.default_rng(5), np.random.default_rng(5)
        got = b.sample(rng)
        want = []
        for i in range(64):
            legal = b.legal_actions(i)
            want.append(legal[int(twin.integers(len(legal)))])
        assert got.tolist() == want
        b.step(got)


def test_bad_options_raise_and_the_game_names_its_batch():
    game = BhargGame()
    for kwargs, match in [({"num_envs": 0}, "num_envs"), ({"opponents": "smart"}, "opponents"),
                          ({"learner_seat": 2}, "learner_seat"), ({"autoreset": "never"}, "autoreset")]:
        with pytest.raises(ValueError, match=match):
            make_batch(game, **{"num_envs": 4, **kwargs})
    make_batch(BhargGame(num_players=3), 4, opponents="random", learner_seat=2)  # seat 2 of 3 is fine
    assert batch_class(game) is _batch.Batch


def test_no_allocation_per_step():
    b = make_batch(BhargGame(num_players=3, target_score=40), 256, seed=4, opponents="greedy",
                   learner_seat="rotate")
    b.reset()
    rng = np.random.default_rng(0)
    out = np.empty(256, np.int64)
    for _ in range(200):
        b.step(b.sample(rng, out))
    tracemalloc.start()
    try:
        start, _ = tracemalloc.get_traced_memory()
        for _ in range(2000):
            b.step(b.sample(rng, out))
        now, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert now - start < 4096 and peak - start < 64 * 1024


def test_sample_without_a_generator_draws_each_slot_from_its_own_stream():
    b = make_batch(BhargGame(), 40, seed=77)
    b.reset()
    streams = [np.random.default_rng(seeds.tag_seed(seeds.slot_seed(77, i), seeds.TAG_SAMPLER))
               for i in range(40)]
    out = np.zeros(40, np.int64)
    for _ in range(60):
        want = []
        for i in range(40):
            legal = b.legal_actions(i)
            want.append(legal[int(streams[i].integers(len(legal)))])
        assert b.sample(out=out) is out and out.tolist() == want
        b.step(out)


def test_gymnasium_and_sb3_views_build_on_the_bharg_batch():
    gym = pytest.importorskip("gymnasium")
    from setgames.batch.gym_vector import BatchVectorEnv

    envs = gym.make_vec("setgames/bharg-v0", num_envs=5, vectorization_mode="vector_entry_point",
                        opponents="greedy", num_players=3, target_score=40)
    assert isinstance(envs, BatchVectorEnv) and envs.single_action_space == gym.spaces.Discrete(47)
    obs, _ = envs.reset(seed=30)
    assert obs.shape == (5, 249) and envs.action_masks().shape == (5, 47)
    for i in range(5):  # seat 0 (the learner) opens round 1: its first view is raw_env's
        env = raw_env(num_players=3, target_score=40)
        env.reset(seed=30 + i)
        np.testing.assert_array_equal(obs[i], env.observe("player_0")["observation"])
    rng = np.random.default_rng(0)
    for _ in range(200):
        envs.step(np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in envs.action_masks()]))
    pytest.importorskip("stable_baselines3")
    from setgames.batch.sb3_vec import BatchVecEnv

    venv = BatchVecEnv("bharg", num_envs=4, opponents="random", max_turns=20)
    assert venv.reset().shape == (4, 249)
    assert np.array(venv.env_method("action_masks")).shape == (4, 47)


def test_greedy_actions_are_the_python_greedy_bots_moves():
    # The bot is deterministic.
    experts = [GreedyBhargBot(0) for i in range(16)]
    assert _lockstep({"num_players": 3}, num_envs=16, steps=300, experts=experts) > 0
