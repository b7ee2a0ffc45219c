"""The Tu Sac observation: one int8 vector, seat-relative, built from one spec.

Relative seat ``r`` in every per-player feature is the player ``r`` places
after the observer in turn order (``r = 0`` is the observer). A player sees
their own private block and Khap types, every public block, the dead pile,
the active card and how it came, private block sizes and Khap counts (public
by ``RULINGS.md`` section 4), the pending decision, their own trash count and,
when they must discard, which of their cards are *worst* (the "Find Trash" hint).
"""

from __future__ import annotations

import numpy as np

from setgames.cards import NUM_TUSAC_TYPES
from setgames.spec import Feature, ObsSpec
from tusac_env.state import (
    EXPOSED_BY_DISCARD,
    FIRST_DEAL,
    PHASE_DISCARD,
    PUBLIC_KINDS,
    TuSacState,
)

__all__ = ["CLAIM_KINDS", "Observer", "make_obs_spec"]

CLAIM_KINDS = ("win", "khui", "pair")
NUM_KINDS = len(PUBLIC_KINDS)
_MAX_DRAW = NUM_TUSAC_TYPES * 4 - FIRST_DEAL - 20  # draw pile of a 2-player game


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


class Observer:
    """Precomputed offsets of one spec, and the per-step observation builder."""

    def __init__(self, spec: ObsSpec, n: int):
        self.n = n
        self.size = spec.size
        off = {name: sl.start for name, sl in spec.slices.items()}
        self.off = off
        # seats in relative order, for each observer
        self.orders = tuple(tuple((seat + r) % n for r in range(n)) for seat in range(n))
        self.tail = bytes(self.size - off["active"])  # active .. drawn: zeros, then a few bytes set
        self.o_active, self.o_from, self.o_how = off["active"], off["active_from"], off["active_how"]
        self.o_passed, self.o_draw, self.o_cur = off["active_passed"], off["draw_size"], off["current"]
        self.o_phase, self.o_trash, self.o_worst = off["phase"], off["trash"], off["worst"]
        self.o_claim, self.o_claimer = off["last_claim"], off["last_claimer"]
        self.o_winner, self.o_drawn = off["winner"], off["drawn"]
        self.claim_index = {k: i for i, k in enumerate(CLAIM_KINDS)}
        # The vector is laid out by concatenation up to "active": check the spec's order.
        names = [f.name for f in spec.features]
        assert names[:names.index("active")] == [
            "private", "khap_types", "private_sizes", "khap_counts", "public_counts", "public_sets", "dead"]

    def observe(self, state: TuSacState, seat: int, worst: list[int] | None) -> np.ndarray:
        """``seat``'s observation; ``worst`` is the current seat's worst list (when discarding).

        The bytes before "active" are joined from pieces cached on the state: the
        seat's private counts and Khap row (rebuilt when its block changes) and all
        public blocks and every block's size and Khap count in absolute seat order
        (rebuilt when a set goes public / a private block changes), sliced into the
        seat's relative order; the dead pile is cheap enough to write every time.
        """
        n = self.n
        own = state._own_obs[seat]
        if own is None:
            khap_row = bytearray(NUM_TUSAC_TYPES)
            for t in state._khaps[seat]:
                khap_row[t] = 1
            own = state._own_obs[seat] = bytes(state.private[seat]) + khap_row
        sizes = state._sizes_obs
        if sizes is None:
            sizes = state._sizes_obs = bytes(state._sizes + [len(k) for k in state._khaps])
        public = state._public_obs
        if public is None:
            public = state._public_obs = (
                b"".join([bytes(c) for c in state._pub_counts]),
                b"".join([bytes(c) for c in state._kind_counts]),
            )
        counts, kinds = public
        # Relative seat order = the absolute order rotated by ``seat``: two slices each.
        i, j = seat * NUM_TUSAC_TYPES, seat * NUM_KINDS
        buf = bytearray(b"".join((
            own, sizes[seat:n], sizes[:seat], sizes[n + seat:], sizes[n:n + seat],
            counts[i:], counts[:i], kinds[j:], kinds[:j], bytes(state.dead), self.tail,
        )))
        a = state.active
        if a >= 0:
            buf[self.o_active + a] = 1
            buf[self.o_from + (state.active_from - seat) % n] = 1
            buf[self.o_how + (0 if state.active_how == EXPOSED_BY_DISCARD else 1)] = 1
            buf[self.o_passed] = state.active_passed
        buf[self.o_draw] = len(state.draw)
        cur = state.current
        if cur >= 0:
            buf[self.o_cur + (cur - seat) % n] = 1
            buf[self.o_phase + state.phase] = 1
            if worst is not None and cur == seat and state.phase == PHASE_DISCARD:
                p = self.o_worst
                for t in worst:
                    buf[p + t] = 1
        buf[self.o_trash] = state._trash[seat]
        kind, who = state.last_claim
        if who >= 0:
            buf[self.o_claim + self.claim_index[kind]] = 1
            buf[self.o_claimer + (who - seat) % n] = 1
        if state.winner >= 0:
            buf[self.o_winner + (state.winner - seat) % n] = 1
        if state.result == "draw":
            buf[self.o_drawn] = 1
        return np.frombuffer(buf, dtype=np.int8)
