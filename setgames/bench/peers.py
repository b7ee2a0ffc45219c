"""The peers, timed by the same loop and the same sampler (where installed).

- PettingZoo classic card games (``texas_holdem_v4``, ``leduc_holdem_v4``;
  need ``rlcard`` and ``pygame``): bare ``raw_env`` and the ``env()`` behind
  PettingZoo's standard wrappers, through :func:`~setgames.bench.envs.aec_play`,
  seeded on the first game only (a seeded reset rebuilds the whole rlcard env).
  (PettingZoo 1.27 no longer ships ``gin_rummy_v4``.)
- OpenSpiel ``gin_rummy`` through ``pyspiel`` (C++), with and without the
  acting player's observation tensor each step; chance nodes (deals, draws)
  are sampled by their probabilities and are not counted as steps.
- pgx ``sparrow_mahjong`` on CPU: ``jit(vmap(step))`` with auto-reset over a
  batch, a masked uniform random action drawn inside the jitted step; a step
  of the batch counts ``batch`` steps.

Each peer missing from the environment is skipped with a note, never an error.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from setgames.bench.envs import Case, aec_play
from setgames.bench.sampler import LegalSampler

__all__ = ["PGX_BATCH", "PGX_STEPS_PER_CALL", "peer_cases"]

PGX_BATCH = 1024  # envs stepped together by pgx (the reference figure)
PGX_STEPS_PER_CALL = 16  # batched steps per timed unit of work (one host sync each)
PZ_PEERS = ("texas_holdem_v4", "leduc_holdem_v4")


def _pettingzoo_cases() -> tuple[list[Case], list[str]]:
    cases, notes = [], []
    for name in PZ_PEERS:
        try:
            mod = importlib.import_module(f"pettingzoo.classic.{name}")
        except Exception as exc:  # rlcard/pygame missing raise various errors
            notes.append(f"PettingZoo {name}: skipped ({type(exc).__name__}: {exc})")
            continue
        cases.append(Case("peers", f"PettingZoo {name} raw_env", "peer",
                          lambda s, m=mod: aec_play(m.raw_env(), LegalSampler(s), seed_every_game=False),
                          note="rlcard-based, bare; seeded once"))
        cases.append(Case("peers", f"PettingZoo {name} env()", "peer",
                          lambda s, m=mod: aec_play(m.env(), LegalSampler(s), seed_every_game=False),
                          note="standard wrappers; seeded once"))
    return cases, notes


def _openspiel_run(pyspiel: Any, observe: bool, seed: int) -> Callable[[int], tuple[int, int]]:
    import random

    game = pyspiel.load_game("gin_rummy")
    sampler = LegalSampler(seed)
    chance_rng = random.Random(seed)

    def run(seed: int) -> tuple[int, int]:
        chance_rng.seed(seed)
        state = game.new_initial_state()
        n = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                actions = [a for a, _ in outcomes]
                weights = [p for _, p in outcomes]
                state.apply_action(chance_rng.choices(actions, weights)[0])
                continue
            if observe:
                state.observation_tensor(state.current_player())
            state.apply_action(sampler.from_list(state.legal_actions()))
            n += 1
        return n, 1

    return run


def _openspiel_cases() -> tuple[list[Case], list[str]]:
    try:
        pyspiel = importlib.import_module("pyspiel")
        pyspiel.load_game("gin_rummy")
    except Exception as exc:
        return [], [f"OpenSpiel gin_rummy: skipped ({type(exc).__name__}: {exc})"]
    return [
        Case("peers", "OpenSpiel gin_rummy (obs tensor)", "peer",
             lambda s: _openspiel_run(pyspiel, True, s), note="C++ via pyspiel, observation_tensor"),
        Case("peers", "OpenSpiel gin_rummy (no obs)", "peer",
             lambda s: _openspiel_run(pyspiel, False, s), note="C++ via pyspiel"),
    ], []


def _pgx_run(batch: int, seed: int) -> Callable[[int], tuple[int, int]]:
    import jax
    import jax.numpy as jnp
    import pgx
    from pgx.experimental import auto_reset

    env = pgx.make("sparrow_mahjong")
    step = auto_reset(env.step, env.init)

    def one(state: Any, key: Any) -> Any:
        k_act, k_step = jax.random.split(key)
        logits = jnp.where(state.legal_action_mask, 0.0, -jnp.inf)
        action = jax.random.categorical(k_act, logits)
        return step(state, action, k_step)

    vstep = jax.vmap(one)

    @jax.jit
    def many(state: Any, key: Any) -> tuple[Any, Any]:
        def body(carry: tuple[Any, Any], k: Any) -> tuple[tuple[Any, Any], Any]:
            st, ended = carry
            st = vstep(st, jax.random.split(k, batch))
            return (st, ended + st.terminated.sum()), None

        (state, ended), _ = jax.lax.scan(body, (state, jnp.int32(0)),
                                         jax.random.split(key, PGX_STEPS_PER_CALL))
        return state, ended

    key = jax.random.PRNGKey(seed)
    state = jax.jit(jax.vmap(env.init))(jax.random.split(key, batch))
    box = {"state": state}

    def run(seed: int) -> tuple[int, int]:
        st, ended = many(box["state"], jax.random.PRNGKey(seed))
        ended = int(ended)  # waits for the device
        box["state"] = st
        return batch * PGX_STEPS_PER_CALL, ended

    return run


def _pgx_cases() -> tuple[list[Case], list[str]]:
    try:
        importlib.import_module("jax")
        importlib.import_module("pgx")
    except Exception as exc:
        return [], [f"pgx sparrow_mahjong: skipped ({type(exc).__name__}: {exc})"]
    built: dict[str, Callable[[int], tuple[int, int]]] = {}

    def make_run(seed: int) -> Callable[[int], tuple[int, int]]:
        # Compiled once and reused by every repeat (a jit compile takes seconds).
        if "run" not in built:
            built["run"] = _pgx_run(PGX_BATCH, seed)
        return built["run"]

    return [Case("peers", f"pgx sparrow_mahjong (CPU, batch {PGX_BATCH})", "peer", make_run,
                 note=f"jit(vmap) + auto_reset, {PGX_STEPS_PER_CALL} steps per host sync")], []


def peer_cases(names: tuple[str, ...] = ("pettingzoo", "openspiel", "pgx")) -> tuple[list[Case], list[str]]:
    """Cases for the installed peers among ``names``; returns ``(cases, notes)``."""
    build = {"pettingzoo": _pettingzoo_cases, "openspiel": _openspiel_cases, "pgx": _pgx_cases}
    cases: list[Case] = []
    notes: list[str] = []
    for name in names:
        c, n = build[name]()
        cases += c
        notes += n
    return cases, notes
