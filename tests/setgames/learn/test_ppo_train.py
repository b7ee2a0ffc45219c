"""The PPO recipe: curriculum parsing, GAE over each slot's own moves, and a short run
that writes a loadable policy (the CI smoke of the recipe, not its strength)."""

from __future__ import annotations

import csv

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from setgames.bots.ppo import PpoBot, load_policy  # noqa: E402
from setgames.cli import main  # noqa: E402
from setgames.learn.ppo import (  # noqa: E402
    Agent,
    TrainConfig,
    _gae,
    _update,
    parse_curriculum,
    train,
)
from setgames.registry import make_game  # noqa: E402


def test_curriculum_shares_and_errors():
    assert parse_curriculum("random:0.1,greedy:0.3,self", 1000) == [("random", 100), ("greedy", 300),
                                                                   ("self", 600)]
    assert parse_curriculum("greedy", 50) == [("greedy", 50)]
    for bad in ("", "human", "random,greedy", "random:1.5,greedy", "random:0.9,greedy:0.2,self"):
        with pytest.raises(ValueError):
            parse_curriculum(bad, 1000)


def _gae_one_slot(rew, done, val, boot, gamma, lam):
    """Textbook GAE over one slot's own moves (a plain list, no skipping)."""
    adv, next_v, next_a = [0.0] * len(rew), boot, 0.0
    for t in reversed(range(len(rew))):
        nonterm = 1.0 - done[t]
        delta = rew[t] + gamma * next_v * nonterm - val[t]
        next_a = delta + gamma * lam * nonterm * next_a
        adv[t], next_v = next_a, val[t]
    return adv


def test_gae_skips_the_other_seats_moves_as_if_they_were_not_there():
    rng = np.random.default_rng(0)
    T, B = 30, 7
    rew = rng.normal(size=(T, B)).astype(np.float32)
    done = (rng.random((T, B)) < 0.15).astype(np.float32)
    val = rng.normal(size=(T, B)).astype(np.float32)
    valid = rng.random((T, B)) < 0.6
    boot = rng.normal(size=B).astype(np.float32)
    got = _gae(rew, done, val, valid, boot, 0.97, 0.9)
    for b in range(B):
        keep = valid[:, b]
        want = _gae_one_slot(rew[keep, b], done[keep, b], val[keep, b], boot[b], 0.97, 0.9)
        np.testing.assert_allclose(got[keep, b], want, rtol=1e-5, atol=1e-5)
        assert (got[~keep, b] == 0).all()


@pytest.mark.parametrize("curriculum", ["random:0.5,greedy", "greedy:0.5,self"])
def test_a_short_run_writes_a_loadable_policy_a_curve_and_a_card(tmp_path, curriculum):
    cfg = TrainConfig(game="tethsi", steps=2 * 32 * 8 * 2, num_envs=32, rollout=8, hidden=16,
                      curriculum=curriculum, eval_every=2, eval_games=4, out=str(tmp_path), progress=False)
    summary = train(cfg)
    game = make_game("tethsi")
    policy = load_policy(tmp_path / "ppo.npz", game)
    assert policy.layers[0][0].shape == (summary["obs_size"], 16)
    rows = list(csv.DictReader((tmp_path / "curve.csv").open()))
    first, second = (p for p, _ in parse_curriculum(curriculum, 4))
    assert [r["phase"] for r in rows] == [first] * 2 + [second] * 2  # two updates per phase
    assert int(rows[-1]["env_steps"]) == summary["env_steps"] == 4 * 32 * 8
    assert rows[-1]["eval_score"] != "" and 0 <= float(rows[-1]["eval_score"]) <= 1
    card = (tmp_path / "ppo.md").read_text()
    assert "setgames train tethsi" in card and f"seed: {cfg.seed}" in card
    bot = PpoBot(0, weights=str(tmp_path / "ppo.npz"))
    state = game.new_state(np.random.default_rng(0))
    assert bot.act(game, state, game.current_seat(state)) in game.legal_actions(state)


