"""Every reward the learner's seat earns reaches it through the batched views
(defect 4: in Bharg match play the seats before the learner can score before
its first move; the first step's reward carries it), and deals that end
before the learner acts are counted or played (defect 6).

The reference is the game's own accounting: under ``next_step`` a finished
game stays in its slot until the next step, so ``batch.state(i)`` is its
rules-layer state and ``game.returns`` its returns. The other views play the
same games with the same moves (a policy that is a function of the
observation, opponents drawing from streams of the game seed), so their
per-game totals must be the same numbers."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from setgames.batch import seeds

pytest.importorskip("bharg_env._batch", reason="bharg_env._batch is not built")
from setgames.batch.gym_vector import BatchVectorEnv

N = 64
MASTER = 123


def _policy(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """A legal action per slot, a fixed function of the slot's observation."""
    w = np.random.default_rng(7).integers(1, 1 << 20, obs.shape[1])
    score = obs.astype(np.int64) @ w
    out = np.zeros(len(masks), dtype=np.int64)
    for i, m in enumerate(masks):
        legal = np.flatnonzero(m)
        if legal.size:
            out[i] = legal[score[i] % legal.size]
    return out


def _options(players, opponents, seat):
    return {"opponents": opponents, "learner_seat": seat, "num_players": players, "target_score": 40}


def _reference(players, opponents, seat, games):
    """Per-game learner totals ``{(slot, seed): total}`` under ``next_step``, each checked
    against the game's returns; and how many games owed the learner a first-step reward."""
    envs = BatchVectorEnv("bharg", N, autoreset_mode="next_step", **_options(players, opponents, seat))
    obs, infos = envs.reset(seed=MASTER)
    b, game = envs.batch, envs.game
    totals = np.zeros(N)
    fresh = np.ones(N, dtype=bool)  # the slot's game is at the learner's first move
    dealing = np.zeros(N, dtype=bool)  # next_step: the step after an end deals
    out, owed = {}, 0
    while len(out) < games:
        for i in np.flatnonzero(fresh):
            owed += game.returns(b.state(i))[b.learner_seat[i]] != 0
        obs, rew, term, trunc, infos = envs.step(_policy(obs, infos["action_mask"]))
        assert not rew[dealing].any()
        totals += rew
        ended = term | trunc
        for i in np.flatnonzero(ended):
            want = game.returns(b.state(i))[infos["learner_seat"][i]]
            assert totals[i] == pytest.approx(want, abs=1e-4), (i, infos["seed"][i])
            out[(i, int(infos["seed"][i]))] = totals[i]
            totals[i] = 0.0
        fresh, dealing = dealing, ended
    return out, owed


def _same_step_totals(make, want):
    """Per-game totals ``{(slot, seed): total}`` of a same-step view (Gymnasium or SB3),
    played until every game of ``want`` has ended."""
    env, sb3 = make()
    totals = np.zeros(N)
    out = {}
    if sb3:
        env.seed(MASTER)
        obs = env.reset()
    else:
        obs, _ = env.reset(seed=MASTER)
    missing = set(want)
    for _ in range(100 * len(want)):  # a bound: a game that never comes is a failure, not a hang
        if not missing:
            break
        actions = _policy(obs, env.action_masks())
        if sb3:
            obs, rew, dones, infos = env.step(actions)
            ends = [(i, infos[i]["seed"]) for i in np.flatnonzero(dones)]
        else:
            obs, rew, term, trunc, infos = env.step(actions)
            ends = [(i, infos["final_info"]["seed"][i]) for i in np.flatnonzero(term | trunc)]
        totals += rew
        for i, seed in ends:
            out[(int(i), int(seed))] = totals[i]
            missing.discard((int(i), int(seed)))
            totals[i] = 0.0
    assert not missing, f"{len(missing)} games of the reference never ended here"
    return out


