"""The Deep Monte-Carlo learner: its targets (each decision's return to its game's end), its
network's two ways of scoring, the numpy policy it ships, and the command line's refusals."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from setgames.bots.dmc import DmcBot, load_dmc  # noqa: E402
from setgames.bots.event_encoder import event_layout  # noqa: E402
from setgames.bots.ppo import WeightsError  # noqa: E402
from setgames.cli import main  # noqa: E402
from setgames.learn import cli  # noqa: E402
from setgames.learn.dmc import DmcConfig, QNet, _Positions, train_dmc  # noqa: E402
from setgames.learn.encoder import EventAttention  # noqa: E402
from setgames.registry import GAME_NAMES, make_game  # noqa: E402
from tests.setgames.learn.test_encoder import history_obs  # noqa: E402


def test_a_decisions_target_is_its_games_rewards_from_that_decision_on():
    # Two slots, rewards by hand: slot 0 plays a game of 3 decisions (rewards 0, 1, -3: the
    # first decision's return is -2, the second's -2, the last's -3) then starts another;
    # slot 1's game of 4 decisions is still running, so none of its decisions is fitted yet.
    store = _Positions(obs_size=1, row_size=1)
    rewards = {0: [0.0, 1.0, -3.0], 1: [0.5, 0.0, 0.0]}
    total = np.zeros(2, np.float32)
    episode = np.array([0, 1])
    for t in range(3):
        obs = np.array([[t], [10 + t]], np.int8)
        store.add([obs], [obs], [episode.copy()], [total.copy()])
        total += [rewards[0][t], rewards[1][t]]
    store.end(np.array([0]), total[:1])
    obs, _, target = store.take_done()
    assert obs[:, 0].tolist() == [0, 1, 2]
    assert target.tolist() == [-2.0, -2.0, -3.0]
    assert store.episode.tolist() == [1, 1, 1]  # slot 1's decisions wait for their game's end
    store.end(np.array([1, 5000]), np.array([0.5, 1.0]))  # the table grows for a far episode id
    assert store.take_done()[2].tolist() == [0.5, 0.0, 0.0]
    # a running episode's id beyond the table (its game has not ended): it waits, nothing breaks
    store.add([obs[:1]], [obs[:1]], [np.array([9000])], [np.zeros(1, np.float32)])
    assert store.take_done()[2].size == 0 and store.episode.tolist() == [9000]


@pytest.mark.parametrize("net_kind", ["mlp", "attention"])
def test_scoring_every_row_at_once_equals_scoring_each_and_the_numpy_policy_agrees(net_kind):
    torch.manual_seed(0)
    if net_kind == "mlp":
        net = QNet(obs_size=7, row_size=3, hidden=16)
        obs = torch.randint(-2, 3, (5, 7)).float()
    else:  # the event encoder first, on real history observations
        game = make_game("tethsi", obs="history")
        encoder = EventAttention(event_layout(game.obs_spec), 8, 2)
        net = QNet(game.obs_spec.size, 3, hidden=16, encoder=encoder)
        obs = torch.from_numpy(history_obs(game, 5, seed=4)).float()
    rows = torch.randint(0, 4, (5, 4, 3)).float()
    every = net.all_rows(obs, rows)
    each = torch.stack([net(obs, rows[:, a]) for a in range(4)], 1)
    torch.testing.assert_close(every, each)
    slot, action = torch.tensor([0, 0, 3, 4]), torch.tensor([1, 3, 0, 2])
    torch.testing.assert_close(net.some_rows(obs, rows[slot, action], slot), each[slot, action])
    policy = net.policy({"obs_size": obs.shape[1]})
    for b in range(5):
        got = policy.values(obs[b].numpy().astype(np.int8), rows[b].numpy().astype(np.int8))
        np.testing.assert_allclose(got, every[b].detach().numpy(), rtol=1e-4, atol=1e-5)


def test_the_command_line_defaults_are_the_recipe_defaults():
    fields = {f.name: f.default for f in dataclasses.fields(DmcConfig)
              if f.default is not dataclasses.MISSING}
    shared = {k: cli.DMC_DEFAULTS.get(k, v) for k, v in cli._defaults().items() if k in cli.DMC_SHARED}
    assert {**shared, **cli.DMC_ONLY, "progress": None} == fields


@pytest.mark.parametrize("argv, words", [
    (["--algo", "dmc", "--clip", "0.1"], "--clip: an option of --algo ppo, not of --algo dmc"),
    (["--algo", "dmc", "--prior", "greedy", "--gamma", "0.9"],
     "--gamma, --prior: an option of --algo ppo, not of --algo dmc"),
    (["--epsilon", "0.2"], "--epsilon: an option of --algo dmc, not of --algo ppo")])
def test_an_option_of_the_other_learner_is_refused_in_one_line(capsys, tmp_path, argv, words):
    assert main(["train", "bharg", *argv, "--out", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.endswith(words) and "\n" not in err
    assert not (tmp_path / "run").exists()


def test_dmc_on_a_game_without_action_features_ends_in_one_line(capsys, tmp_path, monkeypatch):
    # Every built-in game has per-action features: stand one in whose config has none.
    real = cli.build_game

    def without_rows(*args):
        game = real(*args)
        game.action_spec = None
        return game

    monkeypatch.setattr(cli, "build_game", without_rows)
    assert main(["train", "bharg", "--algo", "dmc", "--out", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err.strip()
    assert "--algo dmc learns from per-action features, which bharg" in err and "\n" not in err
    assert not (tmp_path / "run").exists()


def _featured() -> list[tuple[str, dict]]:
    out = []
    for name in GAME_NAMES:
        game = make_game(name)
        obs = "structure" if "structure" in getattr(game, "obs_specs", {}) else "cards"
        if make_game(name, **({"obs": obs} if obs != "cards" else {})).action_spec is not None:
            out.append((name, {"obs": obs} if obs != "cards" else {}))
    return out


@pytest.mark.parametrize("game_name, config", _featured() or [pytest.param("none", {}, marks=pytest.mark.skip(
    reason="no game has per-action features yet"))])
def test_a_short_run_writes_a_policy_the_bot_plays_and_the_same_seed_repeats_it(tmp_path, game_name, config):
    def run(seed, name):
        cfg = DmcConfig(game=game_name, config=config, steps=16 * 8 * 3, num_envs=16, rollout=8, hidden=8,
                        seed=seed, eval_every=0, out=str(tmp_path / name), progress=False)
        return train_dmc(cfg)

    s = run(3, "a")
    assert s["env_steps"] == 16 * 8 * 3
    a, b = load_dmc(tmp_path / "a" / "dmc.npz"), load_dmc(run(3, "b")["weights"])
    assert all(np.array_equal(x[0], y[0]) for x, y in zip(a.layers, b.layers, strict=True))
    game = make_game(game_name)  # the bot plays a game made in the default mode too
    bot = DmcBot(0, game_name=game_name, weights=s["weights"])
    from setgames.game import rng_from_seed

    state = game.new_state(rng_from_seed(1))
    for _ in range(40):
        if game.is_over(state):
            break
        seat = game.current_seat(state)
        move = bot.act(game, state, seat)
        assert move in game.legal_actions(state)
        game.apply(state, move)
    with pytest.raises(WeightsError):
        DmcBot(0, game_name=next(n for n in GAME_NAMES if n != game_name), weights=s["weights"])
    assert (tmp_path / "a" / "curve.csv").read_text().splitlines()[0].startswith("update,env_steps")
    assert (tmp_path / "a" / "dmc.md").read_text().startswith("# dmc policy")
