"""Hand-built Tet Hsi positions for rule tests, written with card names."""

from __future__ import annotations

from setgames.cards import card_from_name
from setgames.kernels.tethsi import KIND_NAMES
from tests.tethsi.decktet_oracle import oracle_kind
from tethsi_env.layout import Phase
from tethsi_env.rules import TetHsiState


def c(name: str) -> int:
    """Card id of a name or short code."""
    return card_from_name(name)


def m(*names: str) -> int:
    """Card mask of names."""
    out = 0
    for n in names:
        out |= 1 << c(n)
    return out


def position(hand0: list[str], hand1: list[str], center: list[str], pile: list[str] | None = None,
             front0: tuple[str, ...] = (), front1: tuple[str, ...] = (), seat: int = 0,
             phase: Phase = Phase.DISCARD, remaining: str | None = None,
             sets0: tuple[tuple[str, str, str], ...] = ()) -> TetHsiState:
    """A state with the given zones; every other standard card is on the discard
    pile (pile given top card last). ``sets0``: Sets seat 0 already put aside."""
    set_mask = m(*(n for t in sets0 for n in t))
    used = m(*hand0, *hand1, *center, *front0, *front1, *(pile or [])) | set_mask
    discard = ((1 << 36) - 1) & ~used
    sets = [(*sorted((c(a), c(b))), c(r), KIND_NAMES.index(oracle_kind(c(a), c(b), c(r))))
            for a, b, r in sets0]
    return TetHsiState(
        concealed=[m(*hand0), m(*hand1)], front=[m(*front0), m(*front1)], center=m(*center),
        remaining=-1 if remaining is None else c(remaining), discard=discard, set_cards=[set_mask, 0],
        sets=[sets, []], pile=[c(n) for n in pile or []], seat=seat, phase=int(phase), first_player=0,
        turn=1, winner=-1, reason=None, events=[],
    )
