"""Reusable checks for any :class:`~setgames.game.Game` and its env.

The three games' test suites call these, so every game is held to the same
invariants (OpenSpiel's ``random_sim_test`` checklist plus what PettingZoo's
``api_test`` leaves out). Game-specific invariants come in through
``per_step``.
"""

from __future__ import annotations

import hashlib
import json
import pickle
import random
from collections.abc import Callable
from typing import Any

import numpy as np

from setgames.game import Game, rng_from_seed

__all__ = [
    "check_engine_matches_rules",
    "check_env_engine_matches_rules",
    "check_env_mask_matches_rules",
    "check_final_infos",
    "check_random_play",
    "engine_agrees",
    "game_fingerprint",
    "global_rng_untouched",
    "play_env_randomly",
    "play_labels",
    "play_random_game",
    "walk_positions",
]


def play_labels(game: Game, state: Any, labels: list[str], engine: Any = None) -> None:
    """Play the actions named by ``labels`` (``game.str_to_action``) on ``state``, each checked
    legal first, and on ``engine`` too when given (a scripted game of a test)."""
    for label in labels:
        a = game.str_to_action(label)
        assert a in game.legal_actions(state), (label, game.legal_actions(state))
        game.apply(state, a)
        if engine is not None:
            engine.apply(a)


def play_random_game(game: Game, seed: int, policy_seed: int | None = None,
                     max_steps: int = 100_000) -> tuple[Any, list[int]]:
    """Play one game with uniformly random legal actions; return (final state, actions)."""
    state = game.new_state(rng_from_seed(seed))
    rng = np.random.default_rng(seed if policy_seed is None else policy_seed)
    actions: list[int] = []
    while not game.is_over(state):
        legal = game.legal_actions(state)
        a = legal[int(rng.integers(len(legal)))]
        game.apply(state, a)
        actions.append(a)
        if len(actions) > max_steps:
            raise AssertionError(f"seed {seed}: no end after {max_steps} steps")
    return state, actions


def walk_positions(game: Game, bot: Any, games: int, seed: int, bot_share: float = 0.7):
    """Every position of ``games`` games (seeds 0, 1, ...) in which ``bot`` plays a share
    ``bot_share`` of the moves and a uniform random legal move the rest (games like the
    bot's, with variety): yields ``(game_index, state, seat)`` before each move, then plays
    it (the caller must not move ``state``)."""
    rng = np.random.default_rng(seed)
    for g in range(games):
        state = game.new_state(rng_from_seed(g))
        while not game.is_over(state):
            seat = game.current_seat(state)
            yield g, state, seat
            legal = game.legal_actions(state)
            if rng.random() < bot_share:
                a = bot.act(game, state, seat)
            else:
                a = legal[int(rng.integers(len(legal)))]
            game.apply(state, a)


