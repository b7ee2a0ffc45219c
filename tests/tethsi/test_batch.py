"""Tet Hsi's batched engine (``tethsi_env._batch``): every game it plays is a game of ``raw_env``.

Each test steps a batch and, in lockstep, one ``raw_env`` per slot dealt from
the seed the batch reports, comparing observations, masks, seats and rewards
at every step, across auto-resets; with opponents inside the step the
``raw_env`` side plays the Python bots (the reference) from the seeds of
:mod:`setgames.batch.seeds`.
"""

from __future__ import annotations

import re
import tracemalloc

import numpy as np
import pytest

from setgames.batch import batch_class, make_batch, seeds
from setgames.bots.base import RandomBot
from tests.setgames.batch.lockstep import check_disabled_autoreset, check_greedy_actions
from tethsi_env.env import raw_env
from tethsi_env.rules import TetHsiGame

_batch = pytest.importorskip("tethsi_env._batch", reason="tethsi_env._batch is not built")

try:  # the bot's home after the per-game move, else its old one
    from tethsi_env.greedy import GreedyTetHsiBot
except ImportError:
    from setgames.bots.greedy_tethsi import GreedyTetHsiBot


def _agent(seat):
    return f"player_{seat}"


class _Twin:
    """One slot's games replayed in ``raw_env`` (and, with opponents, the Python bots)."""

    def __init__(self, first_player, opponents, learner_of, obs="cards"):
        self.env = raw_env(first_player=first_player, obs=obs)
        self.opponents = opponents
        self.learner_of = learner_of  # game index, game seed -> the learner's seat (opponents only)
        self.games = 0

    def deal(self, seed, index):
        self.env.reset(seed=int(seed))
        self.index = index
        self.learner = self.learner_of(index, int(seed)) if self.opponents else None
        if self.opponents:
            bot_seed = seeds.tag_seed(int(seed), seeds.TAG_OPPONENTS)
            self.bot = (GreedyTetHsiBot if self.opponents == "greedy" else RandomBot)(bot_seed)
            self._opponents()
        self.games += 1

    def _opponents(self):
        env = self.env
        while env.agents and not env.terminations[env.agent_selection] \
                and env._seat_of[env.agent_selection] != self.learner:
            seat = env._seat_of[env.agent_selection]
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
        total = np.zeros(2, np.float32)
        e.step(int(action))
        total += [e.rewards["player_0"], e.rewards["player_1"]]
        if self.opponents and not self.over():
            before = dict(e._cumulative_rewards)
            self._opponents()
            if self.over():
                total += [e._cumulative_rewards[a] - before.get(a, 0.0)
                          for a in ("player_0", "player_1")]
        return total


def _lockstep(first_player, opponents=None, learner_seat=0, num_envs=48, steps=900, master=2026,
              autoreset="same_step", num_threads=1, experts=None, obs="cards"):
    game = TetHsiGame(first_player=first_player, obs=obs)
    b = make_batch(game, num_envs, seed=master, opponents=opponents, learner_seat=learner_seat,
                   autoreset=autoreset, num_threads=num_threads)

    def learner_of(index, seed):
        if learner_seat == "rotate":
            return index % 2
        if learner_seat == "random":
            return seeds.tag_seed(seed, seeds.TAG_LEARNER_SEAT) % 2
        return learner_seat

    twins = [_Twin(first_player, opponents, learner_of, obs) for _ in range(num_envs)]
    assert b.obs.shape == (num_envs, game.obs_spec.size)
    b.reset()
    for i, t in enumerate(twins):
        assert b.game_seed[i] == master + i and b.game_index[i] == 0
        t.deal(b.game_seed[i], 0)
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
                k = t.index + 1
                assert b.game_index[i] == k and b.game_seed[i] == seeds.game_seed(master, i, k)
                t.deal(b.game_seed[i], k)
                t.check_row(b, i)
                continue
            want = t.play(actions[i])
            np.testing.assert_array_equal(b.rewards[i], want)
            if opponents:
                assert b.learner_reward[i] == want[t.learner]
            assert b.terminated[i] == t.over() and not b.truncated[i]
            if not t.over():
                t.check_row(b, i)
                continue
            ended += 1
            assert b.final_seed[i] == t.env.seed_used
            assert b.final_learner_seat[i] == (-1 if t.learner is None else t.learner)
            if autoreset == "same_step":
                last = t.learner if t.learner is not None else t.env.game_state.seat
                np.testing.assert_array_equal(b.final_obs[i], t.env.observe(_agent(last))["observation"])
                k = t.index + 1
                assert b.game_index[i] == k and b.game_seed[i] == seeds.game_seed(master, i, k)
                t.deal(b.game_seed[i], k)
                t.check_row(b, i)
            else:
                t.check_row(b, i)
    return ended


