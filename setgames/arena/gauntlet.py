"""The standard gauntlet (``setgames eval BOT``) and the measurement of the ladder behind it.

:func:`run_gauntlet` plays one bot against every reference of the versioned
ladder (:mod:`setgames.bots.levels`: the six levels and the named bots that
are not a level) on every game and config of the ladder, with the arena's
duplicate deals (one :func:`~setgames.arena.run_arena` run, its pairings the
bot against each reference). The seeds come from the ladder's version and a
seed set (:func:`gauntlet_seed`), never from the clock, so the same bot and
version play the same games on any executor and worker count, and
``gauntlet.json`` is the same byte for byte (wall-clock figures stay in the
arena's ``timing.json`` and in the Markdown report).

The rating: per config, the bot's Elo from its scores against the references,
whose Elo is fixed (:data:`~setgames.bots.levels.REFERENCE_ELO`;
:func:`~setgames.arena.ratings.rate_against`), mapped linearly onto the
anchored scale (:data:`~setgames.bots.levels.RATING_ANCHORS`: random 0,
greedy 1000 in every config, so a rating reads the same in every game); the
overall rating is the mean over the configs played. Intervals: 95% percentile
bootstrap over deals, the overall one draw by draw over the configs' draws.

:func:`measure_ladder` plays the ladder's adjacent steps (and ``ppo`` against
its neighbours) and fits the references' Elo: the constants of the table
(``python benchmarks/levels.py``).
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import os
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from setgames.arena.ratings import BOOTSTRAP_SAMPLES, rate, rate_against
from setgames.arena.runner import ArenaGame, BotSpec, run_arena
from setgames.arena.seating import derive_seed
from setgames.bots import levels
from setgames.bots.levels import (
    GAUNTLET_CONFIGS,
    LADDER_VERSION,
    RATING_ANCHORS,
    REFERENCE_ELO,
    REFERENCES,
    bot_title,
    config_key,
)

__all__ = ["GAUNTLET_FILE", "GAUNTLET_FORMAT", "STEP_TARGET", "gauntlet_games", "gauntlet_seed",
           "ladder_pairings", "measure_ladder", "run_gauntlet"]

GAUNTLET_FILE = "gauntlet.json"
GAUNTLET_FORMAT = "setgames-gauntlet/1"
STEP_TARGET = 0.58  # the score each level should reach against the one below, where the game allows
CANDIDATE_SUFFIX = " (evaluated)"  # added to the bot's label when it is also a reference's


def gauntlet_seed(seed_set: int = 0) -> int:
    """The master seed of the gauntlet's games: from the ladder's version and ``seed_set``.

    >>> gauntlet_seed(0) == gauntlet_seed(0) != gauntlet_seed(1)
    True
    """
    if isinstance(seed_set, bool) or not isinstance(seed_set, int) or seed_set < 0:
        raise ValueError(f"seed set {seed_set!r} must be a non-negative integer")
    entropy = [zlib.crc32(b"setgames-gauntlet"), LADDER_VERSION, seed_set]
    return int(np.random.SeedSequence(entropy).generate_state(1, np.uint64)[0] >> np.uint64(1))


def gauntlet_games(configs: Sequence[str] | None = None) -> list[tuple[str, ArenaGame]]:
    """The ladder's games and configs as ``(key, ArenaGame)``, in the table's order;
    ``configs`` (keys of :func:`~setgames.bots.levels.config_key`, such as ``"<game>-3p"``) keeps
    only those.

    Raises:
        ValueError: a key that is not one of the ladder's.
    """
    table = [(config_key(name, config), ArenaGame(name, config)) for name, config in GAUNTLET_CONFIGS]
    if configs is None:
        return table
    keys = [key for key, _ in table]
    for key in configs:
        if key not in keys:
            raise ValueError(f"unknown config {key!r}; the ladder's: {', '.join(keys)}")
    return [(key, game) for key, game in table if key in configs]


def _references(references: Sequence[str] | None) -> list[str]:
    if references is None:
        return list(REFERENCES)
    for ref in references:
        if ref not in REFERENCES:
            raise ValueError(f"unknown reference {ref!r}; the ladder's: {', '.join(REFERENCES)}")
    return [ref for ref in REFERENCES if ref in references]


def _anchored(elo: np.ndarray | float, key: str) -> np.ndarray | float:
    """Elo (the table's, level 1 = 0) onto the anchored scale of config ``key``."""
    (low_ref, low_at), (high_ref, high_at) = sorted(RATING_ANCHORS.items(), key=lambda kv: kv[1])
    e0, e1 = REFERENCE_ELO[key][low_ref], REFERENCE_ELO[key][high_ref]
    return low_at + (high_at - low_at) * (np.asarray(elo) - e0) / (e1 - e0)


def _interval(point: float, boot: np.ndarray) -> dict[str, float]:
    low, high = np.percentile(boot, [2.5, 97.5]) if len(boot) else (point, point)
    return {"rating": round(float(point), 1), "low": round(float(min(low, point)), 1),
            "high": round(float(max(high, point)), 1)}


def run_gauntlet(bot: str | BotSpec, games_per_config: int = 20, seed_set: int = 0, workers: int = 1,
                 executor: str | None = None, address: str | None = None, out: str | Path | None = None,
                 progress: bool | None = None, references: Sequence[str] | None = None,
                 configs: Sequence[str] | None = None, move_ms: float | None = None,
                 game_ms: float | None = None, flag_only: bool = False,
                 samples: int = BOOTSTRAP_SAMPLES) -> dict[str, Any]:
    """Play ``bot`` against the ladder's references on its games and configs; the report.

    Args:
        bot: any bot spec (:mod:`setgames.bots.specs`) or a :class:`BotSpec`.
        games_per_config: games against each reference in each config, rounded up to
            whole duplicate deals (as the arena's ``games_per_pairing``).
        seed_set: which set of seeds (0 is the standard one; another set plays other deals).
        workers, executor, address, progress, move_ms, game_ms, flag_only: as
            :func:`~setgames.arena.run_arena`.
        out: directory for the arena's files and ``gauntlet.json`` (the Markdown and
            the plot are :mod:`setgames.arena.gauntlet_report`'s).
        references: play only these references (default all: a report with fewer is
            marked ``partial`` and its rating is not comparable with a full one).
        configs: play only these configs (keys; default all; fewer is ``partial`` too).
        samples: bootstrap draws of the rating intervals.

    Returns:
        The report (written to ``gauntlet.json``); ``report["timing"]`` holds the arena's
        wall-clock figures and ``report["stopped_by"]`` the signal that stopped an
        interrupted run, neither saved with it. Games lost to a dead worker are listed
        in ``report["lost_games"]``.

    Raises:
        ValueError: a bad bot spec or count, refused before any game starts.
    """
    refs = _references(references)
    games = gauntlet_games(configs)
    seed = gauntlet_seed(seed_set)
    candidate = BotSpec.parse(bot) if isinstance(bot, str) else bot
    if candidate.label in refs:  # the bot is also a reference: both keep a name of their own
        candidate = dataclasses.replace(candidate, label=candidate.label + CANDIDATE_SUFFIX)
    results = run_arena([g for _, g in games], [candidate, *refs], games_per_pairing=games_per_config,
                        seed=seed, workers=workers, out=out, progress=progress,
                        pairings=[(0, i) for i in range(1, len(refs) + 1)], executor=executor,
                        address=address, move_ms=move_ms, game_ms=game_ms, flag_only=flag_only)
    partial = len(refs) < len(REFERENCES) or len(games) < len(GAUNTLET_CONFIGS)
    report = _summarise(candidate, refs, games, results, seed_set, seed, games_per_config, samples, partial)
    if results.get("lost_games"):
        report["lost_games"] = results["lost_games"]
    if out is not None:
        path = Path(out) / GAUNTLET_FILE
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(report, indent=1) + "\n")
        os.replace(tmp, path)
    # Shown, never saved: wall-clock figures, and which signal stopped the run.
    report["timing"] = results["timing"]
    if "stopped_by" in results:
        report["stopped_by"] = results["stopped_by"]
    return report


