"""The arena: seat filling, rigged pairings, reproducibility, records, interruption."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from setgames.arena import ArenaGame, BotSpec, format_results, run_arena, seatings, side_score
from setgames.arena.runner import RESULTS_FILE
from setgames.bots.base import Bot
from setgames.records import RECORDS_FILE, load_records, replay
from tests.setgames.arena.toy_multi import MultiToyGame
from tests.setgames.bots.helpers import first_legal_factory
from tests.setgames.toy_game import ToyGame

TOY = ArenaGame.of(ToyGame)
FIRST = BotSpec("first", "first", factory=first_legal_factory)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_seating_rule_gives_every_seat_to_both_bots_equally(n):
    sets = seatings(n)
    per_seat = Counter((seat, side) for s in sets for seat, side in enumerate(s))
    assert len(set(per_seat.values())) == 1 and len(per_seat) == 2 * n
    alternating = tuple(i % 2 for i in range(n))
    rotations = {alternating[k:] + alternating[:k] for k in range(n)}
    rotations |= {tuple(1 - x for x in r) for r in rotations}
    assert set(sets) == rotations and len(sets) == len(rotations)  # A B A B ... rotated, both ways


def test_side_score_by_highest_return():
    assert side_score([1.0, -1.0], (1, 0)) == 0.0
    assert side_score([2.0, -1.0, -1.0], (1, 0, 0)) == 0.0
    assert side_score([-1.0, 2.0, -1.0], (1, 0, 0)) == 1.0
    assert side_score([1.0, 1.0, -2.0], (0, 1, 0)) == 0.5


def test_bot_against_itself_scores_half_within_the_interval():
    res = run_arena([TOY], ["random", "random"], games_per_pairing=120, seed=7, progress=False)
    (p,) = res["arenas"][0]["pairings"]
    assert p["bot_a"] == "random" and p["bot_b"] == "random#2"
    assert p["games"] == 120 and p["wins_a"] + p["wins_b"] + p["draws"] == 120
    low, high = p["score_a_ci"]
    assert low < 0.5 < high


def test_weak_bot_loses_to_a_strong_one_with_the_interval_below_half():
    res = run_arena([TOY], [FIRST, "ismcts:iterations=150"], games_per_pairing=40, seed=1, progress=False)
    (p,) = res["arenas"][0]["pairings"]
    assert p["score_a_ci"][1] < 0.5
    assert p["mean_reward_a"] < 0 < p["mean_reward_b"]
    ratings = res["arenas"][0]["ratings"]
    assert ratings[0]["bot"] == "ismcts:iterations=150" and ratings[1]["high"] < ratings[0]["low"]
    text = format_results(res)
    assert "ismcts:iterations=150 is stronger" in text


def test_three_player_pairing_fills_seats_by_the_rule():
    game = ArenaGame.of(MultiToyGame, num_players=3)
    res = run_arena([game], ["random", FIRST], games_per_pairing=12, seed=2, progress=False)
    arena = res["arenas"][0]
    assert arena["seatings"] == ["ABA", "BAA", "AAB", "BAB", "ABB", "BBA"]
    assert len(arena["games"]) == 12
    for g in arena["games"]:
        assert [{"A": "random", "B": "first"}[c] for c in g["seating"]] == g["seats"]
        expected = side_score(g["returns"], ["AB".index(c) for c in g["seating"]])
        assert g["score_a"] == expected
    seeds = Counter(g["seed"] for g in arena["games"])
    assert sorted(seeds.values()) == [6, 6]  # two deals, each played in all six seatings


def test_results_are_identical_with_one_and_two_workers(tmp_path):
    runs = []
    for w in (1, 2):
        out = tmp_path / f"w{w}"
        run_arena([TOY, ArenaGame.of(MultiToyGame, num_players=3)], ["random", "ismcts:iterations=20", FIRST],
                  games_per_pairing=6, seed=5, workers=w, out=out, progress=False)
        runs.append(((out / RESULTS_FILE).read_bytes(), (out / RECORDS_FILE).read_bytes()))
    assert runs[0] == runs[1]
    assert json.loads(runs[0][0])["seed"] == 5


def test_other_master_seed_gives_other_deals():
    a = run_arena([TOY], ["random", FIRST], games_per_pairing=4, seed=1, progress=False)
    b = run_arena([TOY], ["random", FIRST], games_per_pairing=4, seed=2, progress=False)
    assert [g["seed"] for g in a["arenas"][0]["games"]] != [g["seed"] for g in b["arenas"][0]["games"]]


def test_records_of_an_arena_replay(tmp_path):
    res = run_arena([TOY], ["random", "ismcts:iterations=10"], games_per_pairing=6, seed=0, out=tmp_path,
                    progress=False)
    records = load_records(tmp_path / RECORDS_FILE)
    assert len(records) == 6
    for rec, g in zip(records, res["arenas"][0]["games"], strict=True):
        assert rec["seats"] == g["seats"] and rec["seed"] == g["seed"]
        assert list(replay(rec, game_factory=ToyGame).returns) == g["returns"]


class _InterruptingBot(Bot):
    """Plays first-legal, and presses Ctrl-C on its ``after``-th move."""

    name = "interrupting"
    moves = 0

    def __init__(self, seed=None, after=10):
        super().__init__(seed)
        self.after = after

    def act(self, game, state, seat):
        type(self).moves += 1
        if type(self).moves == self.after:
            raise KeyboardInterrupt
        return game.legal_actions(state)[0]


def _interrupting_factory(game_name, seed=None, **options):
    return _InterruptingBot(seed, **options)


def test_interrupted_arena_keeps_and_saves_finished_games(tmp_path):
    _InterruptingBot.moves = 0
    bot = BotSpec("interrupting", "interrupting", (("after", 25),), factory=_interrupting_factory)
    res = run_arena([TOY], ["random", bot], games_per_pairing=40, seed=0, out=tmp_path, progress=False)
    played = len(res["arenas"][0]["games"])
    assert res["interrupted"] and 0 < played < 40
    saved = json.loads((tmp_path / RESULTS_FILE).read_text())
    assert saved["interrupted"] and len(saved["arenas"][0]["games"]) == played
    assert len(load_records(tmp_path / RECORDS_FILE)) == played
    assert saved["arenas"][0]["pairings"][0]["games"] == played
    assert "Interrupted" in format_results(res)


@pytest.mark.parametrize("kwargs, match", [
    ({"bots": ["random"]}, "at least two bots"),
    ({"bots": ["random", "nope"]}, "unknown bot 'nope'"),
    ({"bots": ["random", "greedy"]}, "no greedy bot for game 'toy'"),
    ({"games_per_pairing": 0}, "games per pairing 0"),
    ({"workers": 0}, "workers 0"),
    ({"seed": -1}, "seed -1"),
])
def test_bad_arena_arguments_raise_value_error(kwargs, match):
    args = {"bots": ["random", "random"], **kwargs}
    with pytest.raises(ValueError, match=match):
        run_arena([TOY], progress=False, **args)


def test_bad_game_config_raises_before_playing():
    with pytest.raises(ValueError, match="num_players 7"):
        run_arena([ArenaGame.of(MultiToyGame, num_players=7)], ["random", "random"], progress=False)


def test_ctrl_c_inside_the_bookkeeping_of_a_game_waits_for_its_end():
    import signal

    from setgames.arena.signals import signals_deferred as _sigint_deferred

    done = []
    with pytest.raises(KeyboardInterrupt), _sigint_deferred():
        signal.raise_signal(signal.SIGINT)
        done.append("kept")
        done.append("recorded")
    assert done == ["kept", "recorded"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_second_ctrl_c_while_saving_leaves_results_and_records_agreeing(tmp_path, monkeypatch):
    import signal

    from setgames.arena import runner

    summarise = runner._summarise
    pressed = []

    def summarise_and_press_again(*args, **kwargs):
        if not pressed:  # the second Ctrl-C lands while the results are being written up
            pressed.append(1)
            signal.raise_signal(signal.SIGINT)
        return summarise(*args, **kwargs)

    monkeypatch.setattr(runner, "_summarise", summarise_and_press_again)
    _InterruptingBot.moves = 0
    bot = BotSpec("interrupting", "interrupting", (("after", 25),), factory=_interrupting_factory)
    with pytest.raises(KeyboardInterrupt):
        run_arena([TOY], ["random", bot], games_per_pairing=40, seed=0, out=tmp_path, progress=False)
    assert pressed
    saved = json.loads((tmp_path / RESULTS_FILE).read_text())
    played = len(saved["arenas"][0]["games"])
    assert saved["interrupted"] and 0 < played < 40
    assert len(load_records(tmp_path / RECORDS_FILE)) == played
    assert not list(tmp_path.glob("*.tmp"))
