"""SingleAgentEnv on the compiled engines, held to the same env on the rules layer.

The rules layer (``engine=False``) is the expectation: a seeded env on the
engine must give the same observations, masks, rewards, terminations, infos
and outcomes at every step, its opponents (random, greedy through the compiled
copies, policies, the ppo bot) making the same moves with the same draws.
"""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from setgames.bots import Bot, RandomBot
from setgames.bots.registry import greedy_class, make_bot
from setgames.engine import engine_class
from setgames.game import rng_from_seed
from setgames.registry import make_game
from setgames.wrappers import PolicyBot, SingleAgentEnv
from tests.setgames.toy_engine import ToyGameWithEngine
from tests.setgames.toy_game import ToyGame

CONFIGS = [("tethsi", {}), ("bharg", {"num_players": 2}), ("bharg", {"num_players": 3}),
           ("tusac", {"num_players": 2}), ("tusac", {"num_players": 3}), ("tusac", {"num_players": 4})]
IDS = ["tethsi", "bharg-2p", "bharg-3p", "tusac-2p", "tusac-3p", "tusac-4p"]
# Bharg's other options: match play (rewards at each round's end, reshuffles and new
# deals inside an episode), the extra cards, the win reward
OPTION_CONFIGS = [("bharg", {"num_players": 2, "target_score": 40, "pawns": True}),
                  ("bharg", {"num_players": 3, "excuse": True, "courts": True, "reward": "win",
                             "target_score": 120})]
EPISODES = 40  # per learner-seat mode: 3 modes x 4 opponent kinds = 480 episodes a config


def _built(name: str, config: dict) -> bool:
    return engine_class(make_game(name, **config)) is not None


def _needs_engine(name: str, config: dict):
    if not _built(name, config):
        pytest.skip(f"{name}'s compiled engine is not built")


def _obs_policy(obs, mask):
    """A policy that reads its observation: the legal action at (sum of obs) mod (legal count)."""
    legal = np.flatnonzero(mask)
    return int(legal[int(np.asarray(obs, dtype=np.int64).sum()) % len(legal)])


def _opponents(kind: str, name: str, n: int):
    """A fresh opponents argument of ``kind`` (each env gets its own bots)."""
    if kind in ("random", "greedy"):
        return kind
    if kind == "policy":
        return PolicyBot(_obs_policy)
    # mix: a different kind in every seat; 2-player games get the ppo bot where the
    # game ships one, else a seeded RandomBot instance (reseeded by the env)
    if n == 2:
        return ["ppo"] if name == "tethsi" else [RandomBot(3)]
    return ["greedy", PolicyBot(_obs_policy), "random"][: n - 1]


def _plain(x):
    """Infos and outcomes in comparable form (arrays with their dtype)."""
    if isinstance(x, np.ndarray):
        return ("array", x.dtype.str, x.shape, x.tolist())
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    return x


def _trace(env: SingleAgentEnv, seed: int, episodes: int) -> list:
    """Everything the env shows over ``episodes`` episodes of random legal learner play."""
    rng = np.random.default_rng(seed)
    out = []
    obs, info = env.reset(seed=seed)
    for _ in range(episodes):
        out.append(("reset", _plain(obs), _plain(info), env.learner_seat))
        while True:
            mask = env.action_masks()
            legal = np.flatnonzero(mask)
            out.append(("mask", mask.tolist(), env.legal_actions()))
            obs, r, term, trunc, info = env.step(int(legal[rng.integers(len(legal))]))
            assert type(r) is float and type(term) is bool and type(trunc) is bool
            out.append(("step", _plain(obs), r, term, trunc, _plain(info)))
            if term or trunc:
                break
        out.append(("outcome", _plain(env.outcome()), env.action_masks().tolist()))
        obs, info = env.reset()
    return out