def _summarise(candidate: BotSpec, refs: list[str], games: list[tuple[str, ArenaGame]],
               results: dict[str, Any], seed_set: int, seed: int, games_per_config: int,
               samples: int, partial: bool) -> dict[str, Any]:
    rows = []
    boots = []
    points = []
    forfeits: dict[str, int] = {}
    for (key, _), arena in zip(games, results["arenas"], strict=True):
        table_elo = REFERENCE_ELO[key]
        ref_rows = []
        for pairing in arena["pairings"]:
            ref = pairing["bot_b"]
            ref_rows.append({
                "reference": ref, "title": bot_title(ref),
                "rating": round(float(_anchored(table_elo[ref], key)), 1),
                "games": pairing["games"], "wins": pairing["wins_a"], "draws": pairing["draws"],
                "losses": pairing["wins_b"], "score": pairing["score_a"], "score_ci": pairing["score_a_ci"],
                "deal_scores": pairing["deal_scores"],
            })
        played = [r for r in ref_rows if r["games"]]
        entry: dict[str, Any] = {"config": key, "game": arena["game"], "version": arena["version"],
                                 "players": arena["players"], "options": arena["config"]}
        if played:
            elo, boot = rate_against([table_elo[r["reference"]] for r in played],
                                     [r["deal_scores"] for r in played],
                                     derive_seed(seed, key, 2), samples)
            boots.append(_anchored(boot, key))
            points.append(float(_anchored(elo, key)))
            entry["rating"] = _interval(points[-1], boots[-1])
            entry["elo"] = round(elo, 1)
        else:  # interrupted before any game of this config
            entry["rating"] = None
            entry["elo"] = None
        mine = arena["forfeits"].get(candidate.label, {})
        for reason, count in mine.items():
            forfeits[reason] = forfeits.get(reason, 0) + count
        entry["forfeits"] = mine
        entry["reference_forfeits"] = {k: v for k, v in arena["forfeits"].items() if k != candidate.label}
        entry["flagged"] = arena["flagged"].get(candidate.label, 0)
        for r in ref_rows:
            del r["deal_scores"]  # kept in the arena's results.json; the report shows the scores
        entry["references"] = ref_rows
        rows.append(entry)
    if boots:
        # The configs' fits are independent: the overall rating's draw k is the mean of their draws k.
        overall_rating = _interval(float(np.mean(points)), np.mean(boots, axis=0))
    else:
        overall_rating = None
    return {
        "format": GAUNTLET_FORMAT,
        "ladder_version": LADDER_VERSION,
        "bot": candidate.to_json(),
        "seed_set": seed_set,
        "seed": seed,
        "games_per_config": int(games_per_config),
        "partial": bool(partial),
        "interrupted": bool(results["interrupted"]),
        "scale": (f"anchored: {', '.join(f'{k} = {v:g}' for k, v in RATING_ANCHORS.items())} in every "
                  "config; per config a logistic (Elo) fit against the references' fixed ratings, "
                  "mapped linearly onto the anchors; overall: the mean over the configs"),
        "intervals": "95%: scores over deals (Student t, Wilson when every deal scored the same); "
                     "ratings by a percentile bootstrap over deals",
        "rating": overall_rating,
        "forfeits": dict(sorted(forfeits.items())),
        "configs": rows,
    }


