"""Random legal play, timed: rules layer, ``raw_env``, ``env()`` and the null env.

Every case is a ``run(seed) -> (steps, games)`` unit of work: one whole game
for a sequential env, one batch of steps for a batched peer. :func:`measure`
repeats a case until a time budget is spent; :func:`run_cases` measures all
cases of one run round-robin, repeat after repeat, so that every case sees the
same machine load and ratios between cases (to the null env, to ``raw_env``,
to a peer) are paired within a repeat.

The policy is :class:`~setgames.bench.sampler.LegalSampler` everywhere. The
rules layer and the AEC envs draw the same random numbers and index the same
sorted legal list, so with the same seeds they play the very same games.
"""

from __future__ import annotations

import importlib
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from setgames.bench.null_env import null_env_like
from setgames.bench.sampler import LegalSampler
from setgames.engine import engine_class
from setgames.game import Game, rng_from_seed

__all__ = [
    "GAME_CONFIGS",
    "Case",
    "aec_play",
    "engine_play",
    "game_cases",
    "measure",
    "registry_game_cases",
    "rules_play",
    "run_cases",
    "summarize",
]

# Player counts measured per game (issue #8: Bharg and Tu Sac at each count).
GAME_CONFIGS: dict[str, list[dict[str, Any]]] = {
    "tethsi": [{}],
    "bharg": [{"num_players": 2}, {"num_players": 3}],
    "tusac": [{"num_players": 2}, {"num_players": 3}, {"num_players": 4}],
}
CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": time.process_time}
CALIBRATION_GAMES = 16  # rules-layer games played to set the null env's game length


@dataclass
class Case:
    """One thing to time.

    Attributes:
        group: the table group (``"tethsi"``, ``"bharg 3p"``, ``"peers"``...).
        label: the row (``"raw_env"``, ``"env()"``, ``"null env"``, a peer's name).
        kind: ``"rules"``, ``"rules+obs"``, ``"raw_env"``, ``"env"``, ``"null"``,
            ``"null+pz_wrappers"`` or ``"peer"``.
        make_run: builds a fresh ``run(seed) -> (steps, games)`` from a sampler seed.
        game: our game name, or None for peers.
        config: the game config.
        note: one line for the table (observation size, batch size...).
    """

    group: str
    label: str
    kind: str
    make_run: Callable[[int], Callable[[int], tuple[int, int]]]
    game: str | None = None
    config: dict[str, Any] = field(default_factory=dict)
    note: str = ""


def rules_play(game: Game, sampler: LegalSampler, observe: bool = False) -> Callable[[int], tuple[int, int]]:
    """``run(seed)``: one random game on the rules layer alone (with ``observe``:
    the acting seat's observation built every step, as an env would)."""
    legal_actions, apply, current_seat, obs = game.legal_actions, game.apply, game.current_seat, game.observe
    pick = sampler.from_list

    def run(seed: int) -> tuple[int, int]:
        state = game.new_state(rng_from_seed(seed))
        n = 0
        while True:
            legal = legal_actions(state)
            if not legal:
                return n, 1
            if observe:
                obs(state, current_seat(state))
            apply(state, pick(legal))
            n += 1

    return run


def engine_play(game: Game, sampler: LegalSampler) -> Callable[[int], tuple[int, int]]:
    """``run(seed)``: one random game on the game's compiled engine alone (the
    deal as the env makes it: the engine's own ``deal`` where it has one, else
    the rules layer's, loaded; then mask, the acting seat's observation and
    apply each step: the engine's share of an env step)."""
    cls = engine_class(game)
    if cls is None:
        raise ValueError(f"{game.name} has no compiled engine built")
    pick = sampler.from_mask
    eng = cls(game)
    new_state, load, seat_of, mask_of, observe, apply = (
        game.new_state, eng.load, eng.current_seat, eng.mask, eng.observe, eng.apply)
    fb, i8 = np.frombuffer, np.dtype(np.int8)

    deal = getattr(eng, "deal", None)

    def run(seed: int) -> tuple[int, int]:
        if deal is not None:
            deal(rng_from_seed(seed))
        else:
            load(new_state(rng_from_seed(seed)))
        n = 0
        seat = seat_of()
        while seat >= 0:
            mask = fb(mask_of(), i8)
            observe(seat)
            apply(pick(mask))
            seat = seat_of()
            n += 1
        return n, 1

    return run


