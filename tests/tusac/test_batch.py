"""Tu Sac's batched engine (``tusac_env._batch``): every game it plays is a game of ``raw_env``.

Each test steps a batch and, in lockstep, one ``raw_env`` per slot dealt from
the seed the batch reports, comparing observations, masks, seats and rewards
at every step, across auto-resets, for 2, 3 and 4 players and every config
option; with opponents inside the step the ``raw_env`` side plays the Python
bots (the reference) from the seeds of :mod:`setgames.batch.seeds`. A deal
the batch skips (the game over before the learner, in self-play anyone,
acts) is checked to be such a deal in ``raw_env``.
"""

from __future__ import annotations

import re
import tracemalloc

import numpy as np
import pytest

from setgames.batch import batch_class, make_batch, seeds
from setgames.bots.base import RandomBot
from tests.setgames.batch.lockstep import check_disabled_autoreset, check_greedy_actions
from tusac_env.env import raw_env
from tusac_env.greedy import GreedyTuSacBot
from tusac_env.rules import TuSacGame

_batch = pytest.importorskip("tusac_env._batch", reason="tusac_env._batch is not built")

CONFIGS = [
    {"num_players": 2, "penalty_rule": True, "first_player": 0, "reward_scale": 1.0},
    {"num_players": 3, "penalty_rule": False, "first_player": "random", "reward_scale": 0.5},
    {"num_players": 4, "penalty_rule": True, "first_player": 3, "reward_scale": 1.0},
    {"num_players": 4, "penalty_rule": False, "first_player": "random", "reward_scale": 0.01},
]


def _agent(seat):
    return f"player_{seat}"


class _Twin:
    """One slot's games replayed in ``raw_env`` (and, with opponents, the Python bots)."""

    def __init__(self, config, opponents, learner_of):
        self.env = raw_env(**config)
        self.n = config["num_players"]
        self.opponents = opponents
        self.learner_of = learner_of  # game index, game seed -> the learner's seat (opponents only)
        self.index = -1
        self.games = 0

    def _deal_one(self, seed, index):
        self.env.reset(seed=int(seed))
        self.index = index
        self.last = None
        self.learner = self.learner_of(index, int(seed)) if self.opponents else None
        if self.opponents:
            bot_seed = seeds.tag_seed(int(seed), seeds.TAG_OPPONENTS)
            self.bot = GreedyTuSacBot() if self.opponents == "greedy" else RandomBot(bot_seed)
            self._opponents()

    def deal(self, b, i, master):
        """Follow slot ``i`` to its current game; the games it skipped must end before the learner acts."""
        k = int(b.game_index[i])
        for skipped in range(self.index + 1, k):
            self._deal_one(seeds.game_seed(master, i, skipped), skipped)
            assert self.over(), f"slot {i} skipped game {skipped}, which the learner could play"
        assert b.game_seed[i] == seeds.game_seed(master, i, k)
        self._deal_one(b.game_seed[i], k)
        assert not self.over()
        self.games += 1

    def _opponents(self):
        env = self.env
        while not self.over() and env._seat_of[env.agent_selection] != self.learner:
            seat = env._seat_of[env.agent_selection]
            self.last = seat
            env.step(self.bot.act(env.game, env.game_state, seat))

    def over(self):
        e = self.env
        return e.terminations[e.agent_selection] or e.truncations[e.agent_selection]

    def check_row(self, b, i):
        """The batch's row ``i`` is this game's current position."""
        e = self.env
        if self.over():
            assert b.seat[i] == -1 and not b.mask[i].any()
            return
        seat = e._seat_of[e.agent_selection]
        assert b.seat[i] == seat
        shown = seat if self.learner is None else self.learner
        assert self.learner is None or seat == self.learner
        np.testing.assert_array_equal(b.obs[i], e.observe(_agent(shown))["observation"])
        np.testing.assert_array_equal(b.mask[i], e.observe(_agent(seat))["action_mask"])

    def play(self, action):
        """The learner's (or the seat to act's) move, then the opponents; per-seat rewards of it all."""
        e = self.env
        agents = [_agent(s) for s in range(self.n)]
        self.last = e._seat_of[e.agent_selection]
        e.step(int(action))
        total = np.array([e.rewards[a] for a in agents], np.float32)
        if self.opponents and not self.over():
            before = dict(e._cumulative_rewards)
            self._opponents()
            if self.over():
                total += [e._cumulative_rewards[a] - before.get(a, 0.0) for a in agents]
        return total