def ladder_pairings(refs: Sequence[str]) -> list[tuple[int, int]]:
    """The pairings that measure the ladder, as ``(stronger, weaker)`` indices into ``refs``:
    each level against the level below it, and each other reference against levels 5
    (greedy) and 6 (the search).

    >>> ladder_pairings(["level:1", "level:2", "level:5", "ppo"])
    [(1, 0), (2, 1), (3, 2)]
    """
    levels_at = [i for i, r in enumerate(refs) if r.startswith(levels.LEVEL_PREFIX)]
    pairs = [(b, a) for a, b in itertools.pairwise(levels_at)]
    # The other references meet greedy and the search.
    neighbours = [i for i in levels_at if refs[i] in ("level:5", "level:6")]
    for i, ref in enumerate(refs):
        if not ref.startswith(levels.LEVEL_PREFIX):
            pairs += [(i, j) for j in neighbours]
    return pairs


def measure_ladder(games_per_step: int, seed: int = 1, workers: int = 1, executor: str | None = None,
                   references: Sequence[str] | None = None, configs: Sequence[str] | None = None,
                   out: str | Path | None = None, progress: bool | None = None) -> dict[str, Any]:
    """Play the ladder's steps (:func:`ladder_pairings`) on its configs and fit the references' Elo.

    Returns:
        ``{"ladder_version", "seed", "games_per_step", "configs": [...]}``, per config its
        ``steps`` (stronger, weaker, games, score of the stronger and its 95% interval,
        whether it reaches :data:`STEP_TARGET`, whether its interval is above 50%) and
        ``elo`` (per reference: Elo with the first reference at 0, so level 1 when it is
        played, and a 95% interval: what :data:`~setgames.bots.levels.REFERENCE_ELO` holds).
    """
    refs = _references(references)
    games = gauntlet_games(configs)
    pairs = ladder_pairings(refs)
    results = run_arena([g for _, g in games], list(refs), games_per_pairing=games_per_step, seed=seed,
                        workers=workers, executor=executor, out=out, progress=progress, pairings=pairs)
    rows = []
    for (key, _), arena in zip(games, results["arenas"], strict=True):
        steps = [{"stronger": p["bot_a"], "weaker": p["bot_b"], "games": p["games"], "score": p["score_a"],
                  "score_ci": p["score_a_ci"],
                  "reaches_target": p["score_a"] is not None and p["score_a"] >= STEP_TARGET,
                  "ordered": p["score_a_ci"] is not None and p["score_a_ci"][0] > 0.5}
                 for p in arena["pairings"]]
        fit = {r["bot"]: {"elo": r["elo"], "low": r["low"], "high": r["high"]}
               for r in rate(list(refs), arena["pairings"], seed)}  # the first reference rates 0
        rows.append({"config": key, "players": arena["players"], "steps": steps,
                     "elo": {ref: fit[ref] for ref in refs}})
    return {"ladder_version": LADDER_VERSION, "seed": seed, "games_per_step": games_per_step,
            "anchor": refs[0], "interrupted": results["interrupted"], "configs": rows,
            "timing": results["timing"]}
