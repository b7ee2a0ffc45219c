"""The Tu Sac observation: one int8 vector, seat-relative, built from one spec.

Relative seat ``r`` in every per-player feature is the player ``r`` places
after the observer in turn order (``r = 0`` is the observer). A player sees
their own private block and Khap types, every public block, the dead pile,
the active card and how it came, private block sizes and Khap counts (public:
``tusac_env/README.md``, rules choice 18), the pending decision, their own trash count and,
when they must discard, which of their cards are *worst* (the "Find Trash" hint).

How: the state keeps every seat's observation up to "dead" (its *prefix*) in
one flat ``bytearray`` (``TuSacState._obs``, one segment of the full vector
size per seat, the tail bytes left zero), patched by the rules code where the
data changes (:class:`ObsLayout` gives the byte positions). An observation is
one slice copy of the seat's segment plus the few tail bytes of the moment.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from setgames.cards import NUM_TUSAC_TYPES
from setgames.spec import Feature, ObsSpec
from setgames.validate import observer_seat
from tusac_env.state import (
    EXPOSED_BY_DISCARD,
    FIRST_DEAL,
    PHASE_DISCARD,
    PUBLIC_KINDS,
    TuSacState,
)

__all__ = ["CLAIM_KINDS", "LAYOUTS", "ObsLayout", "Observer", "build_obs", "make_obs_spec"]

CLAIM_KINDS = ("win", "khui", "pair")
NUM_KINDS = len(PUBLIC_KINDS)
_MAX_DRAW = NUM_TUSAC_TYPES * 4 - FIRST_DEAL - 20  # draw pile of a 2-player game
_PREFIX = ("private", "khap_types", "private_sizes", "khap_counts", "public_counts", "public_sets", "dead")


def make_obs_spec(n: int) -> ObsSpec:
    """The observation spec for ``n`` players."""
    kinds = ", ".join(PUBLIC_KINDS)
    return ObsSpec([
        Feature("private", (NUM_TUSAC_TYPES,), 3, "own private block: count of each card type"),
        Feature("khap_types", (NUM_TUSAC_TYPES,), 1, "1 for each type of own Khap"),
        Feature("private_sizes", (n,), FIRST_DEAL, "private block size of each player (relative seat)"),
        Feature("khap_counts", (n,), 7, "number of Khaps each player holds (relative seat)"),
        Feature("public_counts", (n, NUM_TUSAC_TYPES), 4,
                "public block of each player (relative seat): count of each card type"),
        Feature("public_sets", (n, len(PUBLIC_KINDS)), 20,
                f"public block of each player (relative seat): number of sets of each kind ({kinds})"),
        Feature("dead", (NUM_TUSAC_TYPES,), 4, "dead pile: count of each card type"),
        Feature("active", (NUM_TUSAC_TYPES,), 1, "the active card, one-hot (all 0 when none)"),
        Feature("active_from", (n,), 1, "relative seat that exposed the active card, one-hot"),
        Feature("active_how", (2,), 1, "the active card was discarded / hit, one-hot"),
        Feature("active_passed", (), 1, "1 when the active card was passed on (no claims on it)"),
        Feature("draw_size", (), _MAX_DRAW, "cards left in the draw pile"),
        Feature("current", (n,), 1, "relative seat of the current player, one-hot"),
        Feature("phase", (3,), 1,
                "current player's pending decision: discard / meld or hit / meld or pass, one-hot"),
        Feature("trash", (), FIRST_DEAL, "own trash count"),
        Feature("worst", (NUM_TUSAC_TYPES,), 1,
                "when you must discard: 1 for each of your worst cards (fewest outs), else 0"),
        Feature("last_claim", (len(CLAIM_KINDS),), 1,
                "kind of the most recent claim (win / khui / pair), one-hot"),
        Feature("last_claimer", (n,), 1, "relative seat of the most recent claimer, one-hot"),
        Feature("winner", (n,), 1, "relative seat of the winner once the game is won, one-hot"),
        Feature("drawn", (), 1, "1 when the game ended in a draw"),
    ])


class ObsLayout:
    """Byte positions of the observation pieces for ``n`` players.

    Positions named ``*_pos`` are absolute in the flat per-state buffer (seat
    ``v``'s segment starts at ``v * size``); ``x_pos[s]`` lists, for every
    observer ``v``, where the byte of seat ``s`` in feature ``x`` lies (the
    feature's first byte for the row features ``pub_pos`` and ``kind_pos``).
    """

    def __init__(self, n: int):
        spec = make_obs_spec(n)
        names = [f.name for f in spec.features]
        # The prefix is laid out by concatenation: check the spec's order.
        assert tuple(names[:len(_PREFIX)]) == _PREFIX
        off = {name: sl.start for name, sl in spec.slices.items()}
        self.n = n
        self.spec = spec
        self.size = size = spec.size
        self.prefix = off["active"]
        self.off = off
        rel = [[(s - v) % n for v in range(n)] for s in range(n)]
        self.size_pos = tuple(tuple(v * size + off["private_sizes"] + rel[s][v] for v in range(n))
                              for s in range(n))
        self.khc_pos = tuple(tuple(v * size + off["khap_counts"] + rel[s][v] for v in range(n))
                             for s in range(n))
        self.pub_pos = tuple(tuple(v * size + off["public_counts"] + NUM_TUSAC_TYPES * rel[s][v]
                                   for v in range(n)) for s in range(n))
        self.kind_pos = tuple(tuple(v * size + off["public_sets"] + NUM_KINDS * rel[s][v]
                                    for v in range(n)) for s in range(n))
        self.dead_pos = tuple(v * size + off["dead"] for v in range(n))
        self.khap_row = off["khap_types"]
        self.tail = bytes(size - self.prefix)
        self.zero_rest = bytes(size - off["public_counts"])  # public rows, dead pile and tail


LAYOUTS = {n: ObsLayout(n) for n in (2, 3, 4)}


_KHAP_BYTES = bytes(int(c == 3) for c in range(256))  # translate table: private count -> Khap flag


def build_obs(state: TuSacState) -> bytearray:
    """Every seat's observation prefix (tail zero) from the state's plain fields and
    per-seat caches (``_sizes``, ``_pub_counts``, ``_kind_counts``; a Khap is a count of 3)."""
    n = state.num_players
    lay = LAYOUTS[n]
    sizes = bytes(state._sizes)
    khc = bytes(map(len, state._khaps))
    if not any(state.public) and not any(state.dead):  # a fresh deal: the rest is zeros
        zeros = lay.zero_rest
        sizes += sizes  # (seat s's rotation is then one slice)
        khc += khc
        parts = []
        for s, own in enumerate(map(bytes, state.private)):
            parts += (own, own.translate(_KHAP_BYTES), sizes[s:s + n], khc[s:s + n], zeros)
        return bytearray(b"".join(parts))
    counts = b"".join(map(bytes, state._pub_counts))
    kinds = b"".join(map(bytes, state._kind_counts))
    dead = bytes(state.dead)
    tail = lay.tail
    parts = []
    for s in range(n):
        own = bytes(state.private[s])
        i, j = s * NUM_TUSAC_TYPES, s * NUM_KINDS
        parts += (own, own.translate(_KHAP_BYTES), sizes[s:], sizes[:s], khc[s:], khc[:s],
                  counts[i:], counts[:i], kinds[j:], kinds[:j], dead, tail)
    return bytearray(b"".join(parts))


class Observer:
    """Precomputed offsets of one spec, and the per-step observation builder.

    Args:
        spec: the observation spec (:func:`make_obs_spec`).
        n: number of players.
        worst_cards: ``worst_cards(state)``, the current seat's worst discards
            (computed and cached on the state the first time it is asked).

    ``observe(state, seat)`` is a closure over the offsets (a closure variable
    reads faster than an attribute, and this runs every step).
    """

    def __init__(self, spec: ObsSpec, n: int, worst_cards: Callable[[TuSacState], list[int]]):
        self.n = n
        self.size = spec.size
        off = {name: sl.start for name, sl in spec.slices.items()}
        self.off = off
        assert spec.size == LAYOUTS[n].size
        self.observe = _make_observe(off, n, spec.size, worst_cards)


def _make_observe(off: dict[str, int], n: int, size: int,
                  worst_cards: Callable[[TuSacState], list[int]]) -> Callable[[TuSacState, int], np.ndarray]:
    rel = [[(x - seat) % n for x in range(n)] for seat in range(n)]
    segment = tuple(slice(s * size, (s + 1) * size) for s in range(n))  # seat -> its bytes
    # per observer: absolute seat -> byte of that seat in each one-hot seat feature
    from_at = tuple(tuple(off["active_from"] + r for r in rel[s]) for s in range(n))
    cur_at = tuple(tuple(off["current"] + r for r in rel[s]) for s in range(n))
    claimer_at = tuple(tuple(off["last_claimer"] + r for r in rel[s]) for s in range(n))
    winner_at = tuple(tuple(off["winner"] + r for r in rel[s]) for s in range(n))
    o_active, o_discarded, o_hit = off["active"], off["active_how"], off["active_how"] + 1
    o_passed, o_draw, o_phase = off["active_passed"], off["draw_size"], off["phase"]
    o_trash, o_worst, o_drawn = off["trash"], off["worst"], off["drawn"]
    claim_at = {k: off["last_claim"] + i for i, k in enumerate(CLAIM_KINDS)}
    # An int8 view of the fresh buffer: np.ndarray with a dtype instance is the cheapest way.
    ndarray, int8, shape = np.ndarray, np.dtype(np.int8), (size,)

    def observe(state: TuSacState, seat: int) -> np.ndarray:
        """``seat``'s observation: its cached prefix and the bytes of the moment."""
        if type(seat) is not int or not 0 <= seat < n:  # segment[-1] would be the last seat's
            seat = observer_seat(seat, n)
        buf = state._obs[segment[seat]]
        a = state.active
        if a >= 0:
            buf[o_active + a] = 1
            buf[from_at[seat][state.active_from]] = 1
            buf[o_discarded if state.active_how == EXPOSED_BY_DISCARD else o_hit] = 1
            if state.active_passed:
                buf[o_passed] = 1
        buf[o_draw] = len(state.draw)
        cur = state.current
        if cur >= 0:
            buf[cur_at[seat][cur]] = 1
            phase = state.phase
            buf[o_phase + phase] = 1
            if phase == PHASE_DISCARD and cur == seat:
                worst = state._worst
                if worst is None:
                    worst = worst_cards(state)
                for t in worst:
                    buf[o_worst + t] = 1
        else:  # over: won or drawn
            if state.winner >= 0:
                buf[winner_at[seat][state.winner]] = 1
            if state.result == "draw":
                buf[o_drawn] = 1
        buf[o_trash] = state._trash[seat]
        kind, who = state.last_claim
        if who >= 0:
            buf[claim_at[kind]] = 1
            buf[claimer_at[seat][who]] = 1
        return ndarray(shape, int8, buf)

    return observe