def aec_play(env: Any, sampler: LegalSampler,
             seed_every_game: bool = True) -> Callable[[int], tuple[int, int]]:
    """``run(seed)``: one random game through the standard AEC loop
    (``agent_iter``, ``last()`` with the observation, ``step``), counting live steps.

    With ``seed_every_game=False`` only the first game is seeded and later ones
    call ``reset()``, as a training loop does (PettingZoo's rlcard envs rebuild
    their whole rlcard env on every seeded reset)."""
    pick = sampler.from_mask
    seeded = [False]

    def run(seed: int) -> tuple[int, int]:
        if seed_every_game or not seeded[0]:
            env.reset(seed=seed)
            seeded[0] = True
        else:
            env.reset()
        last, step = env.last, env.step
        n = 0
        for _agent in env.agent_iter():
            obs, _rew, term, trunc, _info = last()
            if term or trunc:
                step(None)
            else:
                step(pick(obs["action_mask"]))
                n += 1
        return n, 1

    return run


def _standard_wrapped(env: Any) -> Any:
    """``env`` behind the wrappers PettingZoo's classic games use."""
    from pettingzoo.utils import wrappers

    env = wrappers.TerminateIllegalWrapper(env, illegal_reward=-1)
    env = wrappers.AssertOutOfBoundsWrapper(env)
    return wrappers.OrderEnforcingWrapper(env)


def game_cases(name: str, game_cls: type, raw_env_cls: type, env_fn: Callable[..., Any],
               config: dict[str, Any], group: str | None = None,
               with_pz_wrappers: bool = False) -> list[Case]:
    """The cases of one game under one config: rules, rules+obs, raw_env, env(), null env.

    The null env gets the game's spaces and agent count and the mean game
    length of a few calibration games, so reset costs weigh the same.
    """
    group = group or name
    game = game_cls(**config)
    probe = rules_play(game, LegalSampler(0))
    lengths = [probe(10_000 + i)[0] for i in range(CALIBRATION_GAMES)]
    mean_len = max(1, round(sum(lengths) / len(lengths)))
    size = game.obs_spec.size
    has_engine = engine_class(game) is not None
    note = (f"obs {size}, actions {game.num_actions}, {game.num_players} players, "
            + ("compiled engine" if has_engine else "rules layer (no engine built)"))
    cases = [
        Case(group, "rules layer", "rules",
             lambda s, g=game: rules_play(g, LegalSampler(s)), name, config, "no observations"),
        Case(group, "rules + observe", "rules+obs",
             lambda s, g=game: rules_play(g, LegalSampler(s), observe=True), name, config,
             "acting seat's observation every step"),
        Case(group, "raw_env", "raw_env",
             lambda s: aec_play(raw_env_cls(**config), LegalSampler(s)), name, config, note),
        Case(group, "env()", "env",
             lambda s: aec_play(env_fn(**config), LegalSampler(s)), name, config, "lean wrappers"),
        *([Case(group, "engine alone", "engine",
                lambda s, g=game: engine_play(g, LegalSampler(s)), name, config,
                "mask, observe, apply on the compiled engine"),
           Case(group, "raw_env, engine=False", "raw_env_rules",
                lambda s: aec_play(raw_env_cls(engine=False, **config), LegalSampler(s)), name, config,
                "the same env stepping the rules layer")] if has_engine else []),
        Case(group, "null env", "null",
             lambda s: aec_play(null_env_like(raw_env_cls(**config), mean_len), LegalSampler(s)),
             name, config, f"same spaces, {mean_len} steps/game"),
    ]
    if with_pz_wrappers:
        cases.append(Case(
            group, "null env + PettingZoo wrappers", "null+pz_wrappers",
            lambda s: aec_play(_standard_wrapped(null_env_like(raw_env_cls(**config), mean_len)),
                               LegalSampler(s)),
            name, config, "TerminateIllegal + AssertOutOfBounds + OrderEnforcing"))
    return cases


def registry_game_cases(names: list[str] | None = None) -> tuple[list[Case], list[str]]:
    """Cases for our games found through :mod:`setgames.registry`, at every
    player count of :data:`GAME_CONFIGS`; games not importable yet are skipped
    with a note. Returns ``(cases, notes)``."""
    from setgames import registry
    from setgames.aec import make_env

    cases: list[Case] = []
    notes: list[str] = []
    first = True
    for name in names or list(GAME_CONFIGS):
        try:
            game_cls = registry.game_class(name)
            raw_env_cls = registry.env_class(name)
        except (ImportError, AttributeError) as exc:
            notes.append(f"{name}: skipped, not importable ({exc})")
            continue
        env_mod = importlib.import_module(raw_env_cls.__module__)
        env_fn = getattr(env_mod, "env", None) or (lambda c=raw_env_cls, **kw: make_env(c, **kw))
        configs = GAME_CONFIGS[name]
        for config in configs:
            try:
                game_cls(**config)
            except (TypeError, ValueError) as exc:
                notes.append(f"{name} {config}: skipped, config refused ({exc})")
                continue
            group = name if len(configs) == 1 else f"{name} {config.get('num_players')}p"
            cases += game_cases(name, game_cls, raw_env_cls, env_fn, config, group,
                                with_pz_wrappers=first)
            first = False
    return cases, notes