def _lockstep(config, opponents=None, learner_seat=0, num_envs=24, steps=600, master=2026,
              autoreset="same_step", num_threads=1, experts=None):
    game = TuSacGame(**config)
    n = game.num_players
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
        t.deal(b, i, master)
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
                assert autoreset == "next_step" and not b.terminated[i]
                t.deal(b, i, master)
                t.check_row(b, i)
                continue
            want = t.play(actions[i])
            np.testing.assert_array_equal(b.rewards[i], want)
            assert b.learner_reward[i] == want[t.learner if opponents else t.last]
            assert b.terminated[i] == t.over() and not b.truncated[i]
            if not t.over():
                t.check_row(b, i)
                continue
            ended += 1
            assert b.final_seed[i] == t.env.seed_used
            assert b.final_learner_seat[i] == (-1 if t.learner is None else t.learner)
            if autoreset == "same_step":
                last = t.learner if t.learner is not None else t.last
                np.testing.assert_array_equal(b.final_obs[i], t.env.observe(_agent(last))["observation"])
                t.deal(b, i, master)
            t.check_row(b, i)
    return ended


@pytest.mark.parametrize("obs", ["cards", "structure"])
@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c['num_players']}p-{c['first_player']}")
def test_self_play_batches_replay_in_raw_env_step_by_step(config, obs):
    # 24 slots x 600 steps: some 200 random games per config, across auto-resets.
    assert _lockstep({**config, "obs": obs}) > 100


@pytest.mark.parametrize("obs", ["cards", "structure"])
@pytest.mark.parametrize("opponents,learner_seat,config", [
    ("greedy", 0, CONFIGS[0]), ("greedy", "rotate", CONFIGS[1]), ("random", 1, CONFIGS[2]),
    ("random", "random", CONFIGS[3]), ("greedy", "random", CONFIGS[2])])
def test_learner_vs_opponents_replays_with_the_python_bots(opponents, learner_seat, config, obs):
    assert _lockstep({**config, "obs": obs}, opponents, learner_seat, num_envs=16, steps=300) > 30


def test_next_step_autoreset_deals_on_the_step_after_the_end():
    assert _lockstep(CONFIGS[1], num_envs=12, steps=500, autoreset="next_step") > 50


def test_two_threads_play_the_games_of_raw_env():
    assert _batch.MIN_SLOTS_PER_THREAD * 2 <= 520
    assert _lockstep(CONFIGS[3], "random", "rotate", num_envs=520, steps=40, num_threads=2) > 100


def test_threads_change_nothing_in_the_arrays():
    game = TuSacGame(num_players=3, first_player="random")
    one, two = (make_batch(game, 1024, seed=9, num_threads=t, opponents="greedy", learner_seat="random")
                for t in (1, 2))
    one.reset()
    two.reset()
    r1, r2 = np.random.default_rng(4), np.random.default_rng(4)
    for _ in range(150):
        one.step(one.sample(r1))
        two.step(two.sample(r2))
        for name in ("obs", "mask", "seat", "rewards", "terminated", "game_seed", "final_seed",
                     "final_obs", "learner_seat"):
            np.testing.assert_array_equal(getattr(one, name), getattr(two, name))


def test_disabled_autoreset_keeps_ended_slots_over_until_reset():
    b = make_batch(TuSacGame(num_players=2), 8, seed=1, autoreset="disabled")
    b.reset()
    assert check_disabled_autoreset(b, raw_env(num_players=2), 400, np.random.default_rng(0)) > 3


