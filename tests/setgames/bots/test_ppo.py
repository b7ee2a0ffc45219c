"""The ppo bot: numpy inference, the weights file's checks, legality and seeding."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from setgames.bots import make_bot
from setgames.bots.ppo import PpoBot, PpoPolicy, WeightsError, _prior_seed, load_policy, weights_path
from setgames.game import rng_from_seed
from setgames.registry import make_game


def _meta(game, changes=None):
    state = game.new_state(rng_from_seed(0))
    meta = {"game": game.name, "version": game.version, "obs_size": game.observe(state, 0).size,
            "num_actions": game.num_actions, "config": game.config_dict(), "library_version": "test"}
    meta.update(changes or {})
    return meta


def _random_policy(game, seed=0, hidden=16, changes=None):
    meta = _meta(game, changes)
    rng = np.random.default_rng(seed)
    sizes = [meta["obs_size"], hidden, hidden, meta["num_actions"]]
    layers = [(rng.normal(size=(a, b)).astype(np.float32), rng.normal(size=b).astype(np.float32))
              for a, b in itertools.pairwise(sizes)]
    return PpoPolicy(layers, meta)


def _observations(game, n=60, seed=0):
    """Observations of mid-game states reached by random play, with their legal actions."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        state = game.new_state(rng_from_seed(int(rng.integers(1 << 30))))
        while not game.is_over(state) and len(out) < n:
            seat = game.current_seat(state)
            legal = game.legal_actions(state)
            out.append((game.observe(state, seat), legal))
            game.apply(state, legal[int(rng.integers(len(legal)))])
    return out