@pytest.mark.parametrize("kind", ["random", "greedy", "policy", "mix"])
@pytest.mark.parametrize(("name", "config"), CONFIGS, ids=IDS)
def test_engine_path_shows_what_the_rules_layer_shows_at_every_step(name, config, kind):
    _needs_engine(name, config)
    n = make_game(name, **config).num_players
    for seat_mode in (n - 1, "rotate", "random"):
        for obs_mode in (("flat", "dict") if seat_mode == "rotate" else ("flat",)):
            def make(engine, s=seat_mode, o=obs_mode):
                return SingleAgentEnv(name, opponents=_opponents(kind, name, n), learner_seat=s,
                                      obs_mode=o, engine=engine, **config)

            fast, ref = make(None), make(False)
            assert fast.engine is not None and ref.engine is None
            seed = 17 + len(str(seat_mode))
            assert _trace(fast, seed, EPISODES) == _trace(ref, seed, EPISODES), (seat_mode, obs_mode)


@pytest.mark.parametrize("kind", ["random", "greedy"])
@pytest.mark.parametrize(("name", "config"), OPTION_CONFIGS, ids=["bharg-match", "bharg-3p-match-win"])
def test_engine_path_matches_the_rules_layer_in_match_play(name, config, kind):
    _needs_engine(name, config)
    fast, ref = (SingleAgentEnv(name, opponents=kind, learner_seat="rotate", engine=e, **config)
                 for e in (None, False))
    assert fast.engine is not None
    trace = _trace(ref, 3, 12)
    assert _trace(fast, 3, 12) == trace
    assert max(x[1]["round"] for x in trace if x[0] == "outcome") > 1  # several rounds an episode


def test_the_traces_compared_above_vary():
    # The comparison above means something only if seeds and learner moves change the games.
    a = _trace(SingleAgentEnv("bharg", opponents="greedy", learner_seat="rotate", engine=False), 1, 3)
    b = _trace(SingleAgentEnv("bharg", opponents="greedy", learner_seat="rotate", engine=False), 2, 3)
    assert a != b


@pytest.mark.parametrize(("name", "config"), CONFIGS, ids=IDS)
def test_default_steps_the_engine_with_random_greedy_policy_and_ppo_opponents(name, config):
    _needs_engine(name, config)
    n = make_game(name, **config).num_players
    for opponents in ("random", "greedy", PolicyBot(_obs_policy), _opponents("mix", name, n)):
        assert SingleAgentEnv(name, opponents=opponents, **config).engine is not None, opponents


def test_engine_true_with_an_ismcts_opponent_raises_naming_it():
    _needs_engine("tethsi", {})
    with pytest.raises(ValueError, match=r"engine=True, but opponent IsmctsBot\(.*cannot move on"):
        SingleAgentEnv("tethsi", opponents="ismcts", engine=True)
    with pytest.raises(ValueError, match="opponent IsmctsBot"):
        SingleAgentEnv("bharg", opponents=["greedy", "ismcts"], num_players=3, engine=True)
    # engine=None falls back to the rules layer, silently
    assert SingleAgentEnv("tethsi", opponents="ismcts").engine is None


@pytest.mark.parametrize("engine", [0, 1, "yes", np.bool_(True)])
def test_engine_option_must_be_none_true_or_false(engine):
    with pytest.raises(ValueError, match="engine"):
        SingleAgentEnv(ToyGame, engine=engine)


def test_engine_true_without_a_built_engine_raises():
    with pytest.raises(ValueError, match="no compiled engine"):
        SingleAgentEnv(ToyGame, engine=True)


def test_engine_off_by_the_environment_switch(monkeypatch):
    monkeypatch.setenv("SETGAMES_ENGINE", "0")
    assert SingleAgentEnv("tethsi", opponents="greedy").engine is None


class FirstLegal(Bot):
    """A user's bot: no engine route."""

    name = "first"

    def act(self, game, state, seat):
        return game.legal_actions(state)[0]


