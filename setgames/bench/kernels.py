"""Kernel throughput: scalar paths in calls/s, batch paths in hands/s at
B = 1, 1,000 and 100,000, next to the brute-force oracles of ``tests/``.

The oracles live in the test suite (they must never import the kernels, so
they cannot ship in the package); when the repository checkout is there they
are imported from ``tests/setgames/kernels/test_*_kernel.py`` and timed in
the same run, else their columns stay empty with a note. Inputs are random
hands of the sizes the issue names (Tet Hsi: an 8-card hand and a ninth card;
Bharg: 8-card hands of the 45 ids; Tu Sac: 20-card hands dealt from the 112 cards), made
once before timing.
"""

from __future__ import annotations

import importlib
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
    """

    kernel: str
    path: str
    fn: Callable[..., Any]
    inputs: Any
    oracle: Callable[..., Any] | None = None
    oracle_inputs: list | None = None
    note: str = ""


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
    o_trash = _oracle("test_tusac_kernel", ("oracle_min_trash", "brute_min_trash", "min_trash_oracle"), notes)
    o_value = _oracle("test_tusac_kernel", ("oracle_max_value", "brute_max_value", "max_value_oracle"), notes)
    note = "20-card hand, no Khap"
    # Most random 20-card hands hold trash, and the value oracle gives up at the
    # first card no set can take, so it is much faster here than on trash-free hands.
    v_note = note + "; oracle quits early on hands with trash"
    cases = [
        KernelCase("tusac.min_trash", "scalar", k.min_trash, args, o_trash, note=note),
        KernelCase("tusac.min_trash", "batch", k.min_trash_batch, lambda b: (big[:b],),
                   o_trash, args, note=note),
        KernelCase("tusac.max_value", "scalar", k.max_value, args, o_value, note=v_note),
        KernelCase("tusac.max_value", "batch", k.max_value_batch, lambda b: (big[:b],),
                   o_value, args, note=v_note),
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
    oracle_rates: dict[str, float] = {}
    rows: list[dict[str, Any]] = []
    for case in cases:
        if case.oracle is not None and case.kernel not in oracle_rates:
            o_args = case.inputs if case.path == "scalar" else case.oracle_inputs
            try:
                oracle_rates[case.kernel] = statistics.median(
                    _time_oracle(case.oracle, o_args, seconds, offset=r * 97, clock=clock)
                    for r in range(repeats))
            except Exception as exc:
                notes.append(f"{case.kernel}: oracle failed ({type(exc).__name__}: {exc})")
                oracle_rates[case.kernel] = 0.0
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
            o = oracle_rates.get(case.kernel)
            if o:
                row["oracle_rate"] = o
                row["x_oracle"] = med / o
            rows.append(row)
            if progress:
                progress(f"{case.kernel:<32} {case.path:<6} B={b or '-':<7} {med:,.0f} {row['unit']}")
    return rows, notes
