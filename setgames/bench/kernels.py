"""Kernel throughput: scalar paths in calls/s, batch paths in hands/s at
B = 1, 1,000 and 100,000, next to the brute-force oracles of ``tests/``.

The oracles live in the test suite (they must never import the kernels, so
they cannot ship in the package); when the repository checkout is there they
are imported from ``tests/setgames/kernels/test_*_kernel.py`` and timed in
the same run, else their columns stay empty with a note. Inputs are random
hands of the sizes the issue names (Tet Hsi: an 8-card hand and a ninth card;
Bharg: 8-card hands of the 45 ids; Tu Sac: 20-card hands dealt from the 112 cards), made
once before timing. Tu Sac ``max_value`` is timed on trash-free 20-card hands
(random unions of valid sets), the only hands whose value scoring asks for: a
dealt hand almost always holds trash, where the oracle gives up at once. The
dealt-hand figure stays as a reference row that no target reads.
"""

from __future__ import annotations

import importlib
import random
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["BATCH_SIZES", "KernelCase", "kernel_cases", "run_kernels"]

BATCH_SIZES = (1, 1_000, 100_000)
SCALAR_INPUTS = 1_000  # distinct prepared inputs a scalar path cycles through
ORACLE_MIN_CALLS = 3


@dataclass
class KernelCase:
    """One kernel path to time.

    Attributes:
        kernel: e.g. ``"tusac.min_trash"``.
        path: ``"scalar"`` or ``"batch"``.
        fn: scalar: called as ``fn(*args)`` per prepared input; batch: ``fn(*arrays)``.
        inputs: scalar: list of argument tuples; batch: ``make(B) -> arrays``.
        oracle: brute force over one input's argument tuple (scalar cases), or None.
        oracle_inputs: argument tuples for the oracle (defaults to ``inputs``).
        note: hand size etc.
        target: False for a reference row: its ratio to the oracle goes into the
            note and ``x_oracle_reference``, not ``x_oracle``, so no target reads it.
    """

    kernel: str
    path: str
    fn: Callable[..., Any]
    inputs: Any
    oracle: Callable[..., Any] | None = None
    oracle_inputs: list | None = None
    note: str = ""
    target: bool = True


def _repo_tests_importable() -> bool:
    """Put the repository root on ``sys.path`` when this is a checkout with ``tests/``."""
    root = Path(__file__).resolve().parents[2]
    if not (root / "tests" / "setgames" / "kernels").is_dir():
        return False
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    return True


def _oracle(module: str, names: tuple[str, ...], notes: list[str]) -> Callable[..., Any] | None:
    if not _repo_tests_importable():
        notes.append(f"{module}: no repository checkout with tests/, oracle columns skipped")
        return None
    try:
        mod = importlib.import_module(module if "." in module else f"tests.setgames.kernels.{module}")
    except Exception as exc:
        notes.append(f"{module}: oracle not importable ({type(exc).__name__}: {exc})")
        return None
    for name in names:
        fn = getattr(mod, name, None)
        if callable(fn):
            return fn
    notes.append(f"{module}: none of {', '.join(names)} found, oracle column skipped")
    return None