def _contrary(name: str):
    base = greedy_class(name)

    class Contrary(base):
        def explain(self, game, state, seat):
            return game.legal_actions(state)[-1], "contrary"

    return Contrary


@pytest.mark.parametrize("name", ["tethsi", "bharg", "tusac"])
def test_a_subclass_that_changes_the_greedy_move_keeps_the_rules_layer_and_its_moves(name):
    _needs_engine(name, {})
    cls = _contrary(name)
    env = SingleAgentEnv(name, opponents=cls(0), learner_seat=1)
    eng = engine_class(env.game)(env.game)
    assert env.engine is None and not cls(0).supports_engine(env.game, eng)
    assert greedy_class(name)(0).supports_engine(env.game, eng)
    for seed in range(5):
        _, info = env.reset(seed=seed)
        # expectation: the rules layer from the same deal, every seat but 1 playing its last legal action
        game = env.game
        state = game.new_state(rng_from_seed(info["game_seed"]))
        while game.current_seat(state) not in (-1, 1):
            game.apply(state, game.legal_actions(state)[-1])
        assert game.to_json(env.state) == game.to_json(state)
    with pytest.raises(ValueError, match="opponent Contrary"):
        SingleAgentEnv(name, opponents=cls(0), engine=True)


def test_random_and_policy_subclasses_that_change_act_lose_the_engine_route():
    class Stubborn(RandomBot):
        def act(self, game, state, seat):
            return game.legal_actions(state)[0]

    class Loud(PolicyBot):
        def act(self, game, state, seat):
            return super().act(game, state, seat)

    game = make_game("tethsi")
    cls = engine_class(game)
    if cls is None:
        pytest.skip("tethsi's compiled engine is not built")
    eng = cls(game)
    assert RandomBot(0).supports_engine(game, eng) and PolicyBot(_obs_policy).supports_engine(game, eng)
    assert not Stubborn(0).supports_engine(game, eng)
    assert not Loud(_obs_policy).supports_engine(game, eng)
    assert not FirstLegal(0).supports_engine(game, eng)


@pytest.mark.parametrize(("name", "config"), CONFIGS, ids=IDS)
def test_pickled_and_copied_env_mid_episode_continue_on_the_engine_identically(name, config):
    _needs_engine(name, config)
    env = SingleAgentEnv(name, opponents="greedy", learner_seat="rotate", **config)
    ref = SingleAgentEnv(name, opponents="greedy", learner_seat="rotate", engine=False, **config)
    for e, rng in ((env, np.random.default_rng(3)), (ref, np.random.default_rng(3))):
        e.reset(seed=9)
        for _ in range(5):
            legal = np.flatnonzero(e.action_masks())
            _, _, term, trunc, _ = e.step(int(legal[rng.integers(len(legal))]))
            if term or trunc:
                e.reset()
    twins = [pickle.loads(pickle.dumps(env)), copy.deepcopy(env)]
    for twin in twins:
        assert twin.engine is not None and twin.engine is not env.engine
        assert twin.game.to_json(twin.state) == ref.game.to_json(ref.state)
        assert np.array_equal(twin.action_masks(), ref.action_masks())
    # the twins, the original and the rules-layer env play on alike (the same learner moves)
    traces = [_continue(e, 11) for e in (*twins, env, ref)]
    assert traces[0] == traces[1] == traces[2] == traces[3]


def _continue(env: SingleAgentEnv, seed: int) -> list:
    """The rest of this episode and two more, from a generator seeded ``seed``."""
    rng = np.random.default_rng(seed)
    out, done_episodes = [], 0
    while done_episodes < 3:
        legal = np.flatnonzero(env.action_masks())
        obs, r, term, trunc, info = env.step(int(legal[rng.integers(len(legal))]))
        out.append((obs.tolist(), r, term, trunc, _plain(info)))
        if term or trunc:
            done_episodes += 1
            out.append(_plain(env.outcome()))
            obs, info = env.reset()
            out.append((obs.tolist(), _plain(info)))
    return out