def _check(players, opponents, seat, games):
    ref, owed = _reference(players, opponents, seat, games)
    if opponents == "greedy":
        assert owed > 0  # some of the games are the ones the first-step rule is for
    def gym_view():
        return BatchVectorEnv("bharg", N, **_options(players, opponents, seat)), False

    views = [gym_view]
    # The SB3 view needs the train extra (.ci/train-smoke runs this file with it).
    if importlib.util.find_spec("stable_baselines3") is not None:
        from setgames.batch.sb3_vec import BatchVecEnv

        views.append(lambda: (BatchVecEnv("bharg", N, **_options(players, opponents, seat)), True))
    for make in views:
        got = _same_step_totals(make, ref)
        for key in ref:
            assert got[key] == pytest.approx(ref[key], abs=1e-4), key


@pytest.mark.parametrize("seat", ["rotate", "random"])
@pytest.mark.parametrize("opponents", ["greedy", "random"])
@pytest.mark.parametrize("players", [2, 3])
def test_views_pay_every_reward_of_the_learners_seat(players, opponents, seat):
    _check(players, opponents, seat, 1500)


@pytest.mark.long
@pytest.mark.parametrize("seat", ["rotate", "random"])
@pytest.mark.parametrize("opponents", ["greedy", "random"])
@pytest.mark.parametrize("players", [2, 3])
def test_views_pay_every_reward_of_the_learners_seat_many_games(players, opponents, seat):
    _check(players, opponents, seat, 20_000)


def _slot_seeds(slot, upto):
    return {seeds.game_seed(MASTER, slot, k) for k in range(upto)}


@pytest.mark.parametrize("players", [2, 3])
def test_short_deals_are_counted_when_skipped_and_one_step_episodes_when_played(players):
    opts = {"opponents": "greedy", "learner_seat": players - 1, "num_players": players,
            "autoreset_mode": "next_step"}
    skip = BatchVectorEnv("bharg", N, **opts)
    play = BatchVectorEnv("bharg", N, short_deals="play", **opts)
    obs, infos = skip.reset(seed=MASTER)
    for _ in range(150):
        obs, _, _, _, infos = skip.step(_policy(obs, infos["action_mask"]))
    skipped = infos["skipped_deals"]
    assert infos["_skipped_deals"].all() and skipped.dtype == np.int64 and skipped.sum() > 0

    obs, infos = play.reset(seed=MASTER)
    short = [set() for _ in range(N)]
    for _ in range(400):  # playing the short deals too, it needs more steps for as many deals
        one_step = infos["action_mask"].sum(axis=1) == 1
        one_step &= infos["action_mask"][:, 0]
        obs, rew, term, _, infos = play.step(_policy(obs, infos["action_mask"]))
        for i in np.flatnonzero(one_step):
            state = play.batch.state(i)
            if not play.game.is_over(state) or not term[i]:
                continue  # a real first move with one legal action
            short[i].add(int(infos["seed"][i]))
            assert rew[i] == pytest.approx(play.game.returns(state)[players - 1])
    assert not infos["skipped_deals"].any()
    for i in range(N):
        upto = int(skip.batch.game_index[i])
        assert int(play.batch.game_index[i]) >= upto
        assert skipped[i] == len(short[i] & _slot_seeds(i, upto)), i


def test_an_illegal_first_action_still_pays_what_the_seat_earned_before():
    envs = BatchVectorEnv("bharg", 256, opponents="greedy", learner_seat=1, autoreset_mode="next_step",
                          num_players=2, target_score=40, illegal_reward=-1.5)
    _, infos = envs.reset(seed=0)
    b, game = envs.batch, envs.game
    earned = np.array([game.returns(b.state(i))[1] for i in range(256)])
    owed = np.flatnonzero(earned)
    assert owed.size  # greedy seats 0 end some first rounds before seat 1 moves
    actions = _policy(b.obs, infos["action_mask"])
    actions[owed] = [np.flatnonzero(~infos["action_mask"][i])[0] for i in owed]
    _, rew, term, _, infos = envs.step(actions)
    assert term[owed].all() and infos["illegal_action"][owed].all()
    np.testing.assert_allclose(rew[owed], earned[owed] - 1.5)  # as SingleAgentEnv pays it
