"""Every reward the learner's seat earns reaches it (defect 4), and deals that
end before the learner acts are skipped and counted, or played as one-step
episodes (defect 6): :class:`SingleAgentEnv` on Bharg, where both happen."""

from __future__ import annotations

import numpy as np
import pytest

from setgames.engine import engine_class
from setgames.registry import make_game
from setgames.wrappers import SingleAgentEnv
from setgames.wrappers.single_agent import SHORT_DEAL_ACTION

MATCH = {"target_score": 40}  # match play: the seats before the learner can score first


def _engine_paths() -> list[bool]:
    return [True, False] if engine_class(make_game("bharg")) is not None else [False]


def _play(env: SingleAgentEnv, games: int, seed: int) -> tuple[int, int]:
    """Play ``games`` random-legal episodes, checking each episode's rewards against the
    game's returns for the learner's seat; ``(episodes that owed a first-move reward,
    skipped deals)``."""
    rng = np.random.default_rng(seed)
    owed = 0
    for g in range(games):
        _, info = env.reset(seed=seed if g == 0 else None)
        game, seat = env.game, info["learner_seat"]
        # the game's own bookkeeping of what the seat earned before its first move
        owed += game.returns(env.state)[seat] != 0
        total, done = 0.0, False
        while not done:
            legal = np.flatnonzero(info["action_mask"])
            _, reward, term, trunc, info = env.step(int(legal[rng.integers(legal.size)]))
            total += reward
            done = term or trunc
        want = game.returns(env.state)[seat]
        assert total == pytest.approx(want, abs=1e-4), f"episode {g}: rewards {total}, returns {want}"
    return owed, info["skipped_deals"]


def _check_sums(players: int, opponents: str, seat: str, games: dict[bool, int]) -> None:
    owed_total = 0
    for engine in _engine_paths():
        env = SingleAgentEnv("bharg", opponents=opponents, learner_seat=seat, engine=engine,
                             num_players=players, **MATCH)
        owed, _ = _play(env, games[engine], seed=players * 10)
        owed_total += owed
    if opponents == "greedy":
        # greedy seats bind whole hands at once, so some episodes above are the ones
        # the first-step rule is for (random seats rarely end a round that early)
        assert owed_total > 0


@pytest.mark.parametrize("seat", ["rotate", "random"])
@pytest.mark.parametrize("opponents", ["greedy", "random"])
@pytest.mark.parametrize("players", [2, 3])
def test_match_play_rewards_sum_to_the_learners_returns(players, opponents, seat):
    # random opponents make longer matches
    n = 2500 if opponents == "greedy" else 1000
    _check_sums(players, opponents, seat, {True: n, False: n // 10})


@pytest.mark.slow
@pytest.mark.parametrize("seat", ["rotate", "random"])
@pytest.mark.parametrize("opponents", ["greedy", "random"])
@pytest.mark.parametrize("players", [2, 3])
def test_match_play_rewards_sum_to_the_learners_returns_many_games(players, opponents, seat):
    _check_sums(players, opponents, seat, {True: 40_000, False: 4000})


def test_an_illegal_first_action_still_pays_what_the_seat_earned_before():
    env = SingleAgentEnv("bharg", opponents="greedy", learner_seat=1, engine=False, num_players=2, **MATCH)
    for g in range(3000):
        _, info = env.reset(seed=g)
        earned = env.game.returns(env.state)[1]
        if earned != 0:
            break
    else:
        pytest.fail("no deal in 3000 where the seat earned before its first move")
    bad = int(np.flatnonzero(~info["action_mask"])[0])
    _, reward, term, _, info = env.step(bad)
    assert term and info["illegal_action"]
    assert reward == pytest.approx(env.illegal_reward + earned)


@pytest.mark.parametrize("engine", _engine_paths())
@pytest.mark.parametrize("players", [2, 3])
def test_short_deals_skipped_are_counted_and_played_are_one_step_episodes(players, engine):
    seat = players - 1  # the last to move: the others may end the deal before it acts
    kwargs = {"opponents": "greedy", "learner_seat": seat, "engine": engine, "num_players": players}
    skip = SingleAgentEnv("bharg", **kwargs)
    play = SingleAgentEnv("bharg", short_deals="play", **kwargs)
    rng = np.random.default_rng(0)
    _, skip_info = skip.reset(seed=3)
    _, info = play.reset(seed=3)
    short = 0
    # With a fixed seat both envs draw the same deals in the same order: every deal
    # "skip" passes over is a one-step episode of "play".
    for _ in range(400 if engine else 100):
        while skip.game_seed != play.game_seed:
            short += 1
            assert np.flatnonzero(info["action_mask"]).tolist() == [SHORT_DEAL_ACTION]
            assert play.game.is_over(play.state)
            np.testing.assert_array_equal(play._obs(), play.game.observe(play.state, seat))
            want = play.game.returns(play.state)[seat]
            _, reward, term, trunc, info = play.step(SHORT_DEAL_ACTION)
            assert term and not trunc and reward == pytest.approx(want)
            assert not info["action_mask"].any() and info["returns"][seat] == pytest.approx(want)
            _, info = play.reset()
        assert skip_info["skipped_deals"] == short
        done = False
        while not done:  # an ordinary deal: both envs play it alike
            a = int(rng.choice(np.flatnonzero(info["action_mask"])))
            _, r1, t1, u1, _ = skip.step(a)
            _, r2, t2, u2, info = play.step(a)
            assert (r1, t1, u1) == (r2, t2, u2)
            done = t1 or u1
        _, skip_info = skip.reset()
        _, info = play.reset()
    assert short > 0 and play.skipped_deals == 0


def test_the_short_deal_no_op_refuses_other_actions():
    env = SingleAgentEnv("bharg", opponents="greedy", learner_seat=2, num_players=3, short_deals="play",
                         illegal_action="raise")
    for g in range(2000):
        env.reset(seed=g)
        if env.game.is_over(env.state):
            break
    else:
        pytest.fail("no short deal in 2000")
    with pytest.raises(ValueError, match=r"ended before seat 2 could act; legal: \[0\]"):
        env.step(1)