@pytest.mark.parametrize(("name", "config"), CONFIGS, ids=IDS)
def test_state_is_a_snapshot_and_assigning_it_loads_the_engine(name, config):
    _needs_engine(name, config)
    env = SingleAgentEnv(name, opponents="random", **config)
    ref = SingleAgentEnv(name, opponents="random", engine=False, **config)
    env.reset(seed=5)
    ref.reset(seed=5)
    for _ in range(3):
        assert env.game.to_json(env.state) == ref.game.to_json(ref.state)
        snapshot = env.state
        snapshot_json = env.game.to_json(snapshot)
        a = env.legal_actions()[-1]
        _, _, term, _, _ = env.step(a)
        ref.step(a)
        assert env.game.to_json(snapshot) == snapshot_json  # a snapshot: the step left it as it was
        if term:
            break
    # a state of another game, assigned after a reset: the engine continues from it, as the rules env
    other = SingleAgentEnv(name, opponents="random", engine=False, **config)
    other.reset(seed=6)
    env.reset(seed=7)
    ref.reset(seed=7)
    env.state = other.game.clone(other.state)
    ref.state = other.game.clone(other.state)
    env._update_mask()
    ref._update_mask()
    assert env.engine is not None and np.array_equal(env.action_masks(), ref.action_masks())
    assert _continue(env, 1) == _continue(ref, 1)


@pytest.mark.parametrize(("name", "config"), [CONFIGS[0], CONFIGS[2], OPTION_CONFIGS[0]],
                         ids=[IDS[0], IDS[2], "bharg-match"])
def test_set_opponents_switches_paths_mid_episode_and_the_game_goes_on(name, config):
    _needs_engine(name, config)
    env = SingleAgentEnv(name, opponents="greedy", learner_seat="rotate", **config)
    ref = SingleAgentEnv(name, opponents="greedy", learner_seat="rotate", engine=False, **config)
    n = env.game.num_players
    traces = []
    for e in (env, ref):
        rng = np.random.default_rng(0)
        e.reset(seed=2)
        trace = []
        for step in range(60):
            if step == 2:
                e.set_opponents(FirstLegal(0))  # no engine route: the rules layer from here
                trace.append(e.engine is None)
            if step == 30:
                # the engine again (for env); seeded bots: "random" is unseeded until the next reset
                e.set_opponents([RandomBot(5 + k) for k in range(n - 1)])
                trace.append(e.engine is None)
            legal = np.flatnonzero(e.action_masks())
            obs, r, term, trunc, info = e.step(int(legal[rng.integers(len(legal))]))
            trace.append((obs.tolist(), r, term, trunc, _plain(info)))
            if term or trunc:
                e.reset()
        traces.append(trace)
    assert _without_flags(traces[0]) == _without_flags(traces[1])
    flags = [[x for x in t if isinstance(x, bool)] for t in traces]
    assert flags == [[True, False], [True, True]]  # env: rules layer, then the engine again
    strict = SingleAgentEnv(name, opponents="greedy", engine=True, **config)
    before = strict.opponents
    with pytest.raises(ValueError, match="opponent FirstLegal"):
        strict.set_opponents(FirstLegal(0))
    assert strict.opponents is before and strict.engine is not None


def _without_flags(trace):
    return [x for x in trace if not isinstance(x, bool)]


@pytest.mark.parametrize(("name", "config"), [CONFIGS[0], CONFIGS[5]], ids=[IDS[0], IDS[5]])
def test_an_illegal_opponent_move_on_the_engine_is_worded_as_on_the_rules_layer(name, config):
    _needs_engine(name, config)
    messages = []
    for engine in (None, False):
        env = SingleAgentEnv(name, opponents=PolicyBot(lambda obs, mask: int(np.flatnonzero(mask == 0)[0])),
                             learner_seat=1, engine=engine, **config)
        assert (env.engine is None) == (engine is False)
        refused = r"opponent PolicyBot\(policy\) in seat \d: illegal action"
        with pytest.raises(ValueError, match=refused) as exc:
            for seed in range(20):
                env.reset(seed=seed)
        messages.append(str(exc.value))
    assert messages[0] == messages[1]