@pytest.mark.parametrize("obs", ["cards", "structure"])
@pytest.mark.parametrize("first_player", [0, 1, "random"])
def test_self_play_batches_replay_in_raw_env_step_by_step(first_player, obs):
    # 48 slots x 900 steps: some 900 games per config, across auto-resets.
    assert _lockstep(first_player, obs=obs) > 800


@pytest.mark.parametrize("obs", ["cards", "structure"])
@pytest.mark.parametrize("opponents,learner_seat", [("greedy", 0), ("greedy", "rotate"),
                                                    ("random", 1), ("random", "random"),
                                                    ("greedy", "random")])
def test_learner_vs_opponents_replays_with_the_python_bots(opponents, learner_seat, obs):
    assert _lockstep("random", opponents, learner_seat, num_envs=32, steps=500, obs=obs) > 300


def test_next_step_autoreset_deals_on_the_step_after_the_end():
    assert _lockstep(0, num_envs=16, steps=600, autoreset="next_step") > 100


def test_two_threads_play_the_games_of_raw_env():
    # 2 threads get 256+ slots each (smaller batches run on one thread).
    assert _batch.MIN_SLOTS_PER_THREAD * 2 <= 520
    assert _lockstep("random", "random", "rotate", num_envs=520, steps=60, num_threads=2) > 500


@pytest.mark.parametrize("num_envs,num_threads", [(1024, 2), (1100, 3)])
def test_threads_change_nothing_in_the_arrays(num_envs, num_threads):
    # (1100, 3): three ranges of unequal chunk counts and a short last chunk.
    one, two = (make_batch(TetHsiGame(first_player="random"), num_envs, seed=9, num_threads=t,
                           opponents="greedy", learner_seat="random") for t in (1, num_threads))
    one.reset()
    two.reset()
    r1, r2 = np.random.default_rng(4), np.random.default_rng(4)
    for _ in range(200):
        one.step(one.sample(r1))
        two.step(two.sample(r2))
        for name in ("obs", "mask", "seat", "rewards", "terminated", "game_seed", "final_seed",
                     "final_obs", "learner_seat"):
            np.testing.assert_array_equal(getattr(one, name), getattr(two, name))


def test_disabled_autoreset_keeps_ended_slots_over_until_reset():
    b = make_batch(TetHsiGame(), 8, seed=1, autoreset="disabled")
    b.reset()
    assert check_disabled_autoreset(b, raw_env(), 300, np.random.default_rng(0)) > 3


def _snapshot(b):
    return [a.copy() for a in (b.obs, b.mask, b.seat, b.rewards, b.terminated, b.game_seed)] + [
        [b.legal_actions(i) for i in range(b.num_envs)]]


