"""Bots: legal play, own-seat information only, reproducibility, the registry."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pytest

from setgames.bots import BOT_NAMES, IsmctsBot, RandomBot, ismcts, make_bot, parse_bot_spec
from setgames.bots.ismcts import win_shares
from setgames.game import rng_from_seed
from setgames.registry import GAME_NAMES, describe, make_game
from setgames.testing import global_rng_untouched
from tests.setgames.arena.toy_multi import MultiToyGame
from tests.setgames.bots.helpers import available_games, random_dmc_weights
from tests.setgames.toy_game import ToyGame, ToyState

# Cheap searches for long runs; a level is named by its number (3: greedy with random moves mixed in).
FAST = {"ismcts": {"iterations": 4, "max_rollout_steps": 30}, "search": {"iters": 8}, "level": {"n": 3}}


def _bot(name: str, game_name: str, seed: int):
    if name == "ppo" and describe(game_name).ppo_weights is None:
        pytest.skip(f"no ppo policy shipped for {game_name} yet")
    if name == "dmc":
        return make_bot(name, game_name, seed, weights=str(_dmc_weights(game_name)))
    try:
        return make_bot(name, game_name, seed, **FAST.get(name, {}))
    except ModuleNotFoundError:
        pytest.skip(f"{name} bot for {game_name} not written yet")


_DMC_DIR = tempfile.mkdtemp(prefix="dmc-bots-")


def _dmc_weights(game_name: str) -> Path:
    # Random weights: what these tests hold (legal moves, no hidden information) is the
    # bot's, whatever its network says.
    path = Path(_DMC_DIR) / f"{game_name}.npz"
    if not path.exists():
        game = make_game(game_name, obs="structure") if "structure" in getattr(
            make_game(game_name), "obs_specs", {}) else make_game(game_name)
        if game.action_spec is None:
            pytest.skip(f"{game_name} has no per-action features yet")
        random_dmc_weights(game, path)
    return path


def _real_game(name: str):
    if name not in available_games():
        pytest.skip(f"{name} rules not on disk yet")
    return make_game(name)


def _play(game, bots, seed: int, max_steps: int = 20_000) -> int:
    """Play one game with ``bots`` (one per seat); check every chosen action is legal."""
    state = game.new_state(rng_from_seed(seed))
    steps = 0
    while not game.is_over(state):
        seat = game.current_seat(state)
        legal = game.legal_actions(state)
        before = game.to_json(state)
        a = bots[seat].act(game, state, seat)
        assert a in legal, f"seed {seed} step {steps}: {bots[seat]!r} chose illegal {a} (legal {legal})"
        assert game.to_json(state) == before, f"{bots[seat]!r} changed the state it was shown"
        game.apply(state, a)
        steps += 1
        assert steps < max_steps
    return steps


@pytest.mark.parametrize("name", ["random", "ismcts"])
def test_bots_only_choose_legal_actions_on_toy_games(name):
    for game in (ToyGame(), MultiToyGame(3), MultiToyGame(4)):
        for seed in range(15):
            bots = [make_bot(name, game.name, seed * 10 + s) for s in range(game.num_players)]
            _play(game, bots, seed)


@pytest.mark.parametrize("game_name", GAME_NAMES)
@pytest.mark.parametrize("name", BOT_NAMES)
def test_bots_only_choose_legal_actions_over_long_runs(game_name, name):
    game = _real_game(game_name)
    games = {"random": 12, "greedy": 12, "ismcts": 2, "ppo": 12, "dmc": 12, "search": 3, "level": 12}[name]
    total = 0
    for seed in range(games):
        # The bot under test in every seat, then against random players.
        bots = [_bot(name, game_name, seed * 7 + s) for s in range(game.num_players)]
        total += _play(game, bots, seed)
        mixed = [bots[0]] + [RandomBot(seed + s) for s in range(1, game.num_players)]
        total += _play(game, mixed, 1000 + seed)
    assert total > 0


def _hidden_twins(game, seed: int, steps: int, seat_choice: int = 0):
    """A mid-game state and a twin re-dealt from the acting seat's view."""
    state = game.new_state(rng_from_seed(seed))
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if game.is_over(state):
            break
        legal = game.legal_actions(state)
        game.apply(state, legal[int(rng.integers(len(legal)))])
    if game.is_over(state):
        return None
    seat = game.current_seat(state)
    for k in range(50):
        twin = game.determinize(state, seat, np.random.default_rng(1000 + k))
        if game.to_json(twin) != game.to_json(state):
            return state, twin, seat
    return None


def test_ismcts_sees_only_its_seat_on_toy_game():
    game = ToyGame()
    for pile in range(2, 9):
        state = ToyState(pile, [1, 2], seat=0)
        twin = ToyState(pile, [1, 3], seat=0)  # differs only in the opponent's hidden card
        assert make_bot("ismcts", "toy", 5).act(game, state, 0) == make_bot("ismcts", "toy", 5).act(
            game, twin, 0)