def _snapshot(b):
    return [a.copy() for a in (b.obs, b.mask, b.seat, b.rewards, b.terminated, b.game_seed)] + [
        [b.legal_actions(i) for i in range(b.num_envs)]]


def test_bad_actions_raise_naming_the_slot_before_any_slot_moves():
    game = TuSacGame(num_players=3)
    b = make_batch(game, 6, seed=3)
    b.reset()
    twin = make_batch(game, 6, seed=3)
    twin.reset()
    good = b.sample(np.random.default_rng(1))
    before = _snapshot(b)
    illegal = good.copy()
    illegal[4] = next(a for a in range(b.num_actions) if a not in b.legal_actions(4))
    cases = [
        (illegal, rf"slot 4: action {illegal[4]} \(.*\) is not legal; "
                  rf"legal: {re.escape(str(b.legal_actions(4)))}"),
        (np.where(np.arange(6) == 2, 46, good), "slot 2: action 46 is out of range 0..45"),
        (np.where(np.arange(6) == 0, -1, good), "slot 0: action -1 is out of range"),
        (good[:5], r"shape \(6,\)"),
        (good.astype(np.float64), "must be integers"),
        (good.astype(bool), "must be integers"),
        ([float(a) for a in good], "must be integers"),
    ]
    for actions, match in cases:
        with pytest.raises(ValueError, match=match):
            b.step(actions)
        after = _snapshot(b)
        for x, y in zip(before, after, strict=True):
            assert np.array_equal(x, y) if isinstance(x, np.ndarray) else x == y
    b.step(good.astype(np.int32))  # a narrower integer dtype is taken as is
    twin.step(good)
    for x, y in zip(_snapshot(b), _snapshot(twin), strict=True):
        assert np.array_equal(x, y) if isinstance(x, np.ndarray) else x == y


def test_sample_draws_legal_actions_as_numpy_would():
    b = make_batch(TuSacGame(num_players=4), 64, seed=8)
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
    with pytest.raises(ValueError, match="out must be"):
        b.sample(np.random.default_rng(0), np.empty(64, np.int32))


def test_bad_options_raise():
    game = TuSacGame(num_players=3)
    for kwargs, match in [({"num_envs": 0}, "num_envs"), ({"opponents": "smart"}, "opponents"),
                          ({"learner_seat": 3}, "learner_seat"), ({"autoreset": "never"}, "autoreset"),
                          ({"num_threads": 0}, "num_threads"), ({"seed": -1}, "seed")]:
        with pytest.raises(ValueError, match=match):
            make_batch(game, **{"num_envs": 4, **kwargs})
    b = make_batch(game, 4)
    with pytest.raises(ValueError, match="before reset"):
        b.step(np.zeros(4, np.int64))


def test_the_game_names_its_batch_and_unseeded_batches_differ():
    assert batch_class(TuSacGame()) is _batch.Batch
    a, b = make_batch(TuSacGame(), 4), make_batch(TuSacGame(), 4)
    a.reset()
    b.reset()
    assert a.game_seed.tolist() != b.game_seed.tolist()
    assert not a.obs.flags.writeable


def test_no_allocation_per_step():
    b = make_batch(TuSacGame(num_players=4), 256, seed=4, opponents="greedy", learner_seat="rotate")
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


@pytest.mark.parametrize("num_envs,num_threads", [(40, 1), (600, 2)])
def test_sample_without_a_generator_draws_each_slot_from_its_own_stream(num_envs, num_threads):
    b = make_batch(TuSacGame(num_players=2), num_envs, seed=77, num_threads=num_threads)
    b.reset()
    streams = [np.random.default_rng(seeds.tag_seed(seeds.slot_seed(77, i), seeds.TAG_SAMPLER))
               for i in range(num_envs)]
    out = np.zeros(num_envs, np.int64)
    for _ in range(60):
        want = []
        for i in range(num_envs):
            legal = b.legal_actions(i)
            want.append(legal[int(streams[i].integers(len(legal)))])
        assert b.sample(out=out) is out and out.tolist() == want
        b.step(out)