def test_bad_actions_raise_naming_the_slot_before_any_slot_moves():
    b = make_batch(TetHsiGame(), 6, seed=3)
    b.reset()
    twin = make_batch(TetHsiGame(), 6, seed=3)
    twin.reset()
    rng = np.random.default_rng(1)
    good = b.sample(rng)
    before = _snapshot(b)
    illegal = good.copy()
    illegal[4] = next(a for a in range(b.num_actions) if a not in b.legal_actions(4))
    cases = [
        (illegal, rf"slot 4: action {illegal[4]} \(.*\) is not legal; "
                  rf"legal: {re.escape(str(b.legal_actions(4)))}"),
        (np.where(np.arange(6) == 2, 704, good), "slot 2: action 704 is out of range 0..703"),
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


def test_threads_name_the_first_bad_slot_before_any_slot_moves():
    # The check is split over the threads (each range reports its first bad slot): the
    # error names the lowest one, whichever thread found it, and no slot moves.
    b = make_batch(TetHsiGame(), 1100, seed=5, num_threads=3)
    b.reset()
    good = b.sample()
    before = _snapshot(b)
    for slots in ([1050, 700, 130], [1099], [0, 1099]):
        bad = good.copy()
        bad[slots] = -1
        with pytest.raises(ValueError, match=rf"^slot {min(slots)}: action -1 is out of range"):
            b.step(bad)
        for x, y in zip(before, _snapshot(b), strict=True):
            assert np.array_equal(x, y) if isinstance(x, np.ndarray) else x == y
    b.step(good)


def test_sample_draws_legal_actions_as_numpy_would():
    b = make_batch(TetHsiGame(), 64, seed=8)
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
    game = TetHsiGame()
    for kwargs, match in [({"num_envs": 0}, "num_envs"), ({"opponents": "smart"}, "opponents"),
                          ({"learner_seat": 2}, "learner_seat"), ({"autoreset": "never"}, "autoreset"),
                          ({"num_threads": 0}, "num_threads"), ({"seed": -1}, "seed")]:
        with pytest.raises(ValueError, match=match):
            make_batch(game, **{"num_envs": 4, **kwargs})
    b = make_batch(game, 4)
    with pytest.raises(ValueError, match="before reset"):
        b.step(np.zeros(4, np.int64))


def test_the_game_names_its_batch_and_unseeded_batches_differ():
    assert batch_class(TetHsiGame()) is _batch.Batch
    a, b = make_batch(TetHsiGame(), 4), make_batch(TetHsiGame(), 4)
    a.reset()
    b.reset()
    assert a.game_seed.tolist() != b.game_seed.tolist()
    assert not a.obs.flags.writeable


def test_no_allocation_per_step():
    b = make_batch(TetHsiGame(), 256, seed=4, opponents="greedy", learner_seat="rotate")
    b.reset()
    rng = np.random.default_rng(0)
    out = np.empty(256, np.int64)
    for _ in range(200):
        b.step(b.sample(rng, out))
    tracemalloc.start()
    try:
        start, _ = tracemalloc.get_traced_memory()
        for _ in range(3000):
            b.step(b.sample(rng, out))
        now, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert now - start < 4096 and peak - start < 64 * 1024


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="needs os.fork")
def test_a_forked_child_steps_a_threaded_batch_alone():
    import os

    b = make_batch(TetHsiGame(), 1024, seed=2, num_threads=2)
    b.reset()
    rng = np.random.default_rng(0)
    b.step(b.sample(rng))
    twin = make_batch(TetHsiGame(), 1024, seed=2)
    twin.reset()
    twin.step(twin.sample(np.random.default_rng(0)))
    pid = os.fork()
    if pid == 0:  # the child has no pool workers: the caller must do every chunk itself
        try:
            r2 = np.random.default_rng(1)
            for _ in range(50):
                b.step(b.sample(r2))
            os._exit(0)
        except BaseException:
            os._exit(1)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
    np.testing.assert_array_equal(b.obs, twin.obs)  # the parent's batch is untouched by the child


@pytest.mark.parametrize("num_envs,num_threads", [(40, 1), (600, 2)])
def test_sample_without_a_generator_draws_each_slot_from_its_own_stream(num_envs, num_threads):
    b = make_batch(TetHsiGame(), num_envs, seed=77, num_threads=num_threads)
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
    b.reset(seed=5)  # re-seeding restarts the streams from the new slot seeds
    first = np.random.default_rng(seeds.tag_seed(5, seeds.TAG_SAMPLER))
    legal = b.legal_actions(0)
    assert b.sample()[0] == legal[int(first.integers(len(legal)))]


def test_greedy_actions_are_the_python_greedy_bots_moves():
    # Ties are drawn from the slot's sampler stream, the Python bot seeded alike.
    experts = [GreedyTetHsiBot(seeds.tag_seed(seeds.slot_seed(2026, i), seeds.TAG_SAMPLER))
               for i in range(16)]
    assert _lockstep("random", num_envs=16, steps=300, experts=experts) > 0