def game_fingerprint(game: Game, seed: int) -> str:
    """Hash of a random game's actions and final state: equal across processes
    exactly when the game is reproducible."""
    state, actions = play_random_game(game, seed)
    blob = json.dumps([actions, game.to_json(state)], sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()


def check_random_play(
    game: Game,
    seeds: range | list[int],
    per_step: Callable[[Game, Any], None] | None = None,
    check_every: int = 1,
    zero_sum: bool = True,
) -> int:
    """Random play with the generic invariants checked after every step.

    After every ``check_every``-th step: the legal list is sorted, unique,
    within range and non-empty while the game runs (empty once it is over);
    the mask equals the legal list; clone and JSON round-trips compare equal;
    ``determinize`` for the acting seat keeps that seat's observation and
    legal actions and changes nothing in the original; observations stay
    within the spec's bounds; ``per_step(game, state)`` holds. At the end:
    returns are finite and (``zero_sum``) sum to zero. Returns the number of
    steps played.
    """
    low, high = game.obs_spec.low, game.obs_spec.high
    steps = 0
    for seed in seeds:
        state = game.new_state(rng_from_seed(seed))
        rng = np.random.default_rng(10_000 + seed)
        det_rng = np.random.default_rng(20_000 + seed)
        while True:
            legal = game.legal_actions(state)
            over = game.is_over(state)
            assert over == (not legal), f"seed {seed}: over={over} but legal={legal}"
            assert (game.current_seat(state) == -1) == over
            if steps % check_every == 0 or over:
                _check_state(game, state, legal, low, high, det_rng, seed)
                if per_step is not None:
                    per_step(game, state)
            if over:
                break
            game.apply(state, legal[int(rng.integers(len(legal)))])
            steps += 1
        ret = np.asarray(game.returns(state), dtype=float)
        assert np.all(np.isfinite(ret)), ret
        if zero_sum:
            assert abs(ret.sum()) < 1e-9, f"seed {seed}: returns {ret} do not sum to zero"
    return steps


def _check_state(game: Game, state: Any, legal: list[int], low: np.ndarray,
                 high: np.ndarray, det_rng: np.random.Generator, seed: int) -> None:
    game.validate(state)  # every state random play reaches is one the validator accepts
    assert legal == sorted(set(legal)), f"seed {seed}: legal list not sorted/unique {legal}"
    assert all(0 <= a < game.num_actions for a in legal)
    mask = game.legal_mask(state)
    assert mask.dtype == np.int8 and np.flatnonzero(mask).tolist() == legal
    twin = game.clone(state)
    assert twin == state and twin is not state
    data = json.loads(json.dumps(game.to_json(state)))
    assert game.from_json(data) == state, f"seed {seed}: JSON round-trip differs"
    for seat in range(game.num_players):
        obs = game.observe(state, seat)
        assert np.all(obs >= low) and np.all(obs <= high), f"seed {seed}: obs out of bounds"
    seat = game.current_seat(state)
    if seat >= 0:
        before = game.to_json(state)
        det = game.determinize(state, seat, det_rng)
        assert game.to_json(state) == before, "determinize changed the original state"
        assert np.array_equal(game.observe(det, seat), game.observe(state, seat)), (
            f"seed {seed}: determinize changed seat {seat}'s observation"
        )
        assert game.legal_actions(det) == legal, f"seed {seed}: determinize changed legal actions"
        game.validate(det)  # search loads these copies into engines without validating them


def play_env_randomly(env: Any, seed: int, policy_seed: int = 0) -> tuple[dict[str, float], dict]:
    """Play one game through an AEC env with uniformly random legal actions (read
    from the mask), the usual ``agent_iter`` loop; return each agent's summed
    rewards and the last ``info`` seen (the outcome once the game is over)."""
    env.reset(seed=seed)
    rng = np.random.default_rng(policy_seed)
    total = dict.fromkeys(env.possible_agents, 0.0)
    info: dict = {}
    for agent in env.agent_iter():
        obs, rew, term, trunc, info = env.last()
        total[agent] += rew
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(len(legal))]))
    return total, info


def check_env_mask_matches_rules(env: Any, seed: int, max_steps: int = 5000) -> None:
    """Random play through an AEC env: at every step the acting agent's mask
    (in the observation and in ``infos``) equals the rules' legal set and is
    not empty; other agents' masks are all zero."""
    env.reset(seed=seed)
    base = env.unwrapped
    rng = np.random.default_rng(seed)
    for _ in range(max_steps):
        agent = env.agent_selection
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            if not env.agents:
                return
            continue
        legal = base.game.legal_actions(base.game_state)
        assert np.flatnonzero(obs["action_mask"]).tolist() == legal and legal
        assert np.array_equal(info["action_mask"], obs["action_mask"])
        for other in env.agents:
            if other != agent:
                assert not env.observe(other)["action_mask"].any()
        env.step(legal[int(rng.integers(len(legal)))])
    raise AssertionError(f"no end after {max_steps} steps")


