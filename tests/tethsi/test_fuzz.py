"""Random play over many seeds with the generic and the Tet Hsi invariants,
reproducibility across processes, and the global random state left alone."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from setgames.game import rng_from_seed
from setgames.testing import check_random_play, game_fingerprint, global_rng_untouched
from tests.tethsi.decktet_oracle import oracle_kind
from tethsi_env import TetHsiGame, env, raw_env
from tethsi_env.layout import OBS_SPEC
from tethsi_env.rules import observation_bytes

FULL = (1 << 36) - 1


def tethsi_invariants(game: TetHsiGame, s) -> None:
    """36 cards conserved across disjoint zones; hand sizes follow the turn; the
    kept-up-to-date observations equal fresh ones; Sets put aside are real Sets."""
    pile = 0
    for x in s.pile:
        pile |= 1 << x
    zones = [*s.concealed, *s.front, s.center, s.discard, *s.set_cards, pile]
    assert sum(z.bit_count() for z in zones) == 36 and len(s.pile) == pile.bit_count()
    union = 0
    for z in zones:
        union |= z
    assert union == FULL
    for seat in (0, 1):
        hand = (s.concealed[seat] | s.front[seat]).bit_count()
        # 8 cards, -3 for each Set put aside with its play; one more while the play is
        # pending (after a take or a Set) and after the winning Set (no play follows).
        pending = seat == s.seat and (s.phase == 2 or (s.phase == 3 and s.winner == seat))
        assert hand == 8 - 3 * len(s.sets[seat]) + pending, (hand, s.events[-2:])
        assert s.set_cards[seat].bit_count() == 3 * len(s.sets[seat])
        for x, y, r, _k in s.sets[seat]:
            assert oracle_kind(x, y, r) is not None
    if s.phase == 0:
        assert s.center.bit_count() == 2 and s.remaining == -1
    elif s.phase == 1:
        assert s.center == 1 << s.remaining
    elif s.phase == 2:
        assert s.center == 0
    for seat in (0, 1):
        assert game.observe(s, seat).tobytes() == bytes(observation_bytes(s, seat))


def test_random_play_invariants_over_many_seeds():
    game = TetHsiGame(first_player="random")
    assert check_random_play(game, range(60), per_step=tethsi_invariants) > 2000


@pytest.mark.slow
def test_random_play_invariants_long():
    game = TetHsiGame(first_player="random")
    assert check_random_play(game, range(1000, 3000), per_step=tethsi_invariants) > 50_000


def test_mask_matches_rules_through_both_envs():
    for seed in range(15):
        from setgames.testing import check_env_mask_matches_rules

        check_env_mask_matches_rules(env(), seed)
        check_env_mask_matches_rules(raw_env(first_player="random"), seed)


def test_same_seed_same_game_across_processes():
    here = game_fingerprint(TetHsiGame(), 1234)
    code = ("from setgames.testing import game_fingerprint; from tethsi_env import TetHsiGame; "
            "print(game_fingerprint(TetHsiGame(), 1234))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         timeout=120)
    assert out.stdout.strip() == here


def test_different_seeds_deal_differently():
    game = TetHsiGame()
    deals = {tuple(game.to_json(game.new_state(rng_from_seed(k)))["pile"]) for k in range(50)}
    assert len(deals) == 50


def test_env_reset_seed_reproduces_observations():
    a, b = raw_env(), raw_env()
    a.reset(seed=77)
    b.reset(seed=77)
    for _ in range(30):
        if not a.agents or a.terminations[a.agent_selection]:
            break
        oa, ob = a.observe(a.agent_selection), b.observe(b.agent_selection)
        assert np.array_equal(oa["observation"], ob["observation"])
        legal = np.flatnonzero(oa["action_mask"])
        a.step(int(legal[-1]))
        b.step(int(legal[-1]))


def test_global_rng_untouched_by_reset_and_step():
    with global_rng_untouched():
        e = env(first_player="random")
        e.reset()
        e.reset(seed=3)
        for _ in range(40):
            if e.terminations[e.agent_selection]:
                break
            e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0]))
        game = TetHsiGame()
        s = game.new_state(rng_from_seed(1))
        game.determinize(s, 0, np.random.default_rng(2))


def test_observation_size_matches_spec():
    assert OBS_SPEC.size == 304
