"""The attention encoder over the event rows (``setgames.learn.encoder``) and the DMC learner
with it (``--net attention``): the torch module equals the numpy one the bot runs, on real
history observations of every game; its weights file round-trips and is checked against the
game; the command line refuses it where there are no event rows. (Q's ways of scoring with the
encoder: ``test_dmc.py``.)"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from setgames.bots.dmc import DmcBot, load_dmc  # noqa: E402
from setgames.bots.event_encoder import event_layout  # noqa: E402
from setgames.bots.ppo import WeightsError  # noqa: E402
from setgames.cli import main  # noqa: E402
from setgames.game import rng_from_seed  # noqa: E402
from setgames.learn.dmc import DmcConfig, QNet, train_dmc  # noqa: E402
from setgames.learn.encoder import EventAttention  # noqa: E402
from setgames.registry import make_game  # noqa: E402

CONFIGS = [("tethsi", {}), ("bharg", {"num_players": 3}), ("tusac", {"num_players": 2})]


def history_obs(game, n: int, seed: int) -> np.ndarray:
    """``n`` observations of random play, from every seat, early and late in the games."""
    rng = np.random.default_rng(seed)
    out = []
    state = game.new_state(rng_from_seed(seed))
    while len(out) < n:
        if game.is_over(state):
            state = game.new_state(rng_from_seed(int(rng.integers(1 << 30))))
        out.append(game.observe(state, int(rng.integers(game.num_players))))
        legal = game.legal_actions(state)
        game.apply(state, int(legal[rng.integers(len(legal))]))
    return np.stack(out)


@pytest.mark.parametrize("name, config", CONFIGS)
def test_the_torch_encoder_equals_the_numpy_one_on_real_histories(name, config):
    game = make_game(name, obs="history", **config)
    torch.manual_seed(1)
    enc = EventAttention(event_layout(game.obs_spec), embed=8, heads=3)
    obs = history_obs(game, 60, seed=2)
    assert (obs[:, game.obs_spec.slices["event_count"]] > 0).any()
    got = enc(torch.from_numpy(obs).float()).detach().numpy()
    want = enc.numpy().encode(obs)
    assert got.shape == want.shape == (60, enc.out_size)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_a_short_attention_run_writes_a_policy_the_bot_plays_and_checks(tmp_path):
    cfg = DmcConfig(game="tusac", config={"num_players": 2, "obs": "history"}, steps=16 * 8 * 2, num_envs=16,
                    rollout=8, hidden=8, embed=4, heads=2, net="attention", seed=3, eval_every=0,
                    out=str(tmp_path / "a"), progress=False)
    s = train_dmc(cfg)
    policy = load_dmc(s["weights"], make_game("tusac", num_players=2, obs="history"))
    assert policy.encoder is not None and policy.encoder.heads == 2
    assert "attention encoder" in (tmp_path / "a" / "dmc.md").read_text()
    game = make_game("tusac", num_players=2)  # the bot plays a game made in the default mode too
    bot = DmcBot(0, game_name="tusac", weights=s["weights"])
    state = game.new_state(rng_from_seed(5))
    for _ in range(60):
        if game.is_over(state):
            break
        move = bot.act(game, state, game.current_seat(state))
        assert move in game.legal_actions(state)
        game.apply(state, move)
    with pytest.raises(WeightsError, match="trained for"):  # another player count: another layout
        load_dmc(s["weights"], make_game("tusac", num_players=3, obs="history"))


def test_a_file_whose_encoder_does_not_fit_is_refused(tmp_path):
    game = make_game("tethsi", obs="history")
    torch.manual_seed(0)
    net = QNet(game.obs_spec.size, game.action_spec.size, hidden=8,
               encoder=EventAttention(event_layout(game.obs_spec), 4, 2))
    meta = {"game": "tethsi", "version": game.version, "obs_size": game.obs_spec.size,
            "row_size": game.action_spec.size, "num_actions": game.num_actions,
            "config": {"obs": "history"}, "library_version": "test"}
    path = net.policy(meta).save(tmp_path / "ok.npz")
    assert load_dmc(path, game).encoder is not None
    files = dict(np.load(path))
    files["enc_layout"] = files["enc_layout"].copy()
    files["enc_layout"][1] += 1  # one more event than the columns hold
    np.savez(tmp_path / "bad.npz", **files)
    with pytest.raises(WeightsError, match="not a dmc weights file"):
        load_dmc(tmp_path / "bad.npz")
    files = dict(np.load(path), meta_format=np.array(3))  # a format from a later library
    np.savez(tmp_path / "later.npz", **files)
    with pytest.raises(WeightsError, match="has dmc format 3, this library reads 1 and 2"):
        load_dmc(tmp_path / "later.npz")


@pytest.mark.parametrize("argv, words", [
    (["--net", "attention"], "--net attention: the attention encoder reads the history mode's event rows"),
    (["--net", "attention", "--config", "obs=structure"], "make the game with obs='history'"),
    (["--heads", "2"], "--heads: an option of --algo dmc, not of --algo ppo")])
def test_attention_without_event_rows_is_refused_in_one_line(capsys, tmp_path, argv, words):
    algo = [] if "--heads" in argv else ["--algo", "dmc"]
    assert main(["train", "tethsi", *algo, *argv, "--out", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err.strip()
    assert words in err and "\n" not in err
    assert not (tmp_path / "run").exists()