@pytest.mark.parametrize("game_name", GAME_NAMES)
@pytest.mark.parametrize("name", BOT_NAMES)
def test_bots_act_identically_on_states_differing_only_in_hidden_cards(game_name, name):
    game = _real_game(game_name)
    checked = 0
    for seed in range(6):
        for steps in (0, 7, 23):
            found = _hidden_twins(game, seed, steps)
            if found is None:
                continue
            state, twin, seat = found
            a = _bot(name, game_name, 99).act(game, state, seat)
            b = _bot(name, game_name, 99).act(game, twin, seat)
            assert a == b, f"seed {seed} step {steps}: {name} acts on hidden cards ({a} vs {b})"
            checked += 1
    assert checked > 0


def test_ismcts_takes_the_winning_move_in_the_toy_game():
    # Hand-worked: with 2 tokens, take 2 wins; with 4, take 1 leaves 3, a lost pile for the opponent.
    game = ToyGame()
    assert make_bot("ismcts", "toy", 0, iterations=200).act(game, ToyState(2, [0, 0]), 0) == 1
    assert make_bot("ismcts", "toy", 0, iterations=400).act(game, ToyState(4, [0, 0]), 0) == 0
    assert make_bot("ismcts", "toy", 0, iterations=400).act(game, ToyState(5, [0, 0], seat=1), 1) == 1


def test_ismcts_sweep_mode_takes_the_winning_move_in_the_toy_game():
    # Same hand-worked positions, every root action searched on each shared determinization.
    game = ToyGame()
    assert make_bot("ismcts", "toy", 0, root="sweep", iterations=60).act(game, ToyState(2, [0, 0]), 0) == 1
    assert make_bot("ismcts", "toy", 0, root="sweep", iterations=200).act(game, ToyState(4, [0, 0]), 0) == 0
    action, stats, n = make_bot("ismcts", "toy", 0, root="sweep", iterations=30).search(
        game, ToyState(4, [0, 0]), 0)
    assert n == 30 and {a: v for a, (v, _) in stats.items()} == {0: 30, 1: 30} and action == 0


def test_ismcts_multiplayer_returns_credit_the_mover():
    # 3 players, pile 2, seat 0 to move: take 2 wins at once; take 1 lets seat 1 win.
    game = MultiToyGame(3)
    state = game.new_state(rng_from_seed(0))
    state.pile = 2
    assert make_bot("ismcts", "toy_multi", 1, iterations=100).act(game, state, 0) == 1


def test_same_seed_same_choices_and_global_rng_untouched():
    game = ToyGame()
    with global_rng_untouched():
        for name in ("random", "ismcts"):
            runs = []
            for _ in range(2):
                bots = [make_bot(name, "toy", 3), make_bot(name, "toy", 4)]
                state = game.new_state(rng_from_seed(11))
                seq = []
                while not game.is_over(state):
                    s = game.current_seat(state)
                    a = bots[s].act(game, state, s)
                    seq.append(a)
                    game.apply(state, a)
                runs.append(seq)
            assert runs[0] == runs[1]


def test_reset_reseeds_the_bot():
    game = ToyGame()
    bot = make_bot("random", "toy", 1)
    first = [bot.act(game, ToyState(9, [0, 0]), 0) for _ in range(20)]
    bot.reset(1)
    assert [bot.act(game, ToyState(9, [0, 0]), 0) for _ in range(20)] == first


def test_ismcts_seconds_budget_and_explain():
    game = ToyGame()
    bot = make_bot("ismcts", "toy", 0, seconds=0.01)
    action, reason = bot.explain(game, ToyState(7, [0, 0]), 0)
    assert action in (0, 1) and "visits" in reason
    assert bot.explain(game, ToyState(1, [0, 0]), 0) == (0, "only legal action")


def test_ismcts_refuses_a_finished_game_or_the_wrong_seat():
    game = ToyGame()
    with pytest.raises(ValueError, match="over"):
        IsmctsBot(0).act(game, ToyState(0, [0, 0], winner=0), 0)
    with pytest.raises(ValueError, match="seat 1"):
        IsmctsBot(0).act(game, ToyState(5, [0, 0], seat=0), 1)


def test_win_shares_split_ties():
    assert win_shares([2.0, -1.0, -1.0]) == [1.0, 0.0, 0.0]
    assert win_shares([0.0, 0.0, 0.0, 0.0]) == [0.25] * 4
    assert win_shares([4.0, 4.0, -8.0]) == [0.5, 0.5, 0.0]


@pytest.mark.parametrize("bad, match", [
    (("nope", "toy"), "unknown bot 'nope'"),
    (("greedy", "toy"), "no greedy bot for game 'toy'"),
])
def test_make_bot_rejects_unknown_names(bad, match):
    with pytest.raises(ValueError, match=match):
        make_bot(*bad)


@pytest.mark.parametrize("options, match", [
    ({"iterations": 0}, "iterations 0"),
    ({"rollout": "magic"}, "rollout 'magic'"),
    ({"depth": 3}, "bad option for bot 'ismcts'"),
    ({"seconds": -1}, "seconds -1"),
    ({"root": "wide"}, "root 'wide'"),
    ({"switch_z": -1}, "switch_z -1"),
])
def test_make_bot_rejects_bad_options(options, match):
    with pytest.raises(ValueError, match=match):
        make_bot("ismcts", "toy", 0, **options)
    with pytest.raises(ValueError, match="bad option for bot 'random'"):
        make_bot("random", "toy", 0, depth=3)