def test_the_train_command_reports_a_bad_curriculum_in_one_line(capsys, tmp_path):
    assert main(["train", "tethsi", "--curriculum", "human", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("setgames: error: unknown opponent 'human'") and "\n" not in err


@pytest.mark.parametrize("game_name, options", [
    ("tethsi", {"curriculum": "random:0.5,self"}),
    ("tethsi", {"curriculum": "greedy", "prior": "greedy", "playouts": 1.0}),  # ties from the slot streams
    ("bharg", {"curriculum": "greedy", "prior": "greedy", "playouts": 2.0, "playout_share": 0.5}),
    ("tethsi", {"curriculum": "greedy", "prior": "greedy", "redeals": 2, "distil": 1.0, "distil_temp": 0.1}),
    ("bharg", {"curriculum": "greedy", "prior": "greedy", "redeals": 2, "distil": 1.0,
               "switch_margin": 0.1}),
    ("bharg", {"curriculum": "greedy", "prior": "features", "redeals": 2, "distil": 1.0, "distil_temp": 0.05,
               "config": {"num_players": 3}}),
    ("tethsi", {"curriculum": "greedy", "prior": "features", "redeals": 2, "distil": 1.0}),
    ("tethsi", {"curriculum": "greedy", "prior": "features", "head": 4, "redeals": 2, "distil": 1.0,
                "distil_temp": 0.05}),
    ("bharg", {"curriculum": "greedy", "prior": "features", "redeals": 2, "distil": 1.0, "distil_temp": 0.05,
               "generations": 2, "search_value": 0.5})])
def test_the_same_seed_trains_the_same_policy(tmp_path, game_name, options):
    def run(seed, name):
        cfg = TrainConfig(game=game_name, steps=2 * 16 * 8, num_envs=16, rollout=8, hidden=8, seed=seed,
                          eval_every=0, out=str(tmp_path / name), progress=False, **options)
        train(cfg)
        return load_policy(tmp_path / name / "ppo.npz").layers

    a, b, c = run(3, "a"), run(3, "b"), run(4, "c")
    assert all(np.array_equal(x[0], y[0]) and np.array_equal(x[1], y[1]) for x, y in zip(a, b, strict=True))
    assert not np.array_equal(a[0][0], c[0][0])


def test_the_command_line_defaults_are_the_recipe_defaults():
    import dataclasses

    from setgames.learn.cli import _defaults

    fields = {f.name: f.default for f in dataclasses.fields(TrainConfig)
              if f.default is not dataclasses.MISSING and f.name not in ("progress",)}
    assert _defaults() == fields


@pytest.mark.parametrize("game_name, config, prior", [
    ("bharg", {"num_players": 3}, "greedy"), ("tusac", {"num_players": 2}, "greedy"),
    ("tethsi", {}, "greedy"), ("bharg", {"num_players": 2}, "features"), ("tethsi", {}, "features")])
def test_a_fresh_policy_with_the_greedy_prior_plays_the_greedy_moves(tmp_path, game_name, config, prior):
    from setgames.bots.registry import greedy_class
    from setgames.game import rng_from_seed

    # lr 0: the shipped policy is the initial one (zero embedding, near-zero last layer, the bonus)
    cfg = TrainConfig(game=game_name, config=config, steps=32 * 8, num_envs=32, rollout=8, hidden=16,
                      curriculum="greedy", prior=prior, lr=0.0, eval_every=0, out=str(tmp_path),
                      progress=False)
    train(cfg)
    game = make_game(game_name, **config)
    policy = load_policy(tmp_path / "ppo.npz", game)
    assert policy.needs_greedy and policy.meta["config"] == game.config_dict()
    assert policy.needs_features == (prior == "features")
    bot = PpoBot(0, weights=str(tmp_path / "ppo.npz"))
    moves = 0
    for seed in range(3):
        reference = greedy_class(game_name)(None)
        bot.reset(seed)
        reference.reset(bot._greedy_seed)  # the same tie-breaks as the bot's prior
        state = game.new_state(rng_from_seed(seed))
        while not game.is_over(state) and moves < 300 * (seed + 1):
            seat = game.current_seat(state)
            a = bot.act(game, state, seat)
            assert a == reference.act(game, state, seat)
            game.apply(state, a)
            moves += 1
    assert moves > 30


def test_an_unknown_prior_is_refused_naming_the_choices(tmp_path):
    cfg = TrainConfig(game="tethsi", steps=64, num_envs=8, rollout=8, prior="search", eval_every=0,
                      out=str(tmp_path), progress=False)
    with pytest.raises(ValueError, match="prior 'search' is not one of none, greedy"):
        train(cfg)


@pytest.mark.parametrize("game_name, options, message", [
    ("tethsi", {"prior": "greedy", "head": 8}, "--head needs --prior features"),
    ("bharg", {"prior": "features", "head": 8}, r"bharg: none\)"),
    ("tethsi", {"prior": "features", "head": -1}, "--head is the move head's width")])
def test_the_move_head_needs_features_that_name_their_moves(tmp_path, game_name, options, message):
    cfg = TrainConfig(game=game_name, steps=64, num_envs=8, rollout=8, eval_every=0, out=str(tmp_path),
                      progress=False, **options)
    with pytest.raises(ValueError, match=message):
        train(cfg)


def test_distil_needs_the_greedy_prior(tmp_path):
    cfg = TrainConfig(game="bharg", steps=64, num_envs=8, rollout=8, distil=1.0, redeals=2, eval_every=0,
                      out=str(tmp_path), progress=False)
    with pytest.raises(ValueError, match="--distil needs --prior greedy"):
        train(cfg)


T, B = 4, 64  # the hand-made rollouts' steps and slots


def _positions(seed, n_obs, n_act):
    """A generator and a hand-made rollout: random 0/1 observations, every action legal, a
    random greedy move per position."""
    rng = np.random.default_rng(seed)
    torch.manual_seed(seed)
    obs = rng.integers(0, 2, (T, B, n_obs)).astype(np.float32)
    return rng, obs, np.ones((T, B, n_act), bool), rng.integers(n_act, size=(T, B))


def test_the_distillation_term_moves_the_argmax_to_the_searchs_move():
    """A position set where one non-greedy action is worth more: the cross-entropy alone (no
    PPO signal: zero advantages) turns the policy's argmax from greedy's move to it."""
    n_obs, n_act = 12, 6
    rng, obs, mask, greedy = _positions(1, n_obs, n_act)
    best = (greedy + 1 + (obs[..., 0] > 0)) % n_act  # depends on the observation
    values = np.zeros((T, B, n_act), np.float32)
    np.put_along_axis(values, best[..., None], 1.0, -1)
    agent = Agent(n_obs, n_act, 32, prior=True, bonus=3.0)
    opt = torch.optim.Adam(agent.parameters(), lr=3e-3)
    cfg = TrainConfig(game="bharg", prior="greedy", distil=1.0, distil_temp=0.1, switch_margin=0.05, epochs=4,
                      minibatches=2, ent_coef=0.0, vf_coef=0.0)

    def argmax():
        with torch.no_grad():
            flat = torch.from_numpy(obs.reshape(-1, n_obs))
            logits = agent.actor(flat, torch.from_numpy(greedy.reshape(-1)))
        return logits.argmax(-1).numpy()

    assert (argmax() == greedy.reshape(-1)).all()
    zeros = np.zeros((T, B), np.float32)
    for _ in range(30):
        stats = _update(agent, opt, cfg, obs, mask, greedy, zeros, zeros, zeros, np.ones((T, B), bool), rng,
                        greedy, True, (values, np.ones((T, B), bool)))
    assert (argmax() == best.reshape(-1)).mean() > 0.95
    assert stats["search_switch"] == 1.0 and stats["search_agreement"] > 0.95


def test_expert_iteration_leaves_each_generation_and_anchors_the_next_on_it(tmp_path):
    cfg = TrainConfig(game="tethsi", steps=16 * 8, num_envs=16, rollout=8, hidden=8, curriculum="greedy",
                      prior="features", redeals=2, distil=1.0, distil_temp=0.05, switch_margin=0.05,
                      generations=3, search_value=0.5, eval_every=100, eval_games=4, out=str(tmp_path),
                      progress=False)
    summary = train(cfg)
    rows = list(csv.DictReader((tmp_path / "generations.csv").open()))
    assert [r["anchor"] for r in rows] == ["greedy", "generation 1", "generation 2"]
    assert [int(r["env_steps"]) for r in rows] == [16 * 8, 2 * 16 * 8, 3 * 16 * 8] == \
        [g["env_steps"] for g in summary["generations"]]
    assert all(r["eval_score"] != "" and 0 <= float(r["search_switch"]) <= 1 for r in rows)
    curve = list(csv.DictReader((tmp_path / "curve.csv").open()))
    assert len(curve) == 3 and all(r["eval_score"] != "" for r in curve)  # an arena at each generation's end
    last, final = load_policy(tmp_path / "gen-3.npz").layers, load_policy(tmp_path / "ppo.npz").layers
    assert all(np.array_equal(x[0], y[0]) for x, y in zip(last, final, strict=True))
    first = load_policy(tmp_path / "gen-1.npz").layers
    assert not np.array_equal(first[0][0], last[0][0])
    card = (tmp_path / "ppo.md").read_text()
    assert "expert iteration over 3 generations" in card and "| 3 | 384 | generation 2 |" in card


def test_the_distillation_keeps_the_anchor_move_inside_the_margin():
    """Values where one move beats greedy's clearly but the anchor's (the last generation's
    move) only within the margin: distilled from greedy's anchor the policy learns the best
    move, from the given anchor it learns the anchor's."""
    n_obs, n_act = 12, 6
    rng, obs, mask, greedy = _positions(2, n_obs, n_act)
    best, anchor = (greedy + 1) % n_act, (greedy + 2) % n_act
    values = np.zeros((T, B, n_act), np.float32)
    np.put_along_axis(values, best[..., None], 1.0, -1)
    np.put_along_axis(values, anchor[..., None], 0.95, -1)
    cfg = TrainConfig(game="bharg", prior="greedy", distil=1.0, switch_margin=0.1, epochs=4, minibatches=2,
                      ent_coef=0.0, vf_coef=0.0)
    zeros, ones = np.zeros((T, B), np.float32), np.ones((T, B), bool)
    for base, want in ((None, best), (anchor, anchor)):
        torch.manual_seed(2)
        agent = Agent(n_obs, n_act, 32, prior=True, bonus=3.0)
        opt = torch.optim.Adam(agent.parameters(), lr=3e-3)
        for _ in range(30):
            stats = _update(agent, opt, cfg, obs, mask, greedy, zeros, zeros, zeros, ones, rng, greedy, True,
                            (values, ones), base)
        with torch.no_grad():
            got = agent.actor(torch.from_numpy(obs.reshape(-1, n_obs)),
                              torch.from_numpy(greedy.reshape(-1))).argmax(-1).numpy()
        assert (got == want.reshape(-1)).mean() > 0.95
        # the search left its base move everywhere from greedy's, nowhere from the anchor
        assert stats["search_switch"] == (1.0 if base is None else 0.0)


@pytest.mark.parametrize("weight", [0.0, 1.0, 3.0])
def test_the_search_value_pulls_the_critic_towards_the_value_of_the_searchs_move(weight):
    """With every return 0 and the search's move worth 0.8, the critic's loss
    ``(v - 0)^2 + w (v - 0.8)^2`` is least at ``v = 0.8 w / (1 + w)``."""
    n_obs, n_act = 10, 5
    rng, obs, mask, greedy = _positions(4, n_obs, n_act)
    values = np.full((T, B, n_act), -0.5, np.float32)
    np.put_along_axis(values, greedy[..., None], 0.8, -1)  # the search keeps greedy's move, worth 0.8
    cfg = TrainConfig(game="bharg", prior="greedy", distil=1.0, search_value=weight, epochs=4, minibatches=2,
                      ent_coef=0.0, vf_coef=0.5, max_grad_norm=10.0)
    agent = Agent(n_obs, n_act, 32, prior=True, bonus=3.0)
    opt = torch.optim.Adam(agent.parameters(), lr=3e-3)
    zeros, ones = np.zeros((T, B), np.float32), np.ones((T, B), bool)
    for _ in range(60):
        _update(agent, opt, cfg, obs, mask, greedy, zeros, zeros, zeros, ones, rng, greedy, True,
                (values, ones))
    with torch.no_grad():
        v = agent.critic(torch.from_numpy(obs.reshape(-1, n_obs)), torch.from_numpy(greedy.reshape(-1)))
    assert abs(float(v.mean()) - 0.8 * weight / (1 + weight)) < 0.03


@pytest.mark.parametrize("options, message", [
    ({"generations": 0, "distil": 1.0, "prior": "greedy"}, "--generations is how many times"),
    ({"generations": 2}, "--generations above 1 and --search-value need --distil"),
    ({"search_value": 1.0}, "--generations above 1 and --search-value need --distil")])
def test_expert_iteration_refuses_what_it_cannot_run(tmp_path, options, message):
    cfg = TrainConfig(game="bharg", steps=64, num_envs=8, rollout=8, eval_every=0, out=str(tmp_path),
                      progress=False, **options)
    with pytest.raises(ValueError, match=message):
        train(cfg)


def test_every_train_option_says_what_it_does():
    import argparse

    from setgames.learn.cli import add_arguments

    p = argparse.ArgumentParser()
    add_arguments(p)
    bare = [a.option_strings or a.dest for a in p._actions if not a.help]
    assert bare == []


def test_the_train_choices_are_the_recipes():
    from setgames.bots.ppo import PRIORS
    from setgames.learn.cli import CHOICES
    from setgames.learn.dmc import NETS
    from setgames.learn.ppo import DEVICES

    assert {"prior": tuple(PRIORS), "device": tuple(DEVICES), "net": NETS} == CHOICES


@pytest.mark.parametrize("argv, start", [
    (["train", "bharg", "--config", "foo=1"], "setgames: error: bad config for bharg: "),
    (["train", "bharg", "--config", "num_players=9"], "setgames: error: bad config for bharg: "),
    (["train", "chess"], "setgames: error: unknown game 'chess'; choose from tethsi")])
def test_the_train_command_refuses_a_bad_game_or_config_in_one_line(capsys, tmp_path, argv, start):
    assert main([*argv, "--out", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(start) and "\n" not in err
    assert not (tmp_path / "run").exists()  # refused before the set-up


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has CUDA: --device cuda is allowed")
def test_the_train_command_refuses_cuda_where_there_is_none(capsys, tmp_path):
    assert main(["train", "tethsi", "--device", "cuda", "--out", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err.strip()
    assert err == "setgames: error: --device cuda: torch sees no CUDA device here (try --device cpu or auto)"
    assert not (tmp_path / "run").exists()


def test_device_auto_trains_where_torch_finds_a_device(tmp_path):
    from setgames.learn.ppo import resolve_device

    want = "cuda" if torch.cuda.is_available() else "cpu"
    assert resolve_device("auto").type == want
    with pytest.raises(ValueError, match="is not one of cpu, cuda, auto"):
        resolve_device("tpu")
    cfg = TrainConfig(game="tethsi", steps=2 * 8 * 8, num_envs=8, rollout=8, hidden=8, eval_every=0,
                      device="auto", out=str(tmp_path), progress=False)
    train(cfg)
    assert load_policy(tmp_path / "ppo.npz").layers[0][0].shape[1] == 8


def test_a_policy_trained_on_structure_plays_a_game_made_in_any_mode(tmp_path):
    from setgames.game import rng_from_seed

    cfg = TrainConfig(game="bharg", config={"num_players": 2, "obs": "structure"}, steps=16 * 8, num_envs=16,
                      rollout=8, hidden=8, eval_every=0, out=str(tmp_path), progress=False)
    train(cfg)
    cards, structure = make_game("bharg", num_players=2), make_game("bharg", num_players=2, obs="structure")
    a, b = PpoBot(0, weights=str(tmp_path / "ppo.npz")), PpoBot(0, weights=str(tmp_path / "ppo.npz"))
    state = cards.new_state(rng_from_seed(2))
    moves = 0
    while not cards.is_over(state) and moves < 60:
        seat = cards.current_seat(state)
        # the same state, seen by the policy in its own mode whichever mode the game was made in
        move = a.act(cards, state, seat)
        assert move == b.act(structure, state, seat) and move in cards.legal_actions(state)
        cards.apply(state, move)
        moves += 1
    assert moves > 0
