"""Compiled paths run in a fresh process, replayed here with the rules layer and the Python bots.

A compiled bot whose tables some Python module fills as a side effect of being
imported plays another game in a process that never made that import (issue
#34: Tu Sac's batch melded pairs where the greedy bot melds sets). A test in
this process cannot see that, since the test imports the Python bots itself,
so each check here runs the compiled path in a child process importing only
what a user of that path imports (the batch, or the env), saves what it saw,
and this process replays the same games with the rules layer and the Python
bots (the reference), position by position.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from setgames import registry
from setgames.batch import seeds
from setgames.bots.registry import greedy_class
from setgames.game import rng_from_seed

__all__ = ["ROOT", "play_out", "replay_greedy_batch", "replay_returns", "run_child", "run_env_child"]

ROOT = Path(__file__).resolve().parents[3]  # the checkout: the child imports its in-place build

# Each child script reads its arguments (JSON) from argv[1] and writes an .npz to argv[2], with
# ``loaded``: the modules named ``*.greedy`` its process imported, to show what it did not import.
_PRELUDE = """
import json, sys
import numpy as np
args = json.loads(sys.argv[1])
out = {}
"""
_EPILOGUE = """
out["loaded"] = np.array(sorted(m for m in sys.modules if m.endswith(".greedy")) or [""])
np.savez(sys.argv[2], **out)
"""

_PLAY_CHILD = """
from setgames.registry import make_game
from setgames.batch import make_batch

game = make_game(args["name"], **args["config"])
n, steps = args["num_envs"], args["steps"]
b = make_batch(game, n, seed=args["master"], opponents="greedy", learner_seat="rotate")
b.reset()
rng = np.random.default_rng(args["master"])
rec = {k: [] for k in ("seed", "learner", "obs", "mask", "greedy", "action", "over", "reward")}
actions = np.zeros(n, np.int64)
for _ in range(steps):
    rec["seed"].append(b.game_seed.copy())
    rec["learner"].append(b.learner_seat.copy())
    rec["obs"].append(b.obs.copy())
    rec["mask"].append(b.mask.copy())
    greedy = b.greedy_actions().copy()
    b.sample(rng, actions)  # the outside generator: the slots' sampler streams serve greedy's ties
    actions = np.where(rng.random(n) < 0.5, greedy, actions)  # games like greedy's, with variety
    rec["greedy"].append(greedy)
    rec["action"].append(actions.copy())
    b.step(actions)
    rec["over"].append(b.terminated | b.truncated)
    rec["reward"].append(b.learner_reward.copy())
out.update({k: np.array(v) for k, v in rec.items()})
"""

_RETURNS_CHILD = """
from setgames.registry import make_game
from setgames.batch import make_batch

game = make_game(args["name"], **args["config"])
n, steps, k = args["num_envs"], args["steps"], args["redeals"]
b = make_batch(game, n, seed=args["master"])
b.reset()
rng = np.random.default_rng(args["master"])
rec = {"seed": [], "action": [], "returns": [], "redealt": [], "features": []}
actions = np.zeros(n, np.int64)
for _ in range(steps):
    rec["seed"].append(b.game_seed.copy())
    if args["features"]:
        rec["features"].append(b.greedy_features().copy())
    rec["returns"].append(b.greedy_returns().copy())
    if k:
        rec["redealt"].append(b.greedy_returns(redeals=k).copy())
    b.step(b.sample(rng, actions))
    rec["action"].append(actions.copy())
out.update({key: np.array(v) for key, v in rec.items() if v})
"""

_ENV_CHILD = """
from setgames.wrappers import SingleAgentEnv

env = SingleAgentEnv(args["name"], opponents="greedy", learner_seat="rotate", engine=True, **args["config"])
rng = np.random.default_rng(args["master"])
rec = {"episode": [], "obs": [], "action": [], "reward": [], "over": []}
for episode in range(args["episodes"]):
    obs, info = env.reset(seed=args["master"] if episode == 0 else None)  # seats rotate after one seed
    done = False
    while not done:
        legal = np.flatnonzero(env.action_masks())
        a = int(legal[rng.integers(len(legal))])
        rec["episode"].append(episode)
        rec["obs"].append(obs)
        rec["action"].append(a)
        obs, r, term, trunc, info = env.step(a)
        done = term or trunc
        rec["reward"].append(r)
        rec["over"].append(done)