def test_illegal_learner_action_on_the_engine_terminates_or_raises_as_on_the_rules_layer():
    _needs_engine("bharg", {})
    out = []
    for engine in (None, False):
        env = SingleAgentEnv("bharg", engine=engine)
        env.reset(seed=1)
        illegal = int(np.flatnonzero(~env.action_masks())[0])
        _, r, term, trunc, info = env.step(illegal)
        out.append((r, term, trunc, _plain(info), env.outcome(), env.legal_actions()))
        env = SingleAgentEnv("bharg", engine=engine, illegal_action="raise")
        env.reset(seed=1)
        with pytest.raises(ValueError) as exc:
            env.step(illegal)
        out.append(str(exc.value))
    assert out[:2] == out[2:] and "illegal action" in out[1]


def test_render_on_the_engine_shows_the_rules_layer_view():
    _needs_engine("tusac", {})
    texts = []
    for engine in (None, False):
        env = SingleAgentEnv("tusac", render_mode="ansi", engine=engine)
        env.reset(seed=3)
        env.step(env.legal_actions()[0])
        texts.append(env.render())
    assert texts[0] == texts[1] and texts[0]


@pytest.mark.parametrize("mode", ["flat", "dict"])
def test_check_env_and_the_toy_engine_path(mode):
    # The toy game's stand-in engine (plain Python): the engine path without a compiler.
    env = SingleAgentEnv(ToyGameWithEngine, obs_mode=mode, learner_seat="rotate", render_mode="ansi")
    assert env.engine is not None
    check_env(env)
    before = env.engine.applied
    ref = SingleAgentEnv(ToyGame, obs_mode=mode, learner_seat="rotate", engine=False)
    assert _trace(env, 4, 30) == _trace(ref, 4, 30)
    assert env.engine.applied > before


def test_ppo_bot_moves_alike_on_both_paths_when_sampling():
    _needs_engine("tethsi", {})
    traces = []
    for engine in (None, False):
        bot = make_bot("ppo", "tethsi", seed=1, sample=True)
        env = SingleAgentEnv("tethsi", opponents=bot, learner_seat="rotate", engine=engine)
        assert (env.engine is None) == (engine is False)
        traces.append(_trace(env, 8, 20))
    assert traces[0] == traces[1]


def test_switching_to_the_engine_mid_match_keeps_what_the_seats_earned():
    # Rounds pay inside a match episode: a round paid on the rules layer must still count
    # in the final info["returns"] after set_opponents moves the game to the engine.
    _needs_engine("bharg", {})
    config = OPTION_CONFIGS[0][1]
    finals = []
    for engine in (None, False):
        env = SingleAgentEnv("bharg", opponents=FirstLegal(0), engine=engine, **config)
        rng = np.random.default_rng(4)
        env.reset(seed=3)
        switched = False
        while not switched:  # episodes until one has a round that pays before the match ends
            env.set_opponents(FirstLegal(0))
            assert env.engine is None
            total = 0.0
            while True:
                legal = np.flatnonzero(env.action_masks())
                _, r, term, trunc, info = env.step(int(legal[rng.integers(len(legal))]))
                total += r
                if term or trunc:
                    break
                if r != 0 and not switched:  # a round ended and paid; the match goes on
                    env.set_opponents(RandomBot(5))
                    switched = True
                    assert (env.engine is None) == (engine is False)
            env.reset()
        assert info["returns"][0] == pytest.approx(total) and total != 0
        finals.append(_plain(info))
    assert finals[0] == finals[1]