# ----------------------------------------------------------------------------- inputs
def _tethsi_hands(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    """n random 8-card hands of standard cards and a ninth card not in the hand."""
    picks = np.argsort(rng.random((n, 36)), axis=1)[:, :9]
    hands = (np.uint64(1) << picks[:, :8].astype(np.uint64)).sum(axis=1, dtype=np.uint64)
    return hands, picks[:, 8].astype(np.int64)


def _tusac_counts(rng: np.random.Generator, n: int, cards: int = 20) -> np.ndarray:
    """n random hands of ``cards`` cards dealt from the 112 (4 of each of 28 types), (n, 28) int8."""
    types = np.argsort(rng.random((n, 112)), axis=1)[:, :cards] // 4
    flat = (types + 28 * np.arange(n)[:, None]).ravel()
    return np.bincount(flat, minlength=28 * n).reshape(n, 28).astype(np.int8)


def _tusac_sets() -> dict[str, list[tuple[int, ...]]]:
    """Every valid Tu Sac set as a tuple of card types, by kind (``tusac_env/README.md``,
    rules choice 16): a single king; 2, 3 or 4 identical cards; king+guard+minister
    or rook+cannon+knight of one colour; 3 or 4 pawns of different colours."""
    king, guard, minister, rook, cannon, knight, pawn = range(7)
    colours = [7 * c for c in range(4)]
    pawns = tuple(b + pawn for b in colours)
    return {
        "king": [(b + king,) for b in colours],
        "kgm": [(b + king, b + guard, b + minister) for b in colours],
        "rcn": [(b + rook, b + cannon, b + knight) for b in colours],
        "pair": [(t,) * 2 for t in range(28)],
        "triple": [(t,) * 3 for t in range(28)],
        "quad": [(t,) * 4 for t in range(28)],
        "pawns3": list(combinations(pawns, 3)),
        "pawns4": [pawns],
    }


def _tusac_trash_free_counts(rng: np.random.Generator, n: int, cards: int = 20) -> np.ndarray:
    """n random hands of ``cards`` cards, each a union of valid sets (no trash), (n, 28) int8.

    Sets are added at random, a kind first (each of :func:`_tusac_sets`'s
    eight equally likely) and then one set of that kind, while they fit in the
    hand and in the 4 copies of each type.
    """
    # Each set as (cards, [(type, copies)]), so that the fit test is one pass.
    kinds = [[(len(s), [(t, s.count(t)) for t in set(s)]) for s in group] for group in _tusac_sets().values()]
    py = random.Random(int(rng.integers(2**63)))  # Python's generator: far cheaper a draw than numpy's
    choice = py.choice
    rows = []
    while len(rows) < n:
        counts = [0] * 28
        size = misses = 0
        while size < cards and misses < 50:
            k, parts = choice(choice(kinds))
            if size + k > cards or any(counts[t] + m > 4 for t, m in parts):
                misses += 1
                continue
            for t, m in parts:
                counts[t] += m
            size += k
        if size == cards:  # else start the hand again (rare: nothing small enough fitted)
            rows.append(counts)
    return np.array(rows, dtype=np.int8).reshape(n, 28)


def _decktet_hands(rng: np.random.Generator, n: int, cards: int = 8, deck: int = 36) -> np.ndarray:
    picks = np.argsort(rng.random((n, deck)), axis=1)[:, :cards]
    return (np.uint64(1) << picks.astype(np.uint64)).sum(axis=1, dtype=np.uint64)


def _bits(mask: int) -> list[int]:
    return [i for i in range(64) if mask >> i & 1]


# ----------------------------------------------------------------------------- cases
def _tethsi_cases(rng: np.random.Generator, notes: list[str], max_batch: int) -> list[KernelCase]:
    k = importlib.import_module("setgames.kernels.tethsi")
    hands, cards = _tethsi_hands(rng, SCALAR_INPUTS)
    args = [(int(h), int(c)) for h, c in zip(hands, cards, strict=True)]
    # The test module's oracle_pairs reads a table precomputed at import; the
    # per-call brute force is the rule itself, oracle_kind, over every pair.
    kind = _oracle("tests.tethsi.decktet_oracle", ("oracle_kind",), notes)
    wrapped = None if kind is None else (
        lambda h, c: [(x, y) for x, y in combinations(_bits(h), 2) if kind(x, y, c) is not None])
    big_h, big_c = _tethsi_hands(rng, max_batch)
    note = "8-card hand + 1 card"
    return [
        KernelCase("tethsi.pairs_completing", "scalar", k.pairs_completing, args, wrapped, note=note),
        KernelCase("tethsi.pairs_completing", "batch", k.pairs_completing_batch,
                   lambda b: (big_h[:b], big_c[:b]), wrapped, args, note=note + ", (B, MAX_PAIRS) bool"),
        KernelCase("tethsi.count_pairs_completing", "batch", k.count_pairs_completing_batch,
                   lambda b: (big_h[:b], big_c[:b]), wrapped, args, note=note + ", counts"),
    ]


def _tusac_cases(rng: np.random.Generator, notes: list[str], max_batch: int) -> list[KernelCase]:
    k = importlib.import_module("setgames.kernels.tusac")
    small = _tusac_counts(rng, SCALAR_INPUTS)
    args = [(row.tolist(),) for row in small]
    big = _tusac_counts(rng, max_batch)
    free_args = [(row.tolist(),) for row in _tusac_trash_free_counts(rng, SCALAR_INPUTS)]
    free_big = _tusac_trash_free_counts(rng, max_batch)
    o_trash = _oracle("test_tusac_kernel", ("oracle_min_trash", "brute_min_trash", "min_trash_oracle"), notes)
    o_value = _oracle("test_tusac_kernel", ("oracle_max_value", "brute_max_value", "max_value_oracle"), notes)
    note = "20-card hand, no Khap"
    # Scoring asks for the value of trash-free hands only. Dealt hands almost
    # always hold trash, and the value oracle gives up at the first card no set
    # can take, so on them it is far faster than on the hands that matter.
    v_note = "20-card trash-free hand (random union of valid sets), no Khap"
    ref_note = note + ", dealt at random (mostly trash; oracle quits early); reference, not a target"
    cases = [
        KernelCase("tusac.min_trash", "scalar", k.min_trash, args, o_trash, note=note),
        KernelCase("tusac.min_trash", "batch", k.min_trash_batch, lambda b: (big[:b],),
                   o_trash, args, note=note),
        KernelCase("tusac.max_value", "scalar", k.max_value, free_args, o_value, note=v_note),
        KernelCase("tusac.max_value", "batch", k.max_value_batch, lambda b: (free_big[:b],),
                   o_value, free_args, note=v_note),
        KernelCase("tusac.max_value", "scalar", k.max_value, args, o_value, note=ref_note, target=False),
    ]
    return cases


def _bharg_cases(rng: np.random.Generator, notes: list[str], max_batch: int) -> list[KernelCase]:
    k = importlib.import_module("setgames.kernels.bharg")
    small = _decktet_hands(rng, SCALAR_INPUTS, deck=45)
    args = [(int(h),) for h in small]
    big = _decktet_hands(rng, max_batch, deck=45)
    oracle = _oracle("test_bharg_kernel", ("oracle",), notes)  # oracle(cards, ace) -> (bound, all, value)
    o_all = None if oracle is None else (lambda h: oracle(_bits(h), None)[1])
    o_eval = None if oracle is None else (lambda h: oracle(_bits(h), None))
    note = "8 cards of the 45, no Ace Pile"
    return [
        KernelCase("bharg.all_bound", "scalar", k.all_bound, args, o_all, note=note),
        KernelCase("bharg.all_bound", "batch", k.all_bound_batch, lambda b: (big[:b],), o_all, args,
                   note=note),
        KernelCase("bharg.evaluate", "scalar", k.evaluate, args, o_eval, note=note + "; bound, all, value"),
        KernelCase("bharg.evaluate", "batch", k.evaluate_batch, lambda b: (big[:b],), o_eval, args,
                   note=note + "; bound, all, value"),
    ]


def kernel_cases(seed: int = 0, max_batch: int = max(BATCH_SIZES)) -> tuple[list[KernelCase], list[str]]:
    """Cases of every kernel module present, batch inputs of ``max_batch``
    rows; returns ``(cases, notes)``."""
    rng = np.random.default_rng(seed)
    cases: list[KernelCase] = []
    notes: list[str] = []
    for name, build in (("tethsi", _tethsi_cases), ("bharg", _bharg_cases), ("tusac", _tusac_cases)):
        try:
            cases += build(rng, notes, max_batch)
        except ImportError as exc:
            notes.append(f"{name} kernel: skipped, not importable ({exc})")
    return cases, notes


# ----------------------------------------------------------------------------- timing
def _time_scalar(fn: Callable[..., Any], args: list[tuple], seconds: float,
                 clock: Callable[[], float] = time.perf_counter) -> float:
    """Calls per second of ``fn`` cycling through ``args`` for ``seconds``."""
    calls = 0
    t0 = clock()
    while True:
        for a in args:
            fn(*a)
        calls += len(args)
        elapsed = clock() - t0
        if elapsed >= seconds:
            return calls / elapsed


def _cache_clearers(fn: Callable[..., Any]) -> list[Callable[[], None]]:
    """``cache_clear`` of every memoized function in the oracle's module: a
    memoized oracle would otherwise answer repeated hands from its cache."""
    mod = sys.modules.get(getattr(fn, "__module__", ""), None)
    found = [getattr(v, "cache_clear", None) for v in vars(mod).values()] if mod else []
    return [c for c in found if callable(c)]


def _time_oracle(fn: Callable[..., Any], args: list[tuple], seconds: float, offset: int = 0,
                 clock: Callable[[], float] = time.perf_counter) -> float:
    """Calls per second of the oracle, every call from cold caches (their
    clearing is timed too, and costs little next to a brute-force search)."""
    clearers = _cache_clearers(fn)
    calls = 0
    t0 = clock()
    for a in args[offset:] + args[:offset]:
        for clear in clearers:
            clear()
        fn(*a)
        calls += 1
        elapsed = clock() - t0
        if elapsed >= seconds and calls >= ORACLE_MIN_CALLS:
            break
    return calls / (clock() - t0)


def _time_batch(fn: Callable[..., Any], arrays: tuple, batch: int, seconds: float,
                clock: Callable[[], float] = time.perf_counter) -> float:
    """Hands per second of ``fn(*arrays)`` on batches of ``batch`` rows."""
    fn(*arrays)  # warm-up
    calls = 0
    t0 = clock()
    while True:
        fn(*arrays)
        calls += 1
        elapsed = clock() - t0
        if elapsed >= seconds:
            return calls * batch / elapsed


def run_kernels(repeats: int, seconds: float, batch_sizes: tuple[int, ...] = BATCH_SIZES,
                progress: Callable[[str], None] | None = None, seed: int = 0,
                clock: Callable[[], float] = time.perf_counter) -> tuple[list[dict], list[str]]:
    """Time every kernel case (each batch case at every size in ``batch_sizes``)
    and each oracle once per kernel; returns ``(rows, notes)``."""
    cases, notes = kernel_cases(seed, max(batch_sizes))
    # One oracle rate per kernel and input list: cases sharing both share it.
    oracle_rates: dict[tuple[str, int], float] = {}
    rows: list[dict[str, Any]] = []
    for case in cases:
        o_args = case.inputs if case.path == "scalar" else case.oracle_inputs
        o_key = (case.kernel, id(o_args))
        if case.oracle is not None and o_key not in oracle_rates:
            try:
                oracle_rates[o_key] = statistics.median(
                    _time_oracle(case.oracle, o_args, seconds, offset=r * 97, clock=clock)
                    for r in range(repeats))
            except Exception as exc:
                notes.append(f"{case.kernel}: oracle failed ({type(exc).__name__}: {exc})")
                oracle_rates[o_key] = 0.0
        sizes = (None,) if case.path == "scalar" else batch_sizes
        for b in sizes:
            row: dict[str, Any] = {"kernel": case.kernel, "path": case.path, "batch": b,
                                   "unit": "calls/s" if b is None else "hands/s", "note": case.note}
            try:
                if b is None:
                    rates = [_time_scalar(case.fn, case.inputs, seconds, clock) for _ in range(repeats)]
                else:
                    arrays = case.inputs(b)
                    rates = [_time_batch(case.fn, arrays, b, seconds, clock) for _ in range(repeats)]
            except Exception as exc:
                row["error"] = f"{type(exc).__name__}: {exc}"
                rows.append(row)
                continue
            med = statistics.median(rates)
            row["rate"] = {"median": med, "min": min(rates), "max": max(rates), "runs": rates}
            o = oracle_rates.get(o_key)
            if o:
                row["oracle_rate"] = o
                if case.target:
                    row["x_oracle"] = med / o
                else:
                    row["x_oracle_reference"] = med / o
                    row["note"] += f" ({med / o:,.0f}x oracle)"
            rows.append(row)
            if progress:
                progress(f"{case.kernel:<32} {case.path:<6} B={b or '-':<7} {med:,.0f} {row['unit']}")
    return rows, notes