def engine_agrees(game: Game, state: Any, eng: Any, where: str = "") -> list[int]:
    """Assert that engine ``eng`` and the rules-layer ``state`` agree on everything
    a player or a record can see; return the legal actions."""
    legal = game.legal_actions(state)
    seat = game.current_seat(state)
    assert eng.current_seat() == seat, f"{where}: seat {eng.current_seat()} != {seat}"
    assert eng.legal_actions() == legal, f"{where}: legal {eng.legal_actions()} != {legal}"
    mask = eng.mask()
    assert type(mask) is np.ndarray and mask.dtype == np.int8 and mask.shape == (game.num_actions,)
    assert mask.flags.writeable and mask is not eng.mask(), f"{where}: mask not fresh and writable"
    assert np.flatnonzero(mask).tolist() == legal and set(mask.tolist()) <= {0, 1}, f"{where}: mask"
    for s in range(game.num_players):
        want = game.observe(state, s)
        got = eng.observe(s)
        assert got.dtype == want.dtype and got.shape == want.shape and got.flags.writeable, where
        if not np.array_equal(got, want):
            diff = np.flatnonzero(got != want).tolist()
            raise AssertionError(f"{where}: seat {s}'s observation differs at {diff[:12]}: "
                                 f"engine {got[diff[:12]].tolist()} rules {want[diff[:12]].tolist()}")
    got_json, want_json = eng.to_json(), game.to_json(state)
    if got_json != want_json:
        keys = [k for k in want_json if got_json.get(k) != want_json[k]]
        got_v, want_v = [got_json.get(k) for k in keys][:3], [want_json[k] for k in keys][:3]
        raise AssertionError(f"{where}: to_json differs in {keys}: engine {got_v} rules {want_v}")
    if not legal:
        assert eng.is_truncated() == game.is_truncated(state), f"{where}: is_truncated"
        assert eng.outcome() == game.outcome(state), f"{where}: outcome"
    return legal


