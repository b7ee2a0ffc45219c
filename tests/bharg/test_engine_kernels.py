"""The C scoring of Bharg's engine (``bh_evaluate`` in ``bharg_env/_engine.pyx``) against the
kernel it copies, :func:`setgames.kernels.bharg.evaluate` (the reference)."""

from __future__ import annotations

import random

import pytest

from setgames.kernels import bharg as kernel

_engine = pytest.importorskip("bharg_env._engine", reason="the Bharg engine is not built")


def _hands(n: int, seed: int):
    """Hands of 0 to 9 cards with an Ace Pile top or none: half uniform, half built from a few
    patterns' cards (so that patterns held twice or three times, the kernel's layered path, come)."""
    rng = random.Random(seed)
    by_pattern: dict[int, list[int]] = {}
    for c in range(45):
        by_pattern.setdefault(kernel._SM[c], []).append(c)
    groups = [cs for p, cs in by_pattern.items() if p and len(cs) > 1]
    for i in range(n):
        if i % 2:
            pool = [c for g in rng.sample(groups, 3) for c in g] + rng.sample(range(45), 4)
            cards = list(dict.fromkeys(rng.sample(pool, min(len(pool), 12))))[: rng.randint(3, 9)]
        else:
            cards = rng.sample(range(45), rng.randint(0, 9))
        hand = sum(1 << c for c in cards)
        aces = [a for a in range(6) if not hand >> a & 1]
        yield hand, (rng.choice(aces) if aces and rng.random() < 0.6 else -1)


def test_c_evaluate_equals_the_kernel_on_many_hands():
    paths = {"twice": 0, "three times": 0, "all bound": 0}
    for hand, ace in _hands(60_000, 5):
        want = kernel.evaluate(hand, None if ace < 0 else ace)
        assert _engine.evaluate(hand, ace) == tuple(want), (hex(hand), ace)
        code = kernel.pattern_code(hand)
        paths["twice"] += bool(code >> 1 & kernel._LOW_BITS)
        paths["three times"] += bool(code & code >> 1 & kernel._LOW_BITS)
        paths["all bound"] += want.all_bound and hand != 0
    assert min(paths.values()) > 500, paths  # every path of the kernel was compared