def test_deals_that_end_before_the_learner_acts_are_skipped():
    # Learner last of four: the three opponents before it sometimes win on a claim first
    # (about 6 deals in 1000 here); those games are skipped for the slot's next index.
    config = {"num_players": 4, "penalty_rule": True, "first_player": 0, "reward_scale": 1.0}
    b = make_batch(TuSacGame(**config), 1000, seed=5, opponents="greedy", learner_seat=3)
    b.reset()
    skipped = np.flatnonzero(b.game_index > 0)
    assert len(skipped) >= 2
    for i in skipped:
        twin = _Twin(config, "greedy", lambda index, seed: 3)
        twin.deal(b, int(i), 5)  # replays the skipped games: each over before seat 3 acts
        twin.check_row(b, int(i))


def test_greedy_actions_are_the_python_greedy_bots_moves():
    # The bot is deterministic.
    experts = [GreedyTuSacBot() for i in range(16)]
    assert _lockstep({"num_players": 4}, num_envs=16, steps=300, experts=experts) > 0


def test_greedy_returns_over_redeals_are_the_mean_of_single_redeals_drawn_in_turn():
    """``greedy_returns(redeals=k)``: ``k`` re-deals drawn in turn from each slot's sampler
    stream, every legal action played out on each; so the mean of ``k`` calls with
    ``redeals=1`` on a batch of the same seed (and within their range), the same values from
    another batch of that seed, 0 at the illegal actions, and no slot moved. (The values
    themselves are the rules layer's: ``tests/setgames/batch/test_greedy_returns.py``.)"""
    game = TuSacGame(num_players=3)
    n, k = 48, 4
    many, single, twin = (make_batch(game, n, seed=31) for _ in range(3))
    for b in (many, single, twin):
        b.reset()
    rng = np.random.default_rng(2)
    actions = np.zeros(n, np.int64)
    for _ in range(8):
        before = _snapshot(many)
        got = many.greedy_returns(redeals=k)
        for old, now in zip(before, _snapshot(many), strict=True):
            assert np.array_equal(old, now) if isinstance(old, np.ndarray) else old == now
        np.testing.assert_array_equal(twin.greedy_returns(redeals=k), got)
        singles = np.stack([single.greedy_returns(redeals=1) for _ in range(k)])
        np.testing.assert_allclose(got, singles.mean(axis=0), rtol=1e-5, atol=1e-5)
        assert (singles.min(axis=0) - 1e-5 <= got).all() and (got <= singles.max(axis=0) + 1e-5).all()
        assert not got[many.mask == 0].any()
        many.sample(rng, actions)
        for b in (many, single, twin):
            b.step(actions)
    # Each call goes on down the slots' streams: two calls of k re-deals are one call of 2k.
    first, second = many.greedy_returns(redeals=k), many.greedy_returns(redeals=k)
    assert (first != second).any()
    np.testing.assert_allclose(twin.greedy_returns(redeals=2 * k), (first + second) / 2, rtol=1e-5, atol=1e-5)


def test_greedy_returns_over_redeals_agree_with_the_true_deals_on_average_at_the_first_move():
    """At a game's first move the cards the first player cannot see lie at random given its
    hand and the public Quans and Khap counts, nearly as a re-deal puts them, so over many
    games the re-dealt values, which did not see those cards, and the play-outs of the true
    deals, which did, agree on average (within four standard errors of the slots' mean
    difference), while slot by slot they differ. (Nearly: determinize deals the other blocks
    a few more pairs than a uniform deal would, which costs the seat some 0.8 points here over
    5,000 games, against a standard error of about 1.1 over these 256.)"""
    b = make_batch(TuSacGame(num_players=2), 256, seed=3)
    b.reset()
    legal = b.mask == 1
    true = b.greedy_returns()
    redealt = b.greedy_returns(redeals=8)
    diff = ((redealt - true) * legal).sum(axis=1) / legal.sum(axis=1)
    assert abs(diff.mean()) < 4 * diff.std(ddof=1) / np.sqrt(len(diff))
    assert (redealt != true)[legal].mean() > 0.5