def check_engine_matches_rules(game: Game, seeds: range | list[int], engine_cls: type | None = None,
                               reload_every: int = 5, max_steps: int = 100_000) -> int:
    """Differential test of a compiled engine (:mod:`setgames.engine`) against
    ``game``'s rules layer, the reference.

    Plays one random game per seed on both, and after every step compares the
    seat to act, the legal list and mask, every seat's observation, ``to_json``
    and each ``apply``'s return; at the end ``is_truncated`` and ``outcome``.
    Every ``reload_every`` steps the engine is replaced, in turn, by a new one
    loaded from the rules-layer state rebuilt from JSON (``load`` at any point of
    a game) and by a pickled and unpickled copy of itself.
    Returns the number of steps checked.
    """
    from setgames.engine import engine_class

    cls = engine_cls or engine_class(game)
    if cls is None:
        raise AssertionError(f"{game.name}: no compiled engine to check")
    legal_now = game.legal_actions
    steps = 0
    for seed in seeds:
        state = game.new_state(rng_from_seed(seed))
        before = game.to_json(state)
        eng = cls(game)
        eng.load(state)
        assert game.to_json(state) == before, "load changed the rules-layer state"
        pick = random.Random(seed)
        n = 0
        while True:
            legal = engine_agrees(game, state, eng, f"seed {seed} step {n}")
            if not legal:
                break
            a = legal[int(pick.random() * len(legal))]
            want = game.apply(state, a)
            got = eng.apply(a)
            assert got == want, f"seed {seed} step {n}: apply({a}) returned {got}, rules {want}"
            n += 1
            if n % reload_every == 0:
                if (n // reload_every) % 2:
                    eng = cls(game)
                    eng.load(game.from_json(game.to_json(state)))
                else:  # an engine copies and pickles (an env holding one deep-copies)
                    eng = pickle.loads(pickle.dumps(eng))
                now = set(legal_now(state))
                wrong = [*[x for x in range(game.num_actions) if x not in now][:1], -1, game.num_actions]
                before = eng.to_json()
                for bad in wrong:
                    try:
                        eng.apply(bad)
                    except ValueError:
                        pass
                    else:
                        raise AssertionError(f"seed {seed} step {n}: apply({bad}) (illegal) did not raise")
                assert eng.to_json() == before, f"seed {seed} step {n}: an illegal apply changed the engine"
            if n > max_steps:
                raise AssertionError(f"seed {seed}: no end after {max_steps} steps")
        steps += n
    return steps


def _info_shapes(info: dict[str, Any]) -> dict[str, tuple]:
    """Each key's (kind, shape); raises unless every value is a number or a
    numeric array (what a trainer's buffer can store)."""
    out = {}
    for k, v in info.items():
        if isinstance(v, np.ndarray):
            assert v.dtype.kind in "biuf", f"info[{k!r}]: array of dtype {v.dtype}"
            out[k] = ("array", v.dtype.kind, v.shape)
        else:
            assert isinstance(v, (bool, int, float, np.number)), f"info[{k!r}] = {v!r} is not a number"
            out[k] = (type(v).__name__,)
    return out


def check_final_infos(env: Any, seeds: range | list[int]) -> dict[str, tuple]:
    """Random games through an AEC env: every agent's final ``info`` holds
    numbers and numeric arrays only, with the same keys and shapes in every
    game; it is ``game.outcome_info(env.outcome())`` plus the (all-zero)
    mask; its ``returns``, where present, are each agent's summed rewards.
    Returns the common key -> (kind, shape) table."""
    base = env.unwrapped
    shapes: dict[str, tuple] | None = None
    for seed in seeds:
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        total = dict(base.rewards)  # a game over at the deal pays there
        while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
            legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
            for a, r in base.rewards.items():
                total[a] += r
        want = base.game.outcome_info(base.outcome())
        for agent, info in dict(base.infos).items():
            assert not info["action_mask"].any(), f"seed {seed}: {agent}'s final mask"
            rest = {k: v for k, v in info.items() if k != "action_mask"}
            assert _same_info(rest, want), f"seed {seed}: {agent}'s info is not outcome_info(outcome())"
            got = _info_shapes(info)
            shapes = got if shapes is None else shapes
            assert got == shapes, f"seed {seed}: {agent}'s info {got} differs from {shapes}"
        if "returns" in want:
            assert want["returns"].tolist() == [total[a] for a in env.possible_agents], f"seed {seed}"
    assert shapes is not None
    return shapes


def _same_info(x: dict, y: dict) -> bool:
    return x.keys() == y.keys() and all(
        np.array_equal(x[k], y[k]) if isinstance(x[k], np.ndarray) else x[k] == y[k] for k in x)


def check_env_engine_matches_rules(make_env: Callable[..., Any], seeds: range | list[int],
                                   state_every: int = 9) -> int:
    """The same env stepped by its compiled engine (``make_env(engine=True)``)
    and by the rules layer (``make_env(engine=False)``) in lockstep on random
    legal play: every ``last()``, ``rewards``, termination, truncation and info
    must be equal, and every ``state_every`` steps the engine env's ``game_state``
    must be the rules env's. Returns the number of steps checked."""
    fast, ref = make_env(engine=True), make_env(engine=False)
    assert fast.unwrapped.engine is not None and ref.unwrapped.engine is None
    game = ref.unwrapped.game
    steps = 0
    for seed in seeds:
        fast.reset(seed=seed)
        ref.reset(seed=seed)
        pick = random.Random(seed)
        for agent in ref.agent_iter():
            assert fast.agent_selection == agent, f"seed {seed} step {steps}: agent"
            got, want = fast.last(), ref.last()
            where = f"seed {seed} step {steps} ({agent})"
            for key in ("observation", "action_mask"):
                assert np.array_equal(got[0][key], want[0][key]), f"{where}: {key}"
            assert got[1:4] == want[1:4], f"{where}: reward/termination/truncation"
            assert _same_info(got[4], want[4]), f"{where}: info"
            assert fast.rewards == ref.rewards and fast._cumulative_rewards == ref._cumulative_rewards
            if steps % state_every == 0:
                assert game.to_json(fast.unwrapped.game_state) == game.to_json(ref.unwrapped.game_state)
            if want[2] or want[3]:
                action = None
            else:
                legal = np.flatnonzero(want[0]["action_mask"]).tolist()
                action = legal[int(pick.random() * len(legal))]
            fast.step(action)
            ref.step(action)
            steps += 1
        assert not fast.agents
        assert fast.unwrapped.outcome() == ref.unwrapped.outcome(), f"seed {seed}: outcome()"
        assert game.to_json(fast.unwrapped.game_state) == game.to_json(ref.unwrapped.game_state)
    return steps


class global_rng_untouched:
    """Context manager that fails if the body touches ``random`` or ``np.random``'s global state."""

    def __enter__(self) -> global_rng_untouched:
        self._py = random.getstate()
        self._np = np.random.get_state()  # noqa: NPY002 - reading it is the point
        return self

    def __exit__(self, *exc: object) -> None:
        if exc[0] is not None:
            return
        assert random.getstate() == self._py, "the global `random` state was used"
        after = np.random.get_state()  # noqa: NPY002
        assert all(
            np.array_equal(x, y) if isinstance(x, np.ndarray) else x == y
            for x, y in zip(self._np, after, strict=True)
        ), "the global numpy random state was used"