def test_parse_bot_spec():
    assert parse_bot_spec("random") == ("random", {})
    assert parse_bot_spec("ismcts:iterations=50,c=0.5,rollout=random") == (
        "ismcts", {"iterations": 50, "c": 0.5, "rollout": "random"})
    with pytest.raises(ValueError, match="bad bot option 'x'"):
        parse_bot_spec("ismcts:x")
    with pytest.raises(ValueError, match="unknown bot 'alpha'"):
        parse_bot_spec("alpha:x=1")


@pytest.mark.parametrize("game_name", GAME_NAMES)
def test_determinize_depends_only_on_the_seats_information(game_name):
    # Search bots re-deal with determinize; if its result depended on where the hidden cards
    # really are (e.g. shuffling them in their current order), the bot would act on them.
    game = _real_game(game_name)
    checked = 0
    for seed in range(6):
        for steps in (0, 9):
            found = _hidden_twins(game, seed, steps)
            if found is None:
                continue
            state, twin, seat = found
            for k in range(3):
                a = game.determinize(state, seat, np.random.default_rng(k))
                b = game.determinize(twin, seat, np.random.default_rng(k))
                assert game.to_json(a) == game.to_json(b), (
                    f"seed {seed} step {steps}: determinize depends on the hidden cards")
            checked += 1
    assert checked > 0


def test_ismcts_rollout_mode_takes_the_winning_move_in_the_toy_game():
    # Hand-worked, random rollouts: pile 2, take 2 wins (1.0) and take 1 loses (0.0); pile 4,
    # take 1 is worth 0.75 (3 left: the opponent takes 2 and hands me the last, or takes 1 and I
    # win half the time) against 0.5 for take 2 (2 left: the opponent wins half the time).
    game = ToyGame()
    bot = make_bot("ismcts", "toy", 0, root="sweep", below="policy", iterations=400)
    action, stats, n = bot.search(game, ToyState(2, [0, 0]), 0)
    # The losing move trails by far more than RACE_DROP_Z standard errors at the first check,
    # so the race ends there.
    assert action == 1 and n == ismcts.RACE_MIN_ROUNDS and stats[0] == (n, 0.0) and stats[1] == (n, n)
    action, stats, n = bot.search(game, ToyState(4, [0, 0]), 0)
    assert action == 0 and stats[0][1] / stats[0][0] > stats[1][1] / stats[1][0]


@pytest.mark.parametrize("game_name", ["bharg", "tusac"])
def test_rollout_base_policy_is_the_greedy_bot_for_every_seat(game_name):
    # The rollouts' base policy must be the greedy player itself, from the point of view of the
    # seat to act (these two greedy bots are deterministic, so whole games must coincide).
    game = _real_game(game_name)
    base = ismcts._base_policy(game_name)
    rng = np.random.default_rng(0)
    for seed in range(3):
        state = game.new_state(rng_from_seed(seed))
        twin = game.clone(state)
        greedy = [make_bot("greedy", game_name, s) for s in range(game.num_players)]
        while not game.is_over(state):
            s = game.current_seat(state)
            a = greedy[s].act(game, state, s)
            assert base(game, twin, rng) == a
            game.apply(state, a)
            game.apply(twin, a)
        assert game.returns(state) == game.returns(twin)


@pytest.mark.parametrize("game_name", GAME_NAMES)
def test_rollout_mode_keeps_the_greedy_move_without_evidence(game_name):
    # An unreachable switch threshold leaves the base policy's move (the greedy bot's) in place.
    game = _real_game(game_name)
    bot = make_bot("ismcts", game_name, 1, iterations=6, switch_z=1e9)
    greedy = make_bot("greedy", game_name, 0)
    state = game.new_state(rng_from_seed(4))
    for _ in range(12):
        if game.is_over(state):
            break
        s = game.current_seat(state)
        a = greedy.act(game, state, s)
        greedy.reset(0)
        assert bot.act(game, state, s) == a
        game.apply(state, a)


def test_ismcts_discards_only_worst_cards_in_tusac():
    # Tu Sac's penalty rule punishes a discard that is not a worst card; the search keeps to them.
    game = _real_game("tusac")
    bot = make_bot("ismcts", "tusac", 2, iterations=4)
    greedy = make_bot("greedy", "tusac", 0)
    checked = 0
    for seed in range(3):
        state = game.new_state(rng_from_seed(seed))
        while not game.is_over(state) and checked < 12:
            s = game.current_seat(state)
            worst = game.worst_cards(state)
            if worst and len(game.legal_actions(state)) > 1:
                a = bot.act(game, state, s)
                assert a - game.layout.start("discard") in worst
                checked += 1
            game.apply(state, greedy.act(game, state, s))
    assert checked > 0