out.update({k: np.array(v) for k, v in rec.items()})
out["engine"] = np.array(env.engine is not None)
"""


def run_child(body: str, args: dict, timeout: float = 120) -> dict[str, np.ndarray]:
    """Run ``body`` (one of this module's child scripts) in a fresh interpreter at :data:`ROOT`
    and return the arrays it saved; its error output in the assertion when it fails."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "out.npz"
        script = _PRELUDE + body + _EPILOGUE
        proc = subprocess.run([sys.executable, "-c", script, json.dumps(args), str(path)],
                              cwd=ROOT, capture_output=True, text=True, timeout=timeout)
        assert proc.returncode == 0, proc.stderr[-3000:]
        with np.load(path) as data:
            return {k: data[k] for k in data.files}


def _loaded(rec: dict[str, np.ndarray]) -> set[str]:
    return {m for m in rec["loaded"].tolist() if m}


def play_out(game, state, action, bot):
    """The acting seat's rewards from ``action`` on, ``bot`` playing every seat to the end."""
    seat = game.current_seat(state)
    state = game.clone(state)
    total = 0.0
    a = action
    while True:
        rewards = game.apply(state, a)
        if rewards is not None:
            total += rewards[seat]
        if game.is_over(state):
            return total
        a = bot.act(game, state, game.current_seat(state))


def replay_greedy_batch(name: str, config: dict, num_envs: int, steps: int,
                        master: int) -> tuple[int, set[str]]:
    """Step a batch with ``opponents="greedy"`` in a fresh process and replay every slot here: at
    each of the learner's positions its observation, mask and ``greedy_actions()`` move are the
    rules layer's and the Python greedy bot's, after the Python bot played the other seats;
    rewards and game ends agree. Returns the positions compared (the learner's and the
    opponents') and the ``*.greedy`` modules the child had imported."""
    rec = run_child(_PLAY_CHILD, {"name": name, "config": config, "num_envs": num_envs, "steps": steps,
                                  "master": master})
    game = registry.make_game(name, **config)
    bot_class = greedy_class(name)
    # greedy_actions() breaks Tet Hsi's ties from the slot's sampler stream: one bot per slot,
    # seeded alike, asked at the same positions, draws the same numbers.
    experts = [bot_class(seeds.tag_seed(seeds.slot_seed(master, i), seeds.TAG_SAMPLER))
               for i in range(num_envs)]
    slots: list[dict] = [{"seed": None} for _ in range(num_envs)]
    positions = 0

    def opponents(s):
        nonlocal positions
        while not game.is_over(s["state"]) and game.current_seat(s["state"]) != s["learner"]:
            seat = game.current_seat(s["state"])
            rewards = game.apply(s["state"], s["bot"].act(game, s["state"], seat))
            positions += 1
            if rewards is not None:
                s["reward"] += rewards[s["learner"]]

    for t in range(steps):
        for i, s in enumerate(slots):
            where = f"slot {i} step {t}"
            seed = int(rec["seed"][t, i])
            if seed != s["seed"]:  # the slot's next game (Tu Sac skips deals over before the learner acts)
                assert t == 0 or bool(rec["over"][t - 1, i]), where
                s.update(seed=seed, learner=int(rec["learner"][t, i]), reward=0.0,
                         state=game.new_state(rng_from_seed(seed)),
                         bot=bot_class(seeds.tag_seed(seed, seeds.TAG_OPPONENTS)))
                opponents(s)
            state, learner = s["state"], s["learner"]
            assert not game.is_over(state) and game.current_seat(state) == learner, where
            np.testing.assert_array_equal(rec["obs"][t, i], game.observe(state, learner), err_msg=where)
            np.testing.assert_array_equal(rec["mask"][t, i], game.legal_mask(state), err_msg=where)
            assert rec["greedy"][t, i] == experts[i].act(game, state, learner), where
            positions += 1
            s["reward"] = 0.0
            rewards = game.apply(state, int(rec["action"][t, i]))
            if rewards is not None:
                s["reward"] += rewards[learner]
            opponents(s)
            assert bool(rec["over"][t, i]) == game.is_over(state), where
            assert np.isclose(rec["reward"][t, i], s["reward"], rtol=1e-5, atol=1e-6), where
            if game.is_over(state):
                s["seed"] = None
    return positions, _loaded(rec)


def replay_returns(name: str, config: dict, num_envs: int, steps: int, master: int,
                   redeals: int = 0, features: bool = False) -> tuple[int, set[str]]:
    """A self-play batch's ``greedy_returns()`` (and with ``redeals``, ``greedy_returns(redeals=k)``;
    with ``features``, ``greedy_features()``) in a fresh process, at every position of its random
    games, against the rules layer: the Python greedy bot's play-outs of each legal action (over
    ``game.determinize`` re-deals drawn from the slot's sampler stream, as the batch draws them)
    and the game's Python ``greedy_features``. Returns the actions (or feature rows) compared and
    the ``*.greedy`` modules the child had imported."""
    rec = run_child(_RETURNS_CHILD, {"name": name, "config": config, "num_envs": num_envs, "steps": steps,
                                     "master": master, "redeals": redeals, "features": features})
    game = registry.make_game(name, **config)
    feature_fn = registry.part(name, "greedy_features") if features else None
    # The slot's sampler stream draws Tet Hsi's ties and the re-deals in play-out order.
    bots = [greedy_class(name)(seeds.tag_seed(seeds.slot_seed(master, i), seeds.TAG_SAMPLER))
            for i in range(num_envs)]
    states: list = [None] * num_envs
    compared = 0
    for t in range(steps):
        for i in range(num_envs):
            where = f"slot {i} step {t}"
            seed = int(rec["seed"][t, i])
            if t == 0 or seed != int(rec["seed"][t - 1, i]):
                states[i] = game.new_state(rng_from_seed(seed))
            state = states[i]
            seat = game.current_seat(state)
            legal = game.legal_actions(state)
            if features:
                want = feature_fn(game, state, seat)
                np.testing.assert_allclose(rec["features"][t, i].reshape(want.shape), want, rtol=1e-6,
                                           err_msg=where)
                compared += 1
            want = np.zeros(game.num_actions, np.float32)
            for a in legal:
                want[a] = play_out(game, state, a, bots[i])
            np.testing.assert_allclose(rec["returns"][t, i], want, rtol=1e-6, err_msg=where)
            compared += len(legal)
            if redeals:
                mean = np.zeros(game.num_actions, np.float64)
                for _ in range(redeals):
                    deal = game.determinize(state, seat, bots[i].rng)
                    # What the seat has seen stays as it was: the re-deal moves hidden cards only.
                    np.testing.assert_array_equal(game.observe(deal, seat), game.observe(state, seat),
                                                  err_msg=where)
                    for a in legal:
                        mean[a] += play_out(game, deal, a, bots[i])
                np.testing.assert_allclose(rec["redealt"][t, i], mean / redeals, rtol=1e-5, atol=1e-6,
                                           err_msg=where)
                compared += len(legal)
            game.apply(state, int(rec["action"][t, i]))
    return compared, _loaded(rec)


def run_env_child(name: str, config: dict, episodes: int, master: int) -> tuple[int, set[str]]:
    """``SingleAgentEnv(opponents="greedy")`` on the compiled engine in a fresh process importing
    only the env, against the same env on the rules layer here (``engine=False``: the Python
    greedy bot moves the opponents): the same observations and rewards at every step of the
    same episodes. Returns the steps compared and the ``*.greedy`` modules the child imported."""
    from setgames.wrappers import SingleAgentEnv

    rec = run_child(_ENV_CHILD, {"name": name, "config": config, "episodes": episodes, "master": master})
    assert bool(rec["engine"]), "the child's env did not step the compiled engine"
    env = SingleAgentEnv(name, opponents="greedy", learner_seat="rotate", engine=False, **config)
    t = 0
    for episode in range(episodes):
        obs, _ = env.reset(seed=master if episode == 0 else None)
        done = False
        while not done:
            where = f"episode {episode} step {t}"
            assert rec["episode"][t] == episode, where
            np.testing.assert_array_equal(rec["obs"][t], obs, err_msg=where)
            obs, r, term, trunc, _ = env.step(int(rec["action"][t]))
            done = term or trunc
            assert np.isclose(rec["reward"][t], r, rtol=1e-5, atol=1e-6) and rec["over"][t] == done, where
            t += 1
    assert t == len(rec["action"])
    return t, _loaded(rec)
