"""The batched engines timed (issue #17): steps per second of ``Batch.step`` next to ``raw_env``.

For every game config with a batched engine (:func:`setgames.batch.batch_class`),
in one run, round-robin with the other cases so that every ratio is paired
within a repeat: ``raw_env`` with random legal play; ``SingleAgentEnv``
against ``greedy`` (learner steps, the learner uniform over
``action_masks()``) as trainers get it, on the compiled engine with the
compiled greedy bots, and on the rules layer with the Python greedy bots
(``engine=False``, what it stepped before); the batch in self-play with the C sampler
(``Batch.sample`` on each slot's own stream) for B in :data:`BATCH_SIZES` at 1 and 2 threads; the
batch in every other observation mode the game offers (``game.obs_specs``, :mod:`setgames.obs`)
at :data:`MODE_SIZES`, 1 thread, paired with ``cards`` at the same B; the batch with the
learner against the compiled greedy bot inside the step (learner steps); and pgx
sparrow_mahjong (CPU, B=1024, auto-reset) when jax and pgx are importable.

The sweep table (:func:`sweep_table`) puts each config's slot size (``Batch.state_bytes``, the C
state one step reads and writes, and the bytes of its rows in the output arrays) beside its 1-thread
steps/s over :data:`SWEEP_SIZES` and the paired ratios to B=64: a slot that outgrows the caches
shows as a falling ratio. A batch row's steps are slot steps (B per call; with
opponents, learner steps: the opponents' moves inside come on top).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from setgames.bench.envs import GAME_CONFIGS, Case, _paired_ratio, _stats, aec_play, case_row
from setgames.bench.sampler import LegalSampler

__all__ = ["BATCH_SIZES", "MODE_SIZES", "QUICK_SIZES", "SWEEP_SIZES", "THREADS", "batch_cases",
           "batch_table", "batch_targets", "slot_bytes", "summarize_batch", "sweep_table"]

BATCH_SIZES = (1, 64, 1024, 8192, 65536)
QUICK_SIZES = (1, 64)
SWEEP_SIZES = (64, 1024, 8192, 65536)  # the sweep table's columns; its ratios are to the first
MODE_SIZES = (1024, 8192)  # batch sizes the observation modes other than cards are timed at
# The public arrays a step writes a row of per slot (the protocol's, setgames.batch).
_ROW_ARRAYS = ("obs", "final_obs", "mask", "seat", "rewards", "learner_reward", "terminated", "truncated",
               "illegal", "skipped_deals", "game_seed", "game_index", "learner_seat", "final_seed",
               "final_learner_seat")
THREADS = (1, 2)
SLOT_STEPS_PER_CALL = 16_384  # slot steps per timed unit of work (B * calls), so B=1 is timed too
GREEDY_B = 1024
# The least share of cards' steps/s a mode keeps at B=8,192 (structure may cost 2x, history 1.5x).
MODE_COST_GOALS = {"structure": 0.5, "history": 1 / 1.5}


def _batch_run(game: Any, size: int, threads: int, opponents: str | None,
               seed: int) -> Callable[[int], tuple[int, int]]:
    from setgames.batch import make_batch

    b = make_batch(game, size, seed=seed, num_threads=threads, opponents=opponents,
                   learner_seat="rotate" if opponents else 0)
    b.reset()
    out = np.zeros(size, np.int64)
    calls = max(1, SLOT_STEPS_PER_CALL // size)
    step, sample, index = b.step, b.sample, b.game_index

    def run(_seed: int) -> tuple[int, int]:
        before = int(index.sum())
        for _ in range(calls):
            step(sample(None, out))  # each slot's own stream, split over the threads like the step
        return size * calls, int(index.sum()) - before

    return run


def slot_bytes(game: Any) -> dict[str, int | None]:
    """One slot's size in ``game``'s batch: ``state`` (``Batch.state_bytes``, the C game state;
    None for a batch without the attribute) and ``rows`` (its rows of the output arrays)."""
    from setgames.batch import make_batch

    b = make_batch(game, 1)
    rows = sum(getattr(b, name).nbytes for name in _ROW_ARRAYS if hasattr(b, name))
    return {"state": getattr(b, "state_bytes", None), "rows": int(rows)}


def _single_agent_run(game_name: str, config: dict[str, Any], seed: int,
                      engine: bool | None = None) -> Callable[[int], tuple[int, int]]:
    from setgames.wrappers import SingleAgentEnv

    env = SingleAgentEnv(game_name, opponents="greedy", learner_seat="rotate", engine=engine, **config)
    pick = LegalSampler(seed).from_mask

    def run(s: int) -> tuple[int, int]:
        env.reset(seed=s)
        n = 0
        while True:
            _, _, term, trunc, _ = env.step(pick(env.action_masks()))
            n += 1
            if term or trunc:
                return n, 1

    return run


def batch_cases(names: list[str] | None = None, quick: bool = False,
                with_pgx: bool = True) -> tuple[list[Case], list[str]]:
    """The batch benchmark's cases for the games (registry names) with a batched engine;
    returns ``(cases, notes)``."""
    from setgames import registry
    from setgames.batch import batch_class

    sizes = QUICK_SIZES if quick else BATCH_SIZES
    cases: list[Case] = []
    notes: list[str] = []
    for name in names or list(GAME_CONFIGS):
        try:
            game_cls, raw_env_cls = registry.game_class(name), registry.env_class(name)
        except (ImportError, AttributeError) as exc:
            notes.append(f"batch {name}: skipped, not importable ({exc})")
            continue
        for config in GAME_CONFIGS[name]:
            game = game_cls(**config)
            if batch_class(game) is None:
                notes.append(f"batch {name} {config}: no batched engine yet")
                continue
            group = name if len(GAME_CONFIGS[name]) == 1 else f"{name} {config.get('num_players')}p"
            size_of = slot_bytes(game)
            cases.append(Case(group, "raw_env", "raw_env",
                              lambda s, c=config, e=raw_env_cls: aec_play(e(**c), LegalSampler(s)),
                              name, config, "random legal play, the AEC loop"))
            cases.append(Case(group, "SingleAgentEnv vs greedy", "single_agent",
                              lambda s, n=name, c=config: _single_agent_run(n, c, s), name, config,
                              "learner steps; the default: engine, compiled greedy opponents"))
            cases.append(Case(group, "SingleAgentEnv vs greedy, engine=False", "single_agent_rules",
                              lambda s, n=name, c=config: _single_agent_run(n, c, s, False), name, config,
                              "learner steps; rules layer, Python greedy opponents"))
            for size in sizes:
                for threads in THREADS:
                    cases.append(Case(
                        group, f"batch B={size:,}, {threads} thread{'s' * (threads > 1)}, self-play",
                        "batch", lambda s, g=game, b=size, t=threads: _batch_run(g, b, t, None, s),
                        name, {**config, "B": size, "threads": threads, "slot_bytes": size_of},
                        "C sampler, auto-reset"))
            for mode in getattr(game, "obs_specs", {}):
                if mode == "cards":
                    continue
                moded = game_cls(**config, obs=mode)
                for size in (sizes[-1:] if quick else MODE_SIZES):
                    cases.append(Case(
                        group, f"batch B={size:,}, 1 thread, self-play, obs={mode}", "batch_obs",
                        lambda s, g=moded, b=size: _batch_run(g, b, 1, None, s), name,
                        {**config, "B": size, "threads": 1, "obs": mode},
                        f"C sampler, auto-reset; {moded.obs_spec.size} observation entries"))
            gb = min(GREEDY_B, max(sizes))
            cases.append(Case(group, f"batch B={gb:,}, 1 thread, learner vs greedy", "batch_greedy",
                              lambda s, g=game, b=gb: _batch_run(g, b, 1, "greedy", s), name,
                              {**config, "B": gb, "threads": 1},
                              "learner steps; compiled greedy inside the step"))
    if with_pgx:
        from setgames.bench.peers import _pgx_cases

        c, n = _pgx_cases()
        cases += c
        notes += n
    return cases, notes


def summarize_batch(cases: list[Case], runs: list[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """One JSON-able row per case with the paired ratios: ``x_raw_env`` (to the same
    group's ``raw_env``), ``x_single_agent`` (learner vs greedy rows, to
    ``SingleAgentEnv`` vs greedy; on ``SingleAgentEnv``'s own row, its engine path to
    its rules layer), ``x_one_thread`` (2-thread rows, to 1 thread at the
    same B), ``x_b64`` (1-thread rows, to 1 thread at B=64), ``x_cards`` (the other
    observation modes, to ``cards`` at the same B, 1 thread) and ``x_pgx`` (to pgx
    sparrow_mahjong; different games: compare with care)."""
    where = {(c.group, c.kind): i for i, c in enumerate(cases)}
    pgx = next((i for i, c in enumerate(cases) if c.kind == "peer"), None)
    one = {(c.group, c.config.get("B")): i for i, c in enumerate(cases)
           if c.kind == "batch" and c.config.get("threads") == 1}
    smallest = min((b for (_, b) in one if b in SWEEP_SIZES), default=None)
    rows = []
    for i, case in enumerate(cases):
        row, good = case_row(case, runs[i])
        if not good:
            rows.append(row)
            continue
        row["steps_per_s"] = _stats([x["steps_per_s"] for x in good])
        row["runs"] = [{k: x[k] for k in ("steps", "games", "seconds")} for x in good]
        if case.kind in ("batch", "batch_greedy", "batch_obs"):
            raw = where.get((case.group, "raw_env"))
            row["x_raw_env"] = _paired_ratio(runs[i], runs[raw]) if raw is not None else None
            if pgx is not None:
                row["x_pgx"] = _paired_ratio(runs[i], runs[pgx])
        if case.kind in ("batch_greedy", "single_agent"):
            base = "single_agent" if case.kind == "batch_greedy" else "single_agent_rules"
            sa = where.get((case.group, base))
            row["x_single_agent"] = _paired_ratio(runs[i], runs[sa]) if sa is not None else None
        if case.kind == "batch" and case.config.get("threads", 1) > 1:
            base = one.get((case.group, case.config.get("B")))
            row["x_one_thread"] = _paired_ratio(runs[i], runs[base]) if base is not None else None
        if case.kind == "batch" and case.config.get("threads") == 1 and smallest is not None:
            base = one.get((case.group, smallest))
            row["x_b64"] = _paired_ratio(runs[i], runs[base]) if base is not None else None
        if case.kind == "batch_obs":
            base = one.get((case.group, case.config.get("B")))
            row["x_cards"] = _paired_ratio(runs[i], runs[base]) if base is not None else None
        rows.append(row)
    return rows


def batch_targets(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The targets this run measured, each with its value, goal and whether it is met: the batch
    against ``raw_env``, pgx and ``SingleAgentEnv``, two threads against one, the speed kept at
    large B (ratios to B=64) and each observation mode's cost against ``cards``."""
    out: list[dict[str, Any]] = []

    def add(name: str, value: float | None, goal: float) -> None:
        if value is not None:
            out.append({"name": name, "value": value, "goal_value": goal, "met": value >= goal,
                        "measured": f"{value:.2f}x", "goal": f"{goal:.2f}x"})

    for r in rows:
        cfg = r.get("config", {})
        if r["kind"] == "batch" and cfg.get("B") == 1024 and cfg.get("threads") == 1:
            add(f"{r['group']} batch B=1,024 1 thread / raw_env", r.get("x_raw_env"), 5.0)
            add(f"{r['group']} batch B=1,024 1 thread / pgx sparrow_mahjong", r.get("x_pgx"), 20.0)
        if r["kind"] == "batch" and cfg.get("B") == 8192 and cfg.get("threads") == 2:
            add(f"{r['group']} batch B=8,192 2 threads / 1 thread", r.get("x_one_thread"), 1.7)
        if r["kind"] == "batch" and cfg.get("threads") == 1 and cfg.get("B") in (8192, 65536):
            add(f"{r['group']} batch B={cfg['B']:,} / B=64, 1 thread", r.get("x_b64"),
                0.9 if cfg["B"] == 8192 else 0.8)
        if r["kind"] == "batch_obs" and cfg.get("B") == 8192:
            add(f"{r['group']} obs={cfg['obs']} B=8,192 / cards", r.get("x_cards"),
                MODE_COST_GOALS.get(cfg["obs"], 0.5))
        if r["kind"] == "batch_greedy" and cfg.get("B") == 1024:
            add(f"{r['group']} learner vs greedy B=1,024 / SingleAgentEnv vs greedy",
                r.get("x_single_agent"), 10.0)
    return out