def measure(run: Callable[[int], tuple[int, int]], seconds: float, seed0: int,
            clock: Callable[[], float] = time.perf_counter) -> dict[str, float]:
    """Call ``run(seed0), run(seed0 + 1), ...`` until ``seconds`` have passed
    on ``clock`` (at least once); return steps, games, seconds and the rates.

    ``time.process_time`` (``--clock cpu``) counts only this process's CPU
    time, so a machine shared with other jobs slows the figures less than on
    the wall clock (it still slows them through shared caches and cores)."""
    steps = games = 0
    seed = seed0
    t0 = clock()
    while True:
        s, g = run(seed)
        seed += 1
        steps += s
        games += g
        elapsed = clock() - t0
        if elapsed >= seconds:
            break
    return {"steps": steps, "games": games, "seconds": elapsed,
            "steps_per_s": steps / elapsed, "games_per_s": games / elapsed}


def run_cases(cases: list[Case], repeats: int, seconds: float,
              progress: Callable[[str], None] | None = None,
              clock: Callable[[], float] = time.perf_counter) -> list[list[dict[str, float]]]:
    """Measure every case ``repeats`` times, round-robin; ``runs[i][r]`` is case
    ``i`` in repeat ``r``. A case that raises is recorded as an error and
    dropped from later repeats."""
    runs: list[list[dict[str, Any]]] = [[] for _ in cases]
    broken: set[int] = set()
    for r in range(repeats):
        for i, case in enumerate(cases):
            if i in broken:
                continue
            try:
                run = case.make_run(r)
                run(999_999)  # warm-up game: imports, caches, jit
                runs[i].append(measure(run, seconds, seed0=1_000 * r, clock=clock))
            except Exception as exc:  # a peer failing must not sink the run
                broken.add(i)
                runs[i].append({"error": f"{type(exc).__name__}: {exc}"})
            if progress:
                last = runs[i][-1]
                rate = f"{last['steps_per_s']:,.0f} steps/s" if "steps_per_s" in last else last["error"]
                progress(f"[{r + 1}/{repeats}] {case.group:>12} | {case.label:<32} {rate}")
    return runs


def _stats(values: list[float]) -> dict[str, float]:
    med = statistics.median(values)
    return {"median": med, "min": min(values), "max": max(values),
            "spread_pct": 100.0 * (max(values) - min(values)) / med if med else 0.0}


def _paired_ratio(a: list[dict], b: list[dict]) -> float | None:
    pairs = [x["steps_per_s"] / y["steps_per_s"] for x, y in zip(a, b, strict=False)
             if "steps_per_s" in x and "steps_per_s" in y and y["steps_per_s"]]
    return statistics.median(pairs) if pairs else None


def case_row(case: Case, runs: list[dict[str, Any]]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The fields every summary row of ``case`` starts with (its first error, if any), and
    its measurements that did not fail."""
    good = [x for x in runs if "steps_per_s" in x]
    row: dict[str, Any] = {"group": case.group, "label": case.label, "kind": case.kind,
                           "game": case.game, "config": case.config, "note": case.note,
                           "repeats": len(good)}
    errors = [x["error"] for x in runs if "error" in x]
    if errors:
        row["error"] = errors[0]
    return row, good


def summarize(cases: list[Case], runs: list[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """One JSON-able row per case: medians and spread over repeats, steps per
    game, and the paired ratios ``x_null`` (to the null env of the same game and
    config), ``x_raw_env`` (for ``env()``) and ``x_openspiel`` (to OpenSpiel's
    gin_rummy with observations, when measured)."""
    where = {(c.group, c.kind): i for i, c in enumerate(cases)}
    ospiel = next((i for i, c in enumerate(cases) if c.kind == "peer"
                   and c.label.startswith("OpenSpiel gin_rummy (obs")), None)
    rows = []
    for i, case in enumerate(cases):
        row, good = case_row(case, runs[i])
        if good:
            steps = sum(x["steps"] for x in good)
            games = sum(x["games"] for x in good)
            row["steps_per_s"] = _stats([x["steps_per_s"] for x in good])
            row["runs"] = [{k: x[k] for k in ("steps", "games", "seconds")} for x in good]
            row["games_per_s"] = _stats([x["games_per_s"] for x in good])
            row["steps_per_game"] = steps / games if games else None
            null = where.get((case.group, "null"))
            if null is not None and case.kind != "null" and case.game is not None:
                row["x_null"] = _paired_ratio(runs[i], runs[null])
            raw = where.get((case.group, "raw_env"))
            if case.kind == "env" and raw is not None:
                row["x_raw_env"] = _paired_ratio(runs[i], runs[raw])
            if ospiel is not None and i != ospiel:
                row["x_openspiel"] = _paired_ratio(runs[i], runs[ospiel])
        rows.append(row)
    return rows
