"""Tu Sac game state, config and the constants every rules module shares.

Rules summary (``tusac_env/README.md``, rules choices 15 and 18): 112 cards, 28 types (``color * 7 +
piece``), 4 copies each. A hand is a public block (valid sets everyone sees)
and a private block. Quans (four of a type dealt to one player) go public at
the deal; Khaps (three of a type in a private block) are never broken, never
trash, and their number per player is public. Since private blocks only ever
lose cards after the deal, a player's Khap types are exactly the types they
hold three times.

The state is a plain mutable dataclass: rules functions in :mod:`tusac_env.flow`
change it in place. Fields whose names start with an underscore are caches
(derived from the others, excluded from equality and JSON, rebuilt on load).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

from setgames.cards import NUM_TUSAC_TYPES, TUSAC_COLORS, TUSAC_PIECES
from setgames.checks import check_bool, check_real, is_integer, short_repr
from setgames.obs import DEFAULT_OBS

__all__ = [
    "DRAW_LIMIT",
    "EXPOSED_BY_DISCARD",
    "EXPOSED_BY_HIT",
    "EXPOSED_NONE",
    "FIRST_DEAL",
    "HAND_SIZE",
    "KIND_VALUES",
    "MAX_REWARD_SCALE",
    "MIN_REWARD_SCALE",
    "PHASE_AFTER_HIT",
    "PHASE_DISCARD",
    "PHASE_OVER",
    "PHASE_RESPOND",
    "PUBLIC_KINDS",
    "SHORT_NAMES",
    "Exposure",
    "Phase",
    "TuSacConfig",
    "TuSacState",
    "lend_picture",
]

HAND_SIZE = 20  # cards dealt to every player but the first
FIRST_DEAL = 21  # cards dealt to the first player
DRAW_LIMIT = 7  # a hit with this many cards (or fewer) left in the draw pile ends the game drawn

# Set kinds a public block can hold, in observation order.
PUBLIC_KINDS = ("quan", "khui", "king", "pair", "triple", "kgm", "rcn", "pawns3", "pawns4")
# Set values for the winner's hand (tusac_env/README.md, rules choice 22); "khap" is a
# triple left in a private block, "quad" only arises inside a private arrangement handed back by the kernel.
KIND_VALUES = {
    "quan": 8, "khui": 6, "khap": 3, "pawns4": 2, "pair": 0,
    "king": 1, "triple": 1, "quad": 1, "kgm": 1, "rcn": 1, "pawns3": 1,
}

_COLOR_LETTER = "rygw"
_PIECE_LETTER = "KGMRCNP"
SHORT_NAMES: tuple[str, ...] = tuple(
    _COLOR_LETTER[t // 7] + _PIECE_LETTER[t % 7] for t in range(NUM_TUSAC_TYPES)
)  # e.g. "rK" red king, "wP" white pawn
assert len(TUSAC_COLORS) == 4 and len(TUSAC_PIECES) == 7


class Phase(IntEnum):
    """The decision pending for the current player."""

    DISCARD = 0  # after a meld or a claim (or at the start): discard one trash card
    RESPOND = 1  # an active card someone else exposed: meld it or hit
    AFTER_HIT = 2  # the card this player hit: meld it or pass
    OVER = 3


class Exposure(IntEnum):
    """How the active card became active."""

    NONE = 0
    DISCARD = 1
    HIT = 2


# The members again as plain module globals: an enum member lookup (``Phase.OVER``)
# costs about 0.15 us on CPython 3.11, a global about 0.02 us, and the per-step code
# makes a dozen of them. Same objects, so states and JSON are unchanged.
PHASE_DISCARD, PHASE_RESPOND, PHASE_AFTER_HIT, PHASE_OVER = (
    Phase.DISCARD, Phase.RESPOND, Phase.AFTER_HIT, Phase.OVER)
EXPOSED_NONE, EXPOSED_BY_DISCARD, EXPOSED_BY_HIT = Exposure.NONE, Exposure.DISCARD, Exposure.HIT


# The range of reward_scale: net payments are at most a few thousand points, so rewards
# stay within about 1e10 (finite, exact for integer scales, far from float overflow)
# and above 1e-9 (no subnormal rewards that a trainer would read as 0).
MIN_REWARD_SCALE, MAX_REWARD_SCALE = 1e-6, 1e6


@dataclass(frozen=True)
class TuSacConfig:
    """Validated Tu Sac options (see ``tusac_env/README.md``).

    Attributes:
        num_players: 2, 3 or 4.
        penalty_rule: the discarder of a non-worst winning card pays for every loser.
        first_player: seat that is dealt 21 cards and discards first, or ``"random"``
            (drawn from the game's seed).
        reward_scale: factor applied to the net payments, a finite number in
            ``[MIN_REWARD_SCALE, MAX_REWARD_SCALE]``.
        obs: the observation mode (:mod:`setgames.obs`), checked by the game against the
            modes it offers.
    """

    num_players: int = 4
    penalty_rule: bool = True
    first_player: int | str = 0
    reward_scale: float = 1.0
    obs: str = DEFAULT_OBS

    def __post_init__(self) -> None:
        # Checked and stored as plain Python values (a numpy integer becomes an int,
        # the scale a float): records hold the config as JSON.
        put = object.__setattr__
        if not is_integer(self.num_players) or self.num_players not in (2, 3, 4):
            raise ValueError(f"num_players {short_repr(self.num_players)} must be 2, 3 or 4")
        put(self, "num_players", int(self.num_players))
        put(self, "penalty_rule", check_bool("penalty_rule", self.penalty_rule))
        fp = self.first_player
        if isinstance(fp, str) and fp == "random":
            put(self, "first_player", "random")
        elif is_integer(fp) and 0 <= fp < self.num_players:
            put(self, "first_player", int(fp))
        else:
            raise ValueError(
                f"first_player {short_repr(fp)} must be 'random' or a seat 0..{self.num_players - 1}"
            )
        put(self, "reward_scale", check_real("reward_scale", self.reward_scale,
                                             MIN_REWARD_SCALE, MAX_REWARD_SCALE))


# slots: with its 40-odd fields (more than CPython 3.11 keeps as inline instance values, 30)
# a plain instance falls back to a dict, and every attribute read or write of the per-step
# code takes the slower dict path (about 40 instructions more each, measured).
@dataclass(eq=True, slots=True)
class TuSacState:
    """Everything about one Tu Sac game.

    Attributes:
        num_players: seats 0..n-1.
        first: the first player (dealt 21 cards).
        private: per seat, 28 counts of the private block (Khap cards included).
        public: per seat, the public block as ``[kind, [ttypes...]]`` sets in meld order.
        dead: 28 counts of the dead pile (cards hit over, face up).
        draw: the draw pile, top card last.
        active: type of the active card, -1 when none.
        active_from: seat that exposed the active card (-1 when none).
        active_how: an :class:`Exposure` value.
        active_passed: the active card was passed on (no claims are re-checked on it).
        discard_worst: whether the discard now active was one of the discarder's worst
            cards when discarded (the penalty rule's test; private to the discarder).
        current: seat to act (-1 once over).
        phase: a :class:`Phase` value.
        winner: winning seat, -1 when none (yet, or drawn).
        result: ``""`` while running, ``"win"``, ``"first_hand_win"`` or ``"draw"``.
        win_card: the winning card (-1 for a win on the first player's dealt hand).
        win_how: how the winning card was exposed (an :class:`Exposure` value).
        win_from: seat that exposed the winning card (-1 when none).
        value: the winner's hand value.
        amount: what each loser owes the winner (before the penalty rule).
        penalized: seat that paid the penalty, -1 when none.
        payments: ``[payer, payee, amount, reason]`` entries.
        returns: per-seat net payment times the reward scale.
        last_claim: ``[kind, seat]`` of the most recent claim (``["", -1]`` before any).
        events: the public game record (JSON-able tuples).
    """

    num_players: int
    first: int
    private: list[list[int]]
    public: list[list[list[Any]]]
    dead: list[int]
    draw: list[int]
    active: int = -1
    active_from: int = -1
    active_how: int = 0
    active_passed: bool = False
    discard_worst: bool = True
    current: int = 0
    phase: int = 0
    winner: int = -1
    result: str = ""
    win_card: int = -1
    win_how: int = 0
    win_from: int = -1
    value: int = 0
    amount: int = 0
    penalized: int = -1
    payments: list[list[Any]] = field(default_factory=list)
    returns: list[float] = field(default_factory=list)
    last_claim: list[Any] = field(default_factory=lambda: ["", -1])
    events: list[tuple] = field(default_factory=list)
    # Caches (derived). Per-seat ones that depend on the private block are updated by the
    # block bookkeeping of tusac_env.melds (and the discard tusac_env.flow inlines), the
    # only code that changes a private block.
    _trash: list[int] = field(default_factory=list, compare=False, repr=False)
    _khaps: list[tuple[int, ...]] = field(default_factory=list, compare=False, repr=False)
    _sizes: list[int] = field(default_factory=list, compare=False, repr=False)  # private block sizes
    # per seat: the base-4 code of each of the nine components of the private block
    _codes: list[list[int]] = field(default_factory=list, compare=False, repr=False)
    _ctrash: list[list[int]] = field(default_factory=list, compare=False, repr=False)  # component trash
    _disc: list[int] = field(default_factory=list, compare=False, repr=False)  # trash-lowering discards
    # per seat: bit masks of the active types it would win on (_win), holds three times or
    # (kings apart) twice (_high), and their union (_hot); _hot_any: the union over seats
    _win: list[int] = field(default_factory=list, compare=False, repr=False)
    _high: list[int] = field(default_factory=list, compare=False, repr=False)
    _hot: list[int] = field(default_factory=list, compare=False, repr=False)
    _hot_any: int = field(default=0, compare=False, repr=False)
    _pub_counts: list[list[int]] = field(default_factory=list, compare=False, repr=False)
    _kind_counts: list[list[int]] = field(default_factory=list, compare=False, repr=False)
    _exposed: list[int] = field(default_factory=list, compare=False, repr=False)
    _legal: list[int] | None = field(default=None, compare=False, repr=False)
    _worst: list[int] | None = field(default=None, compare=False, repr=False)
    # every seat's observation up to "dead" (tusac_env.observation), patched where data changes
    _obs: bytearray = field(default_factory=bytearray, compare=False, repr=False)
    _lay: Any = field(default=None, compare=False, repr=False)  # observation.ObsLayout of num_players

    def _repr_svg_(self) -> str | None:
        """A notebook shows the table, every card face up (:mod:`tusac_env.draw`, lent by
        :func:`lend_picture`); None (the text repr) if nothing was lent."""
        return _PICTURE(self) if _PICTURE is not None else None


# The picture needs the drawing and the rules' move labels, both of which import this
# module: tusac_env.rules lends it when it loads, which the package's __init__ makes happen
# before any state exists, so that this module imports nothing above it.
_PICTURE: Callable[[TuSacState], str] | None = None


def lend_picture(picture: Callable[[TuSacState], str]) -> None:
    """Make ``picture(state) -> svg`` what :meth:`TuSacState._repr_svg_` shows."""
    global _PICTURE
    _PICTURE = picture