def test_numpy_logits_equal_the_hand_computed_mlp(tmp_path):
    game = make_game("tethsi")
    policy = load_policy(_random_policy(game).save(tmp_path / "p.npz"), game)
    for obs, _ in _observations(game, 20):
        x = obs.astype(np.float64)
        for i, (w, b) in enumerate(policy.layers):
            x = x @ w.astype(np.float64) + b
            x = np.maximum(x, 0) if i < len(policy.layers) - 1 else x
        np.testing.assert_allclose(policy.logits(obs), x, rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("game_name, prior", [("tethsi", False), ("tethsi", True), ("bharg", True),
                                              ("tusac", True)])
def test_numpy_inference_equals_the_torch_network_on_sampled_observations(game_name, prior, tmp_path):
    torch = pytest.importorskip("torch")
    from setgames.bots.registry import greedy_class
    from setgames.learn.ppo import Agent, masked_logits

    game = make_game(game_name)
    obs_list = _observations(game, 200, seed=3)
    torch.manual_seed(0)
    agent = Agent(obs_list[0][0].size, game.num_actions, 32, prior=prior)
    for p in agent.parameters():  # away from the near-zero init, so the comparison means something
        torch.nn.init.normal_(p, std=0.3)
    # through the file, as the bot reads it
    policy = load_policy(agent.policy(_meta(game)).save(tmp_path / "p.npz"), game)
    assert policy.needs_greedy == prior
    obs = np.stack([o for o, _ in obs_list])
    mask = np.zeros((len(obs_list), game.num_actions), bool)
    greedy = np.zeros(len(obs_list), np.int64)
    for i, (_, legal) in enumerate(obs_list):
        mask[i, legal] = True
        greedy[i] = legal[(7 * i) % len(legal)]  # any legal move stands in for the bot's
    g = torch.from_numpy(greedy) if prior else None
    with torch.no_grad():
        t_logits = agent.actor(torch.from_numpy(obs.astype(np.float32)), g).numpy()
        t_best = masked_logits(torch.from_numpy(t_logits), torch.from_numpy(mask)).argmax(-1).numpy()
    n_logits = policy.logits(obs, greedy if prior else None)
    np.testing.assert_allclose(n_logits, t_logits, rtol=1e-4, atol=1e-4)
    assert (np.where(mask, n_logits, -np.inf).argmax(-1) == t_best).all()
    if prior:  # one observation at a time (the bot's call) gives the same logits
        np.testing.assert_allclose(policy.logits(obs[5], int(greedy[5])), t_logits[5], rtol=1e-4, atol=1e-4)
        with pytest.raises(ValueError, match="greedy"):
            policy.logits(obs)
        # the bot feeds its greedy bot's move
        bot = PpoBot(0, weights=str(tmp_path / "p.npz"))
        state = game.new_state(rng_from_seed(4))
        seat = game.current_seat(state)
        want = greedy_class(game_name)(_prior_seed(0)).act(game, state, seat)  # the bot's own ties
        z = policy.logits(game.observe(state, seat), want)
        legal = game.legal_actions(state)
        assert bot.act(game, state, seat) == legal[int(np.argmax(z[legal]))]


def test_a_greedy_prior_of_the_wrong_shape_is_refused(tmp_path):
    game = make_game("tethsi")
    policy = _random_policy(game)
    hidden = policy.layers[0][0].shape[1]
    policy.prior = (np.zeros((game.num_actions - 1, hidden), np.float32), 1.0)
    with pytest.raises(WeightsError, match="greedy prior"):
        load_policy(policy.save(tmp_path / "bad.npz"), game)


@pytest.mark.parametrize("changes, word", [
    ({"game": "bharg"}, "game"), ({"version": 99}, "version"), ({"obs_size": 17}, "obs_size"),
    ({"num_actions": 5}, "num_actions")])
def test_a_weights_file_for_another_game_version_or_size_is_refused_in_one_line(tmp_path, changes, word):
    game = make_game("tethsi")
    policy = _random_policy(game, changes=changes)  # its layers fit its (false) metadata
    path = policy.save(tmp_path / "other.npz")
    with pytest.raises(WeightsError) as err:
        load_policy(path, game)
    assert word in str(err.value) and "\n" not in str(err.value)
    with pytest.raises(ValueError):
        make_bot("ppo", "tethsi", 0, weights=str(path))


def test_a_file_that_is_not_a_weights_file_is_refused(tmp_path):
    junk = tmp_path / "junk.npz"
    np.savez(junk, x=np.zeros(3))
    text = tmp_path / "text.npz"
    text.write_text("hello")
    for path in (junk, text, tmp_path / "missing.npz"):
        with pytest.raises(WeightsError) as err:
            load_policy(path)
        assert "\n" not in str(err.value)


def test_a_game_without_shipped_weights_is_named_in_the_error():
    from setgames.registry import GameInfo, register, unregister

    register(GameInfo(name="toy", title="Toy", rules="tests.setgames.toy_game:ToyGame"))
    try:
        with pytest.raises(ValueError, match="no ppo weights for game 'toy'; ppo weights ship for tethsi"):
            weights_path("toy")
    finally:
        unregister("toy")


SHIPPED = [("tethsi", {}), ("bharg", {"num_players": 2}), ("bharg", {"num_players": 3}),
           ("tusac", {"num_players": 2}), ("tusac", {"num_players": 3}), ("tusac", {"num_players": 4})]


@pytest.mark.parametrize("game_name, config", SHIPPED)
def test_each_configuration_gets_its_own_small_shipped_policy(game_name, config):
    game = make_game(game_name, **config)
    path = weights_path(game_name, game)
    assert path.stat().st_size < 1_000_000 and path.with_suffix(".md").exists()
    policy = load_policy(path, game)
    assert policy.meta["game"] == game_name and policy.meta["num_actions"] == game.num_actions
    assert policy.meta["config"].get("num_players") == game.config_dict().get("num_players")


def test_the_shipped_files_are_one_per_configuration():
    from setgames.bots.ppo import shipped_weights

    for game_name in ("bharg", "tusac"):
        files = shipped_weights(game_name)
        players = sorted(load_policy(f).meta["config"]["num_players"] for f in files)
        assert players == sorted({c["num_players"] for g, c in SHIPPED if g == game_name})
    # options other than the players pick the closest file; another player count has none
    assert weights_path("bharg", make_game("bharg", num_players=3, excuse=True)).name == "ppo-3p.npz"


def test_a_configuration_without_a_shipped_policy_is_named_in_the_error(monkeypatch):
    from setgames.bots import ppo

    two = weights_path("bharg", make_game("bharg"))
    monkeypatch.setattr(ppo, "shipped_weights", lambda name: [two])
    with pytest.raises(ValueError, match="no shipped ppo weights fit bharg with num_players=3"):
        ppo.weights_path("bharg", make_game("bharg", num_players=3))


def _play(game, bots, seed):
    state = game.new_state(rng_from_seed(seed))
    moves = []
    while not game.is_over(state):
        seat = game.current_seat(state)
        legal = game.legal_actions(state)
        a = bots[seat].act(game, state, seat)
        assert a in legal, f"seed {seed}: {bots[seat]!r} chose illegal {a}"
        moves.append(a)
        game.apply(state, a)
    return moves


def test_the_shipped_bot_plays_only_legal_moves_over_long_runs():
    game = make_game("tethsi")
    total = 0
    for seed in range(40):
        argmax, sampled = PpoBot(seed, "tethsi"), PpoBot(seed, "tethsi", sample=True)
        total += len(_play(game, [argmax, sampled], seed))
        total += len(_play(game, [make_bot("random", "tethsi", seed), argmax], 500 + seed))
    assert total > 40 * 2 * 6


def test_argmax_is_the_best_legal_logit():
    from setgames import registry
    from setgames.bots.registry import greedy_class

    game = make_game("tethsi")
    bot = PpoBot(0, "tethsi")
    policy = load_policy(weights_path("tethsi"), game)
    reference = greedy_class("tethsi")(_prior_seed(0))  # the bot's prior, its ties drawn alike
    features = registry.part("tethsi", "greedy_features")
    state = game.new_state(rng_from_seed(11))
    for _ in range(15):
        if game.is_over(state):
            break
        seat = game.current_seat(state)
        legal = game.legal_actions(state)
        f = features(game, state, seat) if policy.needs_features else None
        z = policy.logits(game.observe(state, seat), reference.act(game, state, seat), f)
        assert bot.act(game, state, seat) == legal[int(np.argmax(z[legal]))]
        game.apply(state, legal[0])


def test_the_bot_is_deterministic_under_a_seed_and_samples_by_its_seed():
    game = make_game("tethsi")
    runs = {}
    for seed in (5, 5, 6):
        bots = [PpoBot(seed, "tethsi", sample=True), PpoBot(seed + 100, "tethsi", sample=True)]
        runs.setdefault(seed, []).append([_play(game, bots, g) for g in range(8)])
    assert runs[5][0] == runs[5][1]
    assert runs[5][0] != runs[6][0]  # the seed drives the sampling (8 games: never all equal by chance)
    bot = PpoBot(1, "tethsi", sample=True)
    bot.reset(3)
    first = _play(game, [bot, PpoBot(0, "tethsi")], 2)
    bot.reset(3)
    assert _play(game, [bot, PpoBot(0, "tethsi")], 2) == first


def test_a_file_for_another_configuration_plays_that_configuration_only(tmp_path):
    three = make_game("bharg", num_players=3)
    path = _random_policy(three).save(tmp_path / "three.npz")
    bot = make_bot("ppo", "bharg", 0, weights=str(path))  # built for the game, checked when it plays
    state = three.new_state(rng_from_seed(0))
    assert bot.act(three, state, three.current_seat(state)) in three.legal_actions(state)
    with pytest.raises(WeightsError, match="bharg"):
        make_bot("ppo", "tethsi", 0, weights=str(path))


@pytest.mark.parametrize("game_name, config, head", [("tethsi", {}, False), ("tethsi", {}, True),
                                                     ("bharg", {"num_players": 2}, False),
                                                     ("bharg", {"num_players": 3}, False)])
def test_a_features_policy_equals_the_torch_network_and_reads_the_games_features(game_name, config, head,
                                                                                  tmp_path):
    """The features prior: the first layer reads the observation then the greedy features; the
    bot computes them on the rules layer and on the engine (the compiled twin), alike. With the
    move head, the numpy head and tie handling equal torch's too."""
    torch = pytest.importorskip("torch")
    from setgames import registry
    from setgames.bots.registry import greedy_class
    from setgames.learn.ppo import Agent

    game = make_game(game_name, **config)
    features = registry.part(game_name, "greedy_features")
    state = game.new_state(rng_from_seed(8))
    n_feat = features(game, state, game.current_seat(state)).size
    obs_size = game.observe(state, game.current_seat(state)).size
    torch.manual_seed(1)
    spec = None
    if head:
        names = registry.part(game_name, "greedy_feature_names")
        spec = (len(names), 8, registry.part(game_name, "greedy_feature_moves"), names.index("greedy_tie"))
    agent = Agent(obs_size + n_feat, game.num_actions, 16, prior=True, head=spec)
    for p in agent.parameters():
        torch.nn.init.normal_(p, std=0.3)
    meta = dict(_meta(game), features=n_feat)
    path = agent.policy(meta).save(tmp_path / "f.npz")
    policy = load_policy(path, game)
    assert policy.needs_features and policy.meta["features"] == n_feat
    assert (policy.head is not None) == head
    bot, twin = PpoBot(3, weights=str(path)), PpoBot(3, weights=str(path))
    reference = greedy_class(game_name)(_prior_seed(3))
    engines = pytest.importorskip(f"{game_name}_env._engine")
    engine = engines.Engine(game)
    engine.load(state)
    assert twin.supports_engine(game, engine)
    moves = ties = 0
    while not game.is_over(state) and moves < 200:
        seat = game.current_seat(state)
        obs = game.observe(state, seat)
        f = features(game, state, seat)
        g = reference.act(game, state, seat)
        with torch.no_grad():
            x = torch.from_numpy(np.concatenate([obs, f.ravel()]).astype(np.float32))[None]
            want = agent.actor(x, torch.tensor([g]))[0].numpy()
        np.testing.assert_allclose(policy.logits(obs, g, f), want, rtol=1e-4, atol=1e-4)
        legal = game.legal_actions(state)
        row = {m: r for r, m in enumerate(spec[2])}.get(legal[0], -1) if head else -1
        if row >= 0 and f[row, spec[3]]:  # a coin toss of greedy's: the other tied move, the same logits
            other = legal[1] if g == legal[0] else legal[0]
            np.testing.assert_allclose(policy.logits(obs, other, f), policy.logits(obs, g, f), rtol=1e-6)
            ties += 1
        a = bot.act(game, state, seat)
        assert a == legal[int(np.argmax(want[legal]))]
        engine.load(state)
        assert twin.act_engine(game, engine, seat) == a  # the compiled features, the same move
        game.apply(state, a)
        moves += 1
    assert moves > 10 and (ties > 0 or not head)
    with pytest.raises(ValueError, match="greedy features"):
        policy.logits(obs, 0)
    with pytest.raises(ValueError, match=f"reads {n_feat} greedy features"):
        policy.logits(obs, 0, np.zeros(n_feat + 1, np.float32))



def test_a_features_file_for_another_features_size_is_refused_in_one_line(tmp_path):
    game = make_game("bharg")
    policy = _random_policy(game)
    w, b = policy.layers[0]
    policy.layers[0] = (np.zeros((w.shape[0] + 7, w.shape[1]), np.float32), b)
    policy.meta["features"] = 7
    path = policy.save(tmp_path / "f7.npz")
    with pytest.raises(WeightsError, match="reads 7 greedy features, bharg gives 235") as info:
        load_policy(path, game)
    assert "\n" not in str(info.value)
    assert load_policy(path).meta["features"] == 7  # without a game, only its own shapes are checked


def test_a_move_head_that_does_not_fit_its_features_is_refused_in_one_line(tmp_path):
    """A head whose rows name actions the game lacks, or whose width disagrees with the
    features, is refused on loading."""
    from setgames.bots.ppo import RowHeadWeights

    game = make_game("tethsi")
    policy = _random_policy(game)
    w, b = policy.layers[0]
    policy.layers[0] = (np.zeros((w.shape[0] + 12, w.shape[1]), np.float32), b)
    policy.meta["features"] = 12  # 4 rows of 3
    layers = [(np.zeros((3, 5), np.float32), np.zeros(5, np.float32)), (np.zeros((5, 1), np.float32),
                                                                           np.zeros(1, np.float32))]
    narrow = [(np.zeros((2, 5), np.float32), layers[0][1]), layers[1]]
    for moves, cols in (([0, 1, 2, game.num_actions], 3), ([0, 1, 2, 3], 2), ([0, 1, 1, 3], 3)):
        policy.head = RowHeadWeights(layers if cols == 3 else narrow, np.array(moves), 10.0, -1)
        path = policy.save(tmp_path / "h.npz")
        with pytest.raises(WeightsError, match="move head does not match") as info:
            load_policy(path)
        assert "\n" not in str(info.value)
    policy.head = RowHeadWeights(layers, np.array([0, 1, 2, 3]), 10.0, 2)
    assert load_policy(policy.save(tmp_path / "ok.npz")).head.tie == 2


def _arrays(game, folder):
    """A good weights file's arrays, to spoil one at a time."""
    path = _random_policy(game).save(folder / "good.npz")
    with np.load(path) as data:
        return dict(data)


def _zip_bomb(path, size=640 * 2**20):
    """A zip whose one member inflates to ``size`` bytes of zeros (a few MB on disk)."""
    import zipfile

    header = np.lib.format.header_data_from_array_1_0(np.zeros(1, np.float32))
    header["shape"] = (size // 4,)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z, z.open("w0.npy", "w", force_zip64=True) as f:
        np.lib.format.write_array_header_1_0(f, header)
        chunk = bytes(2**24)
        for _ in range(size // len(chunk)):
            f.write(chunk)
    return path


@pytest.mark.parametrize("spoil", [
    "empty", "truncated", "w0 0-d", "w0 nan", "b1 inf", "w1 wrong shape", "b0 wrong shape", "w0 strings",
    "w0 complex", "w0 bools", "b0 ints", "meta 2-d", "meta_obs_size float", "header lies", "object array",
    "not npy"])
def test_a_hostile_or_broken_weights_file_is_refused_at_load_in_one_line(tmp_path, spoil):
    import zipfile

    game = make_game("tethsi")
    path = tmp_path / "bad.npz"
    arrays = _arrays(game, tmp_path)
    w0, w1 = arrays["w0"], arrays["w1"]
    edits = {"w0 0-d": {"w0": np.float32(1.0)}, "w0 nan": {"w0": np.where(w0 == w0.flat[0], np.nan, w0)},
             "b1 inf": {"b1": np.full_like(arrays["b1"], np.inf)},
             "w1 wrong shape": {"w1": w1[:-1]}, "b0 wrong shape": {"b0": arrays["b0"][:-1]},
             "w0 strings": {"w0": w0.astype(str)}, "w0 complex": {"w0": w0.astype(np.complex64)},
             "w0 bools": {"w0": w0 > 0}, "b0 ints": {"b0": arrays["b0"].astype(np.int32)},
             "meta 2-d": {"meta_game": np.array([["tethsi"]])},
             "meta_obs_size float": {"meta_obs_size": np.array(float(arrays["meta_obs_size"]))}}
    if spoil == "empty":
        path.write_bytes(b"")
    elif spoil == "truncated":
        np.savez(path, **arrays)
        path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    elif spoil == "header lies":  # a tiny member whose header asks for a 4 GB array
        np.savez(path, **arrays)
        header = np.lib.format.header_data_from_array_1_0(w0)
        header["shape"] = (2**30,)
        with zipfile.ZipFile(path, "a") as z, z.open("e0.npy", "w") as f:
            np.lib.format.write_array_header_1_0(f, header)
            f.write(bytes(64))
    elif spoil == "object array":
        with zipfile.ZipFile(path, "w") as z, z.open("w0.npy", "w") as f:
            np.lib.format.write_array(f, np.array([{}], dtype=object), allow_pickle=True)
    elif spoil == "not npy":
        np.savez(path, **arrays)
        with zipfile.ZipFile(path, "a") as z:
            z.writestr("notes.txt", "hi")
    else:
        np.savez(path, **{**arrays, **edits[spoil]})
    with pytest.raises(WeightsError) as err:
        load_policy(path, game)
    assert "\n" not in str(err.value) and str(path) in str(err.value)
    with pytest.raises(ValueError):
        make_bot("ppo", "tethsi", 0, weights=str(path))


def test_a_zip_bomb_is_refused_before_it_is_inflated(tmp_path):
    import resource

    path = _zip_bomb(tmp_path / "bomb.npz")
    assert path.stat().st_size < 2 * 2**20
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(WeightsError, match="MB"):
        load_policy(path, make_game("tethsi"))
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 200 * 1024  # KB: nothing inflated
