"""Every reward the learner's seat earns reaches it in the batch itself, in every game and config.

The reference is the game's own accounting: under ``next_step`` a finished game stays in its
slot until the next step, so ``b.state(i)`` is its final position and ``game.returns`` what
each seat earned in it. The learner's rewards summed over the game's steps (the opening's
paid with its first step) must equal that, game by game. Deals that end before the learner
acts are counted (``short_deals="skip"``) or played as one-step episodes (``"play"``), in
which case they are ordinary games of this sum.
"""

from __future__ import annotations

import numpy as np
import pytest

from setgames.batch import make_batch
from setgames.registry import make_game

CONFIGS = [
    ("tethsi", {}, "greedy", "rotate"),
    ("bharg", {"target_score": 40}, "greedy", "rotate"),
    ("bharg", {"target_score": 40}, "random", "random"),
    ("bharg", {"num_players": 3, "target_score": 40}, "greedy", "rotate"),
    ("bharg", {"num_players": 3, "target_score": 40, "reward": "win"}, "greedy", 1),
    ("tusac", {"num_players": 2}, "greedy", "rotate"),
    ("tusac", {"num_players": 3}, "greedy", "random"),
    ("tusac", {"num_players": 4}, "random", "rotate"),
]
IDS = [f"{g}-{c.get('num_players', 2)}p-{o}-{s}{'-win' if c.get('reward') else ''}" for g, c, o, s in CONFIGS]


def _play(name, config, opponents, seat, short_deals, games, num_envs=128):
    """Play ``games`` games per slot-stream with uniform learner moves; the count of games,
    of short ones, and of slots' skipped deals; asserts each game's sum."""
    game = make_game(name, **config)
    b = make_batch(game, num_envs, seed=2024, opponents=opponents, learner_seat=seat,
                   autoreset="next_step", short_deals=short_deals)
    b.reset()
    totals = np.zeros(num_envs)
    done = short = 0
    dealing = np.zeros(num_envs, bool)
    while done < games:
        lone = np.flatnonzero((b.mask.sum(1) == 1) & (b.mask[:, 0] == 1))
        short_now = {int(i) for i in lone if game.is_over(b.state(i))}
        b.step(b.sample())
        assert not b.learner_reward[dealing].any()
        totals += np.where(dealing, 0, b.learner_reward)
        ended = b.terminated | b.truncated
        for i in np.flatnonzero(ended):
            want = game.returns(b.state(i))[b.final_learner_seat[i]]
            assert totals[i] == pytest.approx(want, abs=1e-4), (i, int(b.final_seed[i]))
            totals[i] = 0
            done += 1
            short += int(i) in short_now
        dealing = ended.copy()
    return done, short, int(b.skipped_deals.sum())


@pytest.mark.parametrize(("name", "config", "opponents", "seat"), CONFIGS, ids=IDS)
def test_the_learners_rewards_sum_to_its_returns_game_by_game(name, config, opponents, seat):
    games, short, skipped = _play(name, config, opponents, seat, "skip", 300)
    assert games >= 300 and short == 0
    if name == "tethsi":
        assert skipped == 0  # a Tet Hsi game cannot end before each seat has moved


@pytest.mark.long
@pytest.mark.parametrize(("name", "config", "opponents", "seat"), CONFIGS, ids=IDS)
@pytest.mark.parametrize("short_deals", ["skip", "play"])
def test_the_learners_rewards_sum_to_its_returns_over_thousands_of_games(name, config, opponents, seat,
                                                                         short_deals):
    games, short, skipped = _play(name, config, opponents, seat, short_deals, 3000)
    assert games >= 3000
    if short_deals == "play":
        assert skipped == 0
    else:
        assert short == 0


def test_short_deals_are_counted_or_played_as_the_learners_losses():
    """Bharg 3 players against greedy: a few percent of deals end before the learner acts.
    Skipped, they are counted per slot; played, each is a one-step episode (only the no-op 0
    legal) whose reward is the learner's loss in that deal."""
    game = make_game("bharg", num_players=3)
    skip = make_batch(game, 256, seed=7, opponents="greedy", learner_seat="rotate")
    skip.reset()
    for _ in range(300):
        skip.step(skip.sample())
    assert skip.skipped_deals.sum() > 0
    play = make_batch(game, 256, seed=7, opponents="greedy", learner_seat="rotate", short_deals="play")
    play.reset()
    losses = 0
    for _ in range(300):
        short = {i: play.state(i) for i in range(256) if play.legal_actions(i) == [0]
                 and game.is_over(play.state(i))}
        for i in short:
            assert play.mask[i].tolist() == [1] + [0] * (play.num_actions - 1)
            assert play.seat[i] == play.learner_seat[i]
        seats = play.learner_seat.copy()
        play.step(play.sample())
        for i, final in short.items():
            assert play.terminated[i] or play.truncated[i]
            assert play.learner_reward[i] == game.returns(final)[seats[i]] <= 0
            assert game.outcome(final)["winner"] != seats[i]
            losses += 1
    assert losses > 0 and play.skipped_deals.sum() == 0