def batch_table(rows: list[dict[str, Any]]) -> list[str]:
    """The batch rows as a Markdown table."""
    def ratio(x: float | None, digits: int = 1) -> str:
        return "-" if x is None else f"{x:.{digits}f}x"

    out = ["| group | case | steps/s (median) | spread | x raw_env | x SingleAgentEnv | x 1 thread "
           "| x B=64 | x cards | x pgx | notes |", "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|---|"]
    for r in rows:
        if "steps_per_s" not in r:
            out.append(f"| {r['group']} | {r['label']} | error | | | | | | | | {r.get('error', '')} |")
            continue
        sps = r["steps_per_s"]
        spread = f"±{sps['spread_pct'] / 2:.0f}%" if r["repeats"] > 1 else "-"
        out.append(f"| {r['group']} | {r['label']} | {sps['median']:,.0f} | {spread} | "
                   f"{ratio(r.get('x_raw_env'))} | {ratio(r.get('x_single_agent'))} | "
                   f"{ratio(r.get('x_one_thread'))} | {ratio(r.get('x_b64'), 2)} | "
                   f"{ratio(r.get('x_cards'), 2)} | {ratio(r.get('x_pgx'))} | {r.get('note', '')} |")
    return out


def sweep_table(rows: list[dict[str, Any]]) -> list[str]:
    """Each config's slot size beside its 1-thread self-play steps/s over :data:`SWEEP_SIZES` and the
    paired ratios to B=64 (the B columns it measured; empty when it measured fewer than two)."""
    sizes = [b for b in SWEEP_SIZES if any(r["kind"] == "batch" and r["config"].get("B") == b for r in rows)]
    if len(sizes) < 2:
        return []
    head = ("| group | slot state, bytes | output rows, bytes | "
            + " | ".join(f"B={b:,}" for b in sizes) + " | "
            + " | ".join(f"B={b:,} / B={sizes[0]:,}" for b in sizes[1:]) + " |")
    out = [head, "|---|--:|--:|" + "--:|" * (2 * len(sizes) - 1)]
    groups = list(dict.fromkeys(r["group"] for r in rows if r["kind"] == "batch"))
    for g in groups:
        one = {r["config"].get("B"): r for r in rows
               if r["group"] == g and r["kind"] == "batch" and r["config"].get("threads") == 1}
        size_of = next(iter(one.values()))["config"].get("slot_bytes") or {}
        cells = [f"{size_of['state']:,}" if size_of.get("state") else "-",
                 f"{size_of['rows']:,}" if size_of.get("rows") else "-"]
        cells += [f"{one[b]['steps_per_s']['median'] / 1e6:.2f}M" if "steps_per_s" in one.get(b, {}) else "-"
                  for b in sizes]
        cells += [f"{one[b]['x_b64']:.2f}" if one.get(b, {}).get("x_b64") else "-" for b in sizes[1:]]
        out.append(f"| {g} | " + " | ".join(cells) + " |")
    return out
